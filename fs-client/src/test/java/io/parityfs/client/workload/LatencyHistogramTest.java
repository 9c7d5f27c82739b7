package io.parityfs.client.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Buckets round-trip, and percentiles within the 0.8% the buckets promise. */
class LatencyHistogramTest {
  @Test
  void bucketsCoverEveryValueOnce() {
    for (long v : new long[] {0, 1, 127, 128, 255, 256, 257, 511, 512, 1000, 123_456_789L,
        (1L << 44) - 1}) {
      int i = LatencyHistogram.index(v);
      assertTrue(LatencyHistogram.highest(i) >= v, "v " + v);
      assertTrue(i == 0 || LatencyHistogram.highest(i - 1) < v, "v " + v);
    }
  }

  @Test
  void percentilesAreCloseToExact() {
    SplittableRandom r = new SplittableRandom(3);
    long[] values = new long[100_000];
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < values.length; i++) {
      values[i] = (long) Math.exp(r.nextDouble(5, 20)); // 150 ns .. 0.5 s, log-uniform
      h.record(values[i]);
    }
    Arrays.sort(values);
    assertEquals(values.length, h.count());
    for (double p : new double[] {50, 90, 99, 99.9}) {
      long exact = values[(int) Math.ceil(p / 100 * values.length) - 1];
      long got = h.percentileNanos(p);
      assertTrue(got >= exact && got <= exact * 1.008 + 1, p + ": " + got + " vs " + exact);
    }
    assertEquals(values[values.length - 1], h.maxNanos());
    assertEquals(values[values.length - 1], h.percentileNanos(100));
    LatencyHistogram.Summary s = h.summary();
    assertEquals(h.percentileNanos(99), s.p99Nanos());
    assertEquals(Arrays.stream(values).average().orElseThrow(), s.meanNanos(), 1e-3);
  }

  @Test
  void emptyIsZeros() {
    assertEquals(new LatencyHistogram.Summary(0, 0, 0, 0, 0, 0), new LatencyHistogram()
        .summary());
  }
}
