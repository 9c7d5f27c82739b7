package io.parityfs.raid.array.drive;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The I/O engine's threads: per data slot, a small pool of {@code threadsPerDrive} daemon threads
 * ({@code pfs-drive-<slot>-<n>}), so that drives are worked in parallel and each drive has up to
 * that many requests in flight. Requests that must stay in order (the cells of one shard) are
 * chained by the caller ({@link #then}); requests of different shards, objects or readers run
 * concurrently.
 *
 * <p>Task failures travel in the returned futures; {@link #join} unwraps them back into the
 * {@link IOException}, {@link RuntimeException} or {@link Error} the task threw.
 */
public final class DriveQueues implements AutoCloseable {
  /** A drive request. */
  public interface Task<T> {
    T run() throws IOException;
  }

  private final ExecutorService[] pools;

  public DriveQueues(int slots, int threadsPerDrive) {
    if (slots < 1 || threadsPerDrive < 1) {
      throw new IllegalArgumentException("slots (" + slots + ") and threads per drive ("
          + threadsPerDrive + ") must be at least 1");
    }
    pools = new ExecutorService[slots];
    for (int s = 0; s < slots; s++) {
      pools[s] = Executors.newFixedThreadPool(threadsPerDrive, threads("pfs-drive-" + s + "-"));
    }
  }

  /** Runs {@code task} on a thread of {@code slot}'s pool. */
  public <T> CompletableFuture<T> submit(int slot, Task<T> task) {
    return CompletableFuture.supplyAsync(() -> call(task), pools[slot]);
  }

  /**
   * Runs {@code task} on {@code slot}'s pool after {@code previous} completed normally; if it
   * failed, the returned future fails the same way and the task does not run.
   */
  public <T> CompletableFuture<T> then(CompletableFuture<?> previous, int slot, Task<T> task) {
    return previous.thenApplyAsync(ignored -> call(task), pools[slot]);
  }

  /**
   * Waits for {@code future} and returns its value, rethrowing what the task threw.
   *
   * @throws InterruptedIOException when interrupted while waiting
   */
  public static <T> T join(CompletableFuture<T> future) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for drive I/O");
    } catch (ExecutionException e) {
      throw rethrow(e.getCause());
    } catch (CancellationException e) {
      throw new InterruptedIOException("drive I/O was cancelled");
    }
  }

  /** Waits for every future, then rethrows the first failure (in list order), if any. */
  public static void joinAll(List<? extends CompletableFuture<?>> futures) throws IOException {
    IOException firstIo = null;
    RuntimeException firstRuntime = null;
    for (CompletableFuture<?> f : futures) {
      try {
        join(f);
      } catch (IOException e) {
        firstIo = firstIo == null ? e : firstIo;
      } catch (RuntimeException e) {
        firstRuntime = firstRuntime == null ? e : firstRuntime;
      }
    }
    if (firstIo != null) {
      throw firstIo;
    }
    if (firstRuntime != null) {
      throw firstRuntime;
    }
  }

  /** The failure {@code t} as thrown by the task: IOExceptions returned, others thrown. */
  public static IOException rethrow(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof UncheckedIOException u) {
      return u.getCause();
    }
    if (t instanceof IOException e) {
      return e;
    }
    if (t instanceof RuntimeException e) {
      throw e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IOException(t);
  }

  /**
   * Stops the threads once the queued requests are done. Never interrupts a running request: an
   * interrupted NIO call closes the file for every user of it.
   */
  @Override
  public void close() {
    for (ExecutorService p : pools) {
      p.shutdown();
    }
  }

  private static <T> T call(Task<T> task) {
    try {
      return task.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.getAndIncrement());
      t.setDaemon(true);
      return t;
    };
  }
}
