package io.parityfs.fuse;

import io.parityfs.testkit.SystemDeps;
import java.nio.file.Files;
import java.nio.file.Path;
import jnr.ffi.LibraryLoader;
import ru.serce.jnrfuse.LibFuse;

/**
 * Whether a real mount can run here: /dev/fuse, and libfuse 3 on JDK 22+ (the jfuse binding)
 * or libfuse 2 (what jnr-fuse loads).
 */
public final class FuseAvailable {
  private FuseAvailable() {}

  /**
   * Skips the calling test with a one-line reason where the machine has no /dev/fuse or
   * libfuse.so.2 cannot be loaded; fails it instead where
   * {@code -Dparityfs.requireSystemDeps=true} ({@code .ci/run}, which installs libfuse2 and
   * fuse3). {@code -Dparityfs.test.pretendMissing=libfuse2} pretends the library is absent.
   * From {@code @BeforeAll}, keep {@link #missing()} and skip each test with it
   * ({@link SystemDeps#skipIf}): a class skipped in {@code @BeforeAll} is reported as zero
   * tests, which the build's report check fails.
   */
  public static void assume() {
    SystemDeps.skipIf(missing());
  }

  /**
   * Null where a mount can run here; else why not (the skip reason). Throws
   * {@link AssertionError} instead where system dependencies are required.
   */
  public static String missing() {
    String why = SystemDeps.missing("fuse-device", Files.exists(Path.of("/dev/fuse")),
        "/dev/fuse is absent: no FUSE here, the mount tests are skipped");
    if (why != null) {
      return why;
    }
    if (FuseBindings.libfuse3Unavailable() == null) {
      return null; // the libfuse 3 binding mounts (FuseBindings)
    }
    String failure = libfuse2LoadFailure();
    return SystemDeps.missing("libfuse2", failure == null,
        "libfuse.so.2 cannot be loaded" + (failure == null ? "" : " (" + failure + ")")
            + ": the mount tests are skipped (apt-get install -y libfuse2 fuse3)");
  }

  /** Null when libfuse.so.2 loads the way jnr-fuse loads it on Linux; else why not. */
  static String libfuse2LoadFailure() {
    try {
      LibraryLoader.create(LibFuse.class).failImmediately().load("libfuse.so.2");
      return null;
    } catch (LinkageError | RuntimeException e) {
      String m = String.valueOf(e.getMessage());
      int nl = m.indexOf('\n');
      return nl < 0 ? m : m.substring(0, nl);
    }
  }
}
