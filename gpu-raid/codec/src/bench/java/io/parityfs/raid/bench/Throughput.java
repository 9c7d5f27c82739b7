package io.parityfs.raid.bench;

import java.io.IOException;
import java.util.Arrays;

/**
 * Times an operation on stripes: each call processes one whole stripe, and throughput is data
 * bytes (k x 1 MiB per call) divided by wall-clock time on the calling thread, in GB/s
 * (10^9 bytes per second). {@code System.nanoTime()} is read once per call, which is negligible
 * next to a call on megabytes.
 */
final class Throughput {
  private Throughput() {}

  /** An operation on one stripe of a {@link StripeSet}. */
  @FunctionalInterface
  interface StripeOp {
    void run(int stripe) throws IOException;
  }

  /**
   * Hands out stripe numbers 0, 1, ..., n-1, 0, ... and continues where the previous pass stopped,
   * so that successive passes sweep the whole set instead of re-reading its start.
   */
  static final class StripeCycle {
    private final int stripes;
    private int next;

    StripeCycle(int stripes) {
      this.stripes = stripes;
    }

    int next() {
      int s = next;
      next = s + 1 == stripes ? 0 : s + 1;
      return s;
    }

    int stripes() {
      return stripes;
    }
  }

  /** Runs {@code op} for {@code seconds} so that the JIT has compiled it before timing. */
  static void warmUp(StripeOp op, StripeCycle cycle, double seconds) throws IOException {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    do {
      op.run(cycle.next());
    } while (System.nanoTime() < end);
  }

  /**
   * Timed passes; a pass makes at least {@code minStripes} calls and lasts at least
   * {@code minSeconds}.
   *
   * @return GB/s of each pass
   */
  static double[] passes(
      StripeOp op, StripeCycle cycle, long bytesPerStripe, int passes, int minStripes,
      double minSeconds) throws IOException {
    long minNanos = (long) (minSeconds * 1e9);
    double[] gbps = new double[passes];
    for (int p = 0; p < passes; p++) {
      long start = System.nanoTime();
      long now;
      int calls = 0;
      do {
        op.run(cycle.next());
        calls++;
        now = System.nanoTime();
      } while (calls < minStripes || now - start < minNanos);
      gbps[p] = (double) calls * bytesPerStripe / (now - start);
    }
    return gbps;
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
}
