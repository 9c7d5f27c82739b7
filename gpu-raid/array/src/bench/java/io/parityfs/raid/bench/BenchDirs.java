package io.parityfs.raid.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Stream;

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
    deleteTree(dir);
    synchronized (this) {
      owned.remove(dir);
    }
  }

  private synchronized void deleteAllQuietly() {
    for (Path dir : owned) {
      try {
        deleteTree(dir);
      } catch (IOException | UncheckedIOException e) {
        System.err.println("array: could not delete " + dir + ": " + e);
      }
    }
    owned.clear();
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
