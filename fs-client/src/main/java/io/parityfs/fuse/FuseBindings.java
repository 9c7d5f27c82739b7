package io.parityfs.fuse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the native binding of a mount ({@code docs/fuse.md}, "Which binding runs on which
 * JDK"): libfuse 3 through jfuse where the JDK is 22 or newer, the machine is x86-64 and
 * {@code libfuse3.so.3} is installed (1 MiB requests); else libfuse 2 through jnr-fuse (128 KiB
 * requests). {@code -Dparityfs.fuse.binding=libfuse2|libfuse3} (or {@code
 * PARITYFS_FUSE_BINDING}) insists on one; {@code -Dparityfs.fuse.libfuse3=PATH} names the
 * library.
 */
final class FuseBindings {
  private static final Logger LOG = LoggerFactory.getLogger(FuseBindings.class);
  static final String PROPERTY = "parityfs.fuse.binding";
  private static final String JFUSE_BINDING = "io.parityfs.fuse.JfuseBinding";
  private static final List<String> LIBRARY_DIRS = List.of("/lib/x86_64-linux-gnu",
      "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/usr/local/lib", "/usr/lib", "/lib");

  private FuseBindings() {}

  /** The binding asked for, or the best one that loads here. */
  static FuseBinding choose(PfsFuseOperations ops) throws IOException {
    String want = wanted();
    String why3 = null;
    if (!want.equals("libfuse2")) {
      why3 = libfuse3Unavailable();
      if (why3 != null && want.equals("auto")) {
        LOG.info("mounting with libfuse 2 (128 KiB requests): libfuse 3 (1 MiB requests) is not"
            + " used here because {}", why3);
      } else if (why3 == null) {
        try {
          return (FuseBinding) Class.forName(JFUSE_BINDING)
              .getDeclaredConstructor(PfsFuseOperations.class, Path.class)
              .newInstance(ops, libfuse3());
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
          Throwable c = e.getCause() != null ? e.getCause() : e;
          why3 = "its binding did not load: " + c;
          LOG.warn("libfuse 3 is installed but {}; mounting with libfuse 2", why3);
        }
      }
      if (want.equals("libfuse3")) {
        throw new IOException("cannot mount with libfuse 3 (" + PROPERTY + "=libfuse3): "
            + why3);
      }
    }
    try {
      return new JnrFuseBinding(ops, "parityfs");
    } catch (LinkageError | RuntimeException e) {
      throw new IOException("cannot load libfuse 2 (apt-get install libfuse2)"
          + (why3 == null ? "" : "; libfuse 3 is not an option either: " + why3) + ": " + e, e);
    }
  }

  /** {@code auto}, {@code libfuse2} or {@code libfuse3}. */
  static String wanted() throws IOException {
    String v = System.getProperty(PROPERTY, System.getenv("PARITYFS_FUSE_BINDING"));
    String want = v == null || v.isBlank() ? "auto" : v.trim().toLowerCase(Locale.ROOT);
    if (!List.of("auto", "libfuse2", "libfuse3").contains(want)) {
      throw new IOException(PROPERTY + " (" + v + ") must be auto, libfuse2 or libfuse3");
    }
    return want;
  }

  /** Null when the libfuse 3 binding can load here; else why not. */
  static String libfuse3Unavailable() {
    int jdk = Runtime.version().feature();
    if (jdk < 22) {
      return "it needs JDK 22 or newer (the foreign function API); this is JDK " + jdk;
    }
    String arch = System.getProperty("os.arch");
    if (!"amd64".equals(arch) && !"x86_64".equals(arch)) {
      return "its binding (jfuse-linux-amd64) is for x86-64; this is " + arch;
    }
    if (libfuse3() == null) {
      return "libfuse3.so.3 is not installed (apt-get install fuse3)";
    }
    return null;
  }

  /** Where {@code libfuse3.so.3} is, or null. */
  static Path libfuse3() {
    String named = System.getProperty("parityfs.fuse.libfuse3");
    if (named != null) {
      return Files.isReadable(Path.of(named)) ? Path.of(named) : null;
    }
    for (String dir : LIBRARY_DIRS) {
      Path p = Path.of(dir, "libfuse3.so.3");
      if (Files.isReadable(p)) {
        return p;
      }
    }
    return null;
  }
}
