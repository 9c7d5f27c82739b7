package io.parityfs.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Folders that tests and benchmarks make and remove. */
public final class TestDirs {
  private TestDirs() {}

  /**
   * Deletes {@code dir} and everything below it; nothing when it does not exist. A file that
   * disappears meanwhile (a process still shutting down) is not an error; any other failure is.
   */
  public static void deleteTree(Path dir) throws IOException {
    List<Path> all;
    try (Stream<Path> walk = Files.walk(dir)) {
      all = walk.sorted(Comparator.reverseOrder()).toList();
    } catch (NoSuchFileException e) {
      return;
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof NoSuchFileException) {
        deleteTree(dir); // a file vanished under the walk: walk again
        return;
      }
      throw e.getCause();
    }
    for (Path p : all) {
      Files.deleteIfExists(p);
    }
  }
}
