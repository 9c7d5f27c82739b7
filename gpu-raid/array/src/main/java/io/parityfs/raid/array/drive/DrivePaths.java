package io.parityfs.raid.array.drive;

import io.parityfs.raid.array.format.LabelFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Checks the drive directories given to create an array. */
public final class DrivePaths {
  private DrivePaths() {}

  /**
   * The real paths of {@code drives}, in order, after checking that each is an existing directory
   * and that no two are the same directory or nested in one another.
   *
   * @throws IllegalArgumentException naming the offending paths
   */
  public static List<Path> checkDistinct(List<Path> drives) throws IOException {
    List<Path> real = new ArrayList<>(drives.size());
    for (Path d : drives) {
      if (d == null) {
        throw new IllegalArgumentException("drive paths must not be null");
      }
      if (!Files.isDirectory(d)) {
        throw new IllegalArgumentException("drive " + d + " does not exist or is not a directory");
      }
      Path r = d.toRealPath();
      for (int i = 0; i < real.size(); i++) {
        Path o = real.get(i);
        if (o.equals(r)) {
          throw new IllegalArgumentException(
              "drive " + drives.get(i) + " is given twice (also as " + d + ")");
        }
        if (r.startsWith(o) || o.startsWith(r)) {
          throw new IllegalArgumentException(
              "drives " + drives.get(i) + " and " + d + " are nested in one another");
        }
      }
      real.add(r);
    }
    return real;
  }

  /** Whether {@code drive} holds entries other than its label, a temp label and lost+found. */
  public static List<String> foreignEntries(Path drive) throws IOException {
    try (var s = Files.list(drive)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> !n.equals(LabelFormat.FILE_NAME)
              && !n.equals(LabelFormat.TEMP_NAME)
              && !n.equals(DriveLocks.FILE_NAME)
              && !n.equals("lost+found"))
          .sorted()
          .toList();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
