package io.parityfs.raid.codec.gpu;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Runs the shard copies between the caller's buffers and the pinned staging buffers on
 * {@link GpuShare#stagingThreads()} threads: the calling thread and a small pool of daemon
 * threads, each taking a contiguous range of the copies. With one thread everything runs on the
 * caller. The copies of one call touch disjoint byte ranges, so they need no locking.
 */
final class StagingCopier implements AutoCloseable {
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final int threads;
  private final ExecutorService pool;

  StagingCopier(int threads) {
    this.threads = threads;
    if (threads > 1) {
      int id = POOLS.incrementAndGet();
      AtomicInteger n = new AtomicInteger();
      this.pool = Executors.newFixedThreadPool(threads - 1, r -> {
        Thread t = new Thread(r, "parityfs-gpu-staging-" + id + "-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
    } else {
      this.pool = null;
    }
  }

  /** Calls {@code copy} for each of {@code 0 .. count-1}, spread over the threads; returns when all are done. */
  void run(int count, IntConsumer copy) {
    int parts = Math.min(threads, count);
    if (parts <= 1) {
      for (int i = 0; i < count; i++) {
        copy.accept(i);
      }
      return;
    }
    @SuppressWarnings("unchecked")
    Future<?>[] futures = new Future<?>[parts - 1];
    for (int p = 1; p < parts; p++) {
      int from = (int) ((long) count * p / parts);
      int to = (int) ((long) count * (p + 1) / parts);
      futures[p - 1] = pool.submit(() -> {
        for (int i = from; i < to; i++) {
          copy.accept(i);
        }
      });
    }
    RuntimeException failure = null;
    try {
      for (int i = 0, to = count / parts; i < to; i++) {
        copy.accept(i);
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = failure != null ? failure : new IllegalStateException("interrupted while staging", e);
      } catch (ExecutionException e) {
        if (failure == null) {
          failure = e.getCause() instanceof RuntimeException r
              ? r : new IllegalStateException("staging copy failed", e.getCause());
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
