package io.parityfs.raid.codec.gpu.check;

/**
 * How much {@link GpuSelfCheck} moves: {@link #FULL} for the recorded run, {@link #QUICK} for a
 * smoke run; tests build tiny ones for the emulated driver.
 *
 * @param exhaustiveLimit erasure patterns are all checked when a geometry has at most this many
 *     (sets of 1..m lost shards), else a random sample
 * @param samplePatterns the sample size otherwise
 * @param shardBytes the shard size of the throughput cases (1 MiB, as the CPU benchmark)
 * @param hostBytes data bytes per host-to-host batch (each case is one batch per timed pass)
 * @param hostPasses timed passes per host-to-host figure (the median is reported)
 * @param residentBytes data bytes per device-resident launch
 * @param residentSeconds device-resident launches repeat for at least this long ...
 * @param residentMaxLaunches ... but no more than this many times
 * @param cpuBytes data bytes of the CPU codec's one timed pass (after a warm-up of a quarter)
 * @param pcieBytes bytes per PCIe copy
 * @param pcieCopies timed copies per direction
 */
record SelfCheckSizes(int exhaustiveLimit, int samplePatterns, int shardBytes, long hostBytes,
    int hostPasses, long residentBytes, double residentSeconds, int residentMaxLaunches,
    long cpuBytes, int pcieBytes, int pcieCopies) {

  private static final long MIB = 1L << 20;

  /** About a minute of GPU work on an H200 besides the tenant windows. */
  static final SelfCheckSizes FULL = new SelfCheckSizes(
      2000, 300, 1 << 20, 1024 * MIB, 3, 1024 * MIB, 0.25, 2000, 256 * MIB, 256 << 20, 8);

  /** A few seconds of GPU work. */
  static final SelfCheckSizes QUICK = new SelfCheckSizes(
      200, 40, 1 << 20, 256 * MIB, 2, 256 * MIB, 0.05, 200, 64 * MIB, 64 << 20, 4);

  SelfCheckSizes {
    if (exhaustiveLimit < 1 || samplePatterns < 1 || shardBytes < 16 || shardBytes % 16 != 0
        || hostBytes < shardBytes || hostPasses < 1 || residentBytes < shardBytes
        || !(residentSeconds >= 0) || residentMaxLaunches < 1 || cpuBytes < shardBytes
        || pcieBytes < 16 || pcieCopies < 1) {
      throw new IllegalArgumentException("bad self-check sizes: exhaustiveLimit " + exhaustiveLimit
          + ", samplePatterns " + samplePatterns + ", shardBytes " + shardBytes + " (a multiple "
          + "of 16), hostBytes " + hostBytes + ", hostPasses " + hostPasses + ", residentBytes "
          + residentBytes + ", residentSeconds " + residentSeconds + ", residentMaxLaunches "
          + residentMaxLaunches + ", cpuBytes " + cpuBytes + ", pcieBytes " + pcieBytes
          + ", pcieCopies " + pcieCopies);
    }
  }

  /** Stripes of {@code k} data shards that hold at least {@code bytes} of data. */
  int stripesFor(long bytes, int k) {
    long perStripe = (long) k * shardBytes;
    return (int) Math.max(1, (bytes + perStripe - 1) / perStripe);
  }
}
