package io.parityfs.client.workload;

import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The directory a workload works in. A run makes its own (an existing one is refused), so that
 * removing it at the end removes only what the run wrote.
 */
final class BenchDir {
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");

  private BenchDir() {}

  /** {@code /bench/<workload>-<UTC yyyyMMdd-HHmmss-SSS>}. */
  static String defaultPath(String workload) {
    return "/bench/" + workload + "-" + ZonedDateTime.now(ZoneOffset.UTC).format(STAMP);
  }

  /** Makes {@code dir} and its parents; ALREADY_EXISTS when it exists. */
  static void create(Namespace ns, String dir) throws NamespaceException {
    if (exists(ns, dir)) {
      throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, dir,
          "exists; a benchmark writes into a new directory (it removes it at the end)");
    }
    ns.mkdirs(dir);
  }

  static boolean exists(Namespace ns, String dir) throws NamespaceException {
    return ns.statusOrNull(dir) != null;
  }

  /** Deletes {@code dir} recursively after a failure; the failure, not this, is reported. */
  static void removeQuietly(Namespace ns, String dir) {
    try {
      ns.delete(dir, true);
    } catch (NamespaceException | RuntimeException e) {
      // left behind; the run's own error is what the caller reports
    }
  }

  /** An options record's {@code dir}: null (a new default directory) or absolute. */
  static void checkOption(String dir) {
    if (dir != null && !dir.startsWith("/")) {
      throw new IllegalArgumentException("dir (" + dir + ") must be an absolute path");
    }
  }

  static String child(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }
}
