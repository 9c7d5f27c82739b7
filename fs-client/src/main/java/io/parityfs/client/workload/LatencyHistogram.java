package io.parityfs.client.workload;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Latencies in nanoseconds, counted in log-linear buckets (as HdrHistogram with two significant
 * digits): values below 256 ns exactly, above that in 128 buckets per power of two, so a
 * percentile is within 0.8% of the true value. Memory is fixed (about 39 KiB) whatever the
 * number of samples; values of 2^44 ns (4.9 hours) and more share the last bucket. The maximum
 * is kept exactly. Thread-safe: workers record concurrently, without locks.
 */
public final class LatencyHistogram {
  private static final int SUB_BITS = 7;
  private static final int SUB = 1 << SUB_BITS;
  private static final long LIMIT = (1L << 44) - 1;

  private final AtomicLongArray counts = new AtomicLongArray(index(LIMIT) + 1);
  private final LongAdder sum = new LongAdder();
  private final LongAccumulator max = new LongAccumulator(Math::max, 0);

  /** Percentiles of a histogram, in nanoseconds; zeros when it has no sample. */
  public record Summary(long count, long p50Nanos, long p90Nanos, long p99Nanos, long maxNanos,
      double meanNanos) {}

  /** Records one latency; a negative one counts as 0. */
  public void record(long nanos) {
    long v = Math.max(0, nanos);
    counts.incrementAndGet(index(Math.min(v, LIMIT)));
    sum.add(v);
    max.accumulate(v);
  }

  /** Records the time since {@code startNanos} ({@link System#nanoTime()}); returns now. */
  public long recordSince(long startNanos) {
    long now = System.nanoTime();
    record(now - startNanos);
    return now;
  }

  public long count() {
    long n = 0;
    for (int i = 0; i < counts.length(); i++) {
      n += counts.get(i);
    }
    return n;
  }

  public long maxNanos() {
    return max.get();
  }

  /**
   * The value at or below which {@code percent}% of the samples lie: the upper end of its
   * bucket, never above the maximum; 0 without samples.
   */
  public long percentileNanos(double percent) {
    if (!(percent >= 0 && percent <= 100)) {
      throw new IllegalArgumentException("percent (" + percent + ") must be in [0, 100]");
    }
    long n = count();
    if (n == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(percent / 100 * n));
    long seen = 0;
    for (int i = 0; i < counts.length(); i++) {
      seen += counts.get(i);
      if (seen >= rank) {
        return Math.min(highest(i), maxNanos());
      }
    }
    return maxNanos();
  }

  public Summary summary() {
    long n = count();
    return new Summary(n, percentileNanos(50), percentileNanos(90), percentileNanos(99),
        maxNanos(), n == 0 ? 0 : (double) sum.sum() / n);
  }

  /** Bucket of {@code v}: {@code 128 * shift + (v >> shift)}, shift = max(0, log2(v) - 7). */
  static int index(long v) {
    int shift = Math.max(0, 63 - Long.numberOfLeadingZeros(v) - SUB_BITS);
    return (shift << SUB_BITS) + (int) (v >>> shift);
  }

  /** The largest value that falls in bucket {@code i}. */
  static long highest(int i) {
    int shift = Math.max(0, (i >> SUB_BITS) - 1);
    long mantissa = i - ((long) shift << SUB_BITS);
    return ((mantissa + 1) << shift) - 1;
  }
}
