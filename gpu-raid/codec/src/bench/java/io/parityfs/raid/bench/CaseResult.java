package io.parityfs.raid.bench;

import java.util.List;

/**
 * One case's timed passes, GB/s of data bytes: each ParityFS kernel set it ran on, ISA-L's own C
 * loop where it ran, and Hadoop.
 *
 * @param dataBytes data bytes in the case's DRAM set
 * @param backends ParityFS's kernels, the factory's choice first
 * @param isalC ISA-L's C loop over the same buffers, or null when it did not run on this case
 */
record CaseResult(
    BenchCase benchCase, long dataBytes, List<Backend> backends, Backend isalC,
    double[] hadoopDram, double[] hadoopCache) {

  /** The passes of one implementation in both regimes. */
  record Backend(String name, double[] dram, double[] cache) {
    double dramGbps() {
      return Throughput.median(dram);
    }

    double cacheGbps() {
      return Throughput.median(cache);
    }
  }

  /** The fastest ParityFS kernels from DRAM: the case's headline figure. */
  Backend best() {
    Backend best = backends.get(0);
    for (Backend b : backends) {
      if (b.dramGbps() > best.dramGbps()) {
        best = b;
      }
    }
    return best;
  }

  /** ParityFS kernels named {@code prefix...}, or null. */
  Backend backend(String prefix) {
    for (Backend b : backends) {
      if (b.name().startsWith(prefix)) {
        return b;
      }
    }
    return null;
  }

  double pfsDramGbps() {
    return best().dramGbps();
  }

  double pfsCacheGbps() {
    return best().cacheGbps();
  }

  double hadoopDramGbps() {
    return Throughput.median(hadoopDram);
  }

  double hadoopCacheGbps() {
    return Throughput.median(hadoopCache);
  }
}
