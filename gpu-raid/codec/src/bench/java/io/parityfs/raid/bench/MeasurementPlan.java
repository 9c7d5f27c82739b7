package io.parityfs.raid.bench;

/**
 * How long and how often each side is timed.
 *
 * <ul>
 *   <li>ParityFS, "dram": warm up for {@code warmSeconds} cycling through the whole data set
 *       (at least {@code datasetBytes} of data, far beyond any cache), then {@code passes} timed
 *       passes, each one full sweep of the set and at least {@code dramSeconds} long.
 *   <li>ParityFS, "cache": {@code passes} passes of at least {@code cacheSeconds} on stripe 0 alone.
 *   <li>Hadoop, "cache": warm up for {@code warmSeconds} on stripe 0, then {@code hadoopPasses}
 *       passes of at least {@code cacheSeconds}.
 *   <li>Hadoop, "dram": Hadoop runs at ~0.3 GB/s, so instead of repeated sweeps it makes one
 *       sweep over the whole data set, timed as three passes of at least a third of it each (and
 *       at least {@code hadoopDramSeconds} each, which lets a fast coder sweep more than once);
 *       a stripe is not touched again before the whole set has been, so nothing comes from cache.
 * </ul>
 *
 * Each figure is the median of its passes.
 */
record MeasurementPlan(
    long datasetBytes, double warmSeconds, int passes, double dramSeconds, double cacheSeconds,
    int hadoopPasses, double hadoopDramSeconds) {

  /** The published run: a 1 GiB data set per case, about 20 s per case. */
  static final MeasurementPlan FULL = new MeasurementPlan(1L << 30, 2.0, 5, 1.0, 0.5, 3, 0.5);

  /** A smoke run: 64 MiB per case, short passes; its figures are not comparable. */
  static final MeasurementPlan QUICK = new MeasurementPlan(64L << 20, 0.3, 2, 0.15, 0.1, 2, 0.05);

  /** Number of slices Hadoop's single DRAM sweep is timed in. */
  static final int HADOOP_DRAM_SLICES = 3;

  /** Stripes holding at least {@link #datasetBytes} of data at k MiB per stripe. */
  int stripes(int k) {
    long perStripe = (long) k * BlockPool.BLOCK;
    return (int) ((datasetBytes + perStripe - 1) / perStripe);
  }
}
