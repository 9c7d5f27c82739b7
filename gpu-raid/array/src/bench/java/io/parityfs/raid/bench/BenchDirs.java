package io.parityfs.raid.bench;

import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The directories a benchmark creates, deleted when it is done with them and, failing that, by a
 * shutdown hook (an exception, {@code System.exit}, Ctrl-C), so that neither the disk nor
 * {@code /dev/shm} keeps gigabytes of benchmark files. Thread-safe.
 */
final class BenchDirs {
  private final Set<Path> owned = new LinkedHashSet<>();

  BenchDirs() {
    Runtime.getRuntime().addShutdownHook(new Thread(this::deleteAllQuietly, "bench-cleanup"));
  }

  /** Takes ownership of {@code dir}: it is deleted with everything in it at the latest on exit. */
  synchronized Path own(Path dir) {
    owned.add(dir);
    return dir;
  }

  /** Deletes {@code dir} and everything under it now, and forgets it. */
  void delete(Path dir) throws IOException {
    TestDirs.deleteTree(dir);
    synchronized (this) {
      owned.remove(dir);
    }
  }

  private synchronized void deleteAllQuietly() {
    for (Path dir : owned) {
      try {
        TestDirs.deleteTree(dir);
      } catch (IOException | UncheckedIOException e) {
        System.err.println("array: could not delete " + dir + ": " + e);
      }
    }
    owned.clear();
  }

}
