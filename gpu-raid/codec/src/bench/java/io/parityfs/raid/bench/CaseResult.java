package io.parityfs.raid.bench;

/**
 * The four medians of one case, GB/s of data bytes, and the passes they came from.
 *
 * @param dataBytes data bytes in the case's DRAM set
 */
record CaseResult(
    BenchCase benchCase, long dataBytes, double[] pfsDram, double[] pfsCache, double[] hadoopDram,
    double[] hadoopCache) {

  double pfsDramGbps() {
    return Throughput.median(pfsDram);
  }

  double pfsCacheGbps() {
    return Throughput.median(pfsCache);
  }

  double hadoopDramGbps() {
    return Throughput.median(hadoopDram);
  }

  double hadoopCacheGbps() {
    return Throughput.median(hadoopCache);
  }
}
