package io.parityfs.raid.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * One timed pass of a throughput phase: the bytes it counts, the wall-clock time, the CPU time the
 * whole JVM used meanwhile (every thread, the store's drive threads included), and for array writes
 * the time the writers spent in {@code commit} (finish, fsync, publish, manifest).
 *
 * @param bytes the bytes the figure counts (user bytes for the array, file bytes for a baseline)
 * @param nanos wall-clock time, fsync included
 * @param cpuNanos process CPU time over the same interval, or -1 when the JVM cannot tell
 * @param commitNanos summed over writer threads: time inside commit (0 when not a write)
 * @param workerNanos summed over writer threads: time from first byte to commit returning
 */
record Timed(long bytes, long nanos, long cpuNanos, long commitNanos, long workerNanos) {

  /** MB/s (10^6 bytes per second). */
  double mbps() {
    return bytes * 1e3 / nanos;
  }

  double seconds() {
    return nanos / 1e9;
  }

  /** Average number of cores busy in this process during the pass, or NaN. */
  double cores() {
    return cpuNanos < 0 ? Double.NaN : (double) cpuNanos / nanos;
  }

  /** Share of the writers' time spent committing, or NaN when not a write. */
  double commitShare() {
    return workerNanos == 0 ? Double.NaN : (double) commitNanos / workerNanos;
  }

  /** "2510 MB/s (6144 MiB in 2.57 s, 1.2 cores)". */
  String describe() {
    String s = String.format(Locale.ROOT, "%.0f MB/s (%d MiB in %.2f s, %.2f cores", mbps(),
        bytes >> 20, seconds(), cores());
    if (workerNanos > 0) {
      s += String.format(Locale.ROOT, ", %.0f%% of writer time in commit", 100 * commitShare());
    }
    return s + ")";
  }

  /** Process CPU time in ns, or -1. */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** Starts a pass: {@link Clock#stop} gives its {@link Timed}. */
  static Clock start() {
    return new Clock(System.nanoTime(), processCpuNanos());
  }

  /** The start of a pass. */
  record Clock(long startNanos, long startCpu) {
    Timed stop(long bytes) {
      return stop(bytes, 0, 0);
    }

    Timed stop(long bytes, long commitNanos, long workerNanos) {
      long now = System.nanoTime();
      long cpu = processCpuNanos();
      return new Timed(bytes, now - startNanos, cpu < 0 || startCpu < 0 ? -1 : cpu - startCpu,
          commitNanos, workerNanos);
    }
  }
}
