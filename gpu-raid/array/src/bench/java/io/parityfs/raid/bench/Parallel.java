package io.parityfs.raid.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one task on each of n new threads and waits for all of them; the first failure is rethrown
 * (an {@link IOException} as such, a {@link RuntimeException} or {@link Error} as such) after
 * every thread has ended, with the others' failures added as suppressed.
 */
final class Parallel {
  private Parallel() {}

  /** The body of thread {@code index} (0 .. n-1). */
  @FunctionalInterface
  interface Task {
    void run(int index) throws IOException;
  }

  static void run(int threads, String name, Task task) throws IOException {
    List<Thread> started = new ArrayList<>();
    Throwable[] failures = new Throwable[threads];
    for (int i = 0; i < threads; i++) {
      int index = i;
      Thread t = new Thread(() -> {
        try {
          task.run(index);
        } catch (Throwable e) {
          failures[index] = e;
        }
      }, name + "-" + i);
      t.setDaemon(true);
      t.start();
      started.add(t);
    }
    boolean interrupted = false;
    for (Thread t : started) {
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Throwable first = null;
    for (Throwable f : failures) {
      if (f == null) {
        continue;
      }
      if (first == null) {
        first = f;
      } else if (f != first) {
        first.addSuppressed(f);
      }
    }
    if (first instanceof IOException e) {
      throw e;
    } else if (first instanceof UncheckedIOException e) {
      throw e.getCause();
    } else if (first instanceof RuntimeException e) {
      throw e;
    } else if (first instanceof Error e) {
      throw e;
    } else if (first != null) {
      throw new IllegalStateException(first);
    }
  }
}
