package io.parityfs.raid.bench;

import io.parityfs.raid.array.object.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Random reads of {@code size} bytes at size-aligned offsets of random objects of an
 * {@link ObjectLoad}, from {@code threads} threads (one read in flight each), for a fixed time
 * after a short untimed warm-up. Every read is checked; latency is the time inside
 * {@link ObjectStore#read} alone.
 */
final class RandomReads {
  /**
   * @param iops reads per second over the timed interval
   * @param mbps MB/s of bytes read
   * @param p50Ms median latency
   * @param p99Ms 99th percentile latency
   * @param cores CPU cores busy in this process meanwhile
   */
  record Result(int size, long reads, double iops, double mbps, double p50Ms, double p99Ms,
      double cores) {}

  private RandomReads() {}

  static Result run(ObjectStore store, ObjectLoad load, ObjectContent content, int size,
      int threads, double seconds, long seed) throws IOException {
    int slots = content.objectSize() / size;
    long warmUntil = System.nanoTime() + (long) (Math.min(1.0, seconds / 5) * 1e9);
    long[][] latencies = new long[threads][];
    int[] counts = new int[threads];
    AtomicLong timedStart = new AtomicLong();
    AtomicLong timedEnd = new AtomicLong();
    long[] cpuStart = new long[1];
    // Every thread warms up until warmUntil, then runs until end; the clock starts at warmUntil.
    long end = warmUntil + (long) (seconds * 1e9);
    Thread cpuProbe = new Thread(() -> {
      try {
        long wait = warmUntil - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      timedStart.set(System.nanoTime());
      cpuStart[0] = Timed.processCpuNanos();
    });
    cpuProbe.start();
    long cpuEnd;
    Parallel.run(threads, "rand" + (size >> 10) + "k", t -> {
      SplittableRandom random = new SplittableRandom(seed + 31L * t);
      ByteBuffer buf = ObjectContent.aligned(size);
      long[] lat = new long[1 << 16];
      int n = 0;
      while (true) {
        long t0 = System.nanoTime();
        if (t0 >= end) {
          break;
        }
        int i = random.nextInt(load.objects());
        long id = load.id(i);
        long at = (long) random.nextInt(slots) * size;
        buf.clear();
        int got = store.read(id, at, buf);
        long t1 = System.nanoTime();
        if (got != size) {
          throw new IOException("object " + id + ": read " + got + " bytes at " + at);
        }
        content.verify(id, at, buf.flip());
        if (t0 >= warmUntil) {
          if (n == lat.length) {
            lat = Arrays.copyOf(lat, n * 2);
          }
          lat[n++] = t1 - t0;
        }
      }
      latencies[t] = lat;
      counts[t] = n;
    });
    cpuEnd = Timed.processCpuNanos();
    timedEnd.set(System.nanoTime());
    try {
      cpuProbe.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    int total = 0;
    for (int c : counts) {
      total += c;
    }
    long[] all = new long[total];
    int at = 0;
    for (int t = 0; t < threads; t++) {
      System.arraycopy(latencies[t], 0, all, at, counts[t]);
      at += counts[t];
    }
    Arrays.sort(all);
    double wall = (timedEnd.get() - timedStart.get()) / 1e9;
    double iops = total / wall;
    double cores = cpuEnd < 0 || cpuStart[0] < 0
        ? Double.NaN : (cpuEnd - cpuStart[0]) / 1e9 / wall;
    return new Result(size, total, iops, iops * size / 1e6, percentile(all, 0.50) / 1e6,
        percentile(all, 0.99) / 1e6, cores);
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return sorted[Math.max(0, i)];
  }
}
