package io.parityfs.fuse;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a real mount can run here: /dev/fuse and libfuse 2 (what jnr-fuse loads). */
final class FuseAvailable {
  private FuseAvailable() {}

  /**
   * Skips the calling test class, with the reason, where the machine has no FUSE (/dev/fuse
   * absent); fails where it has one but libfuse 2 is missing, which {@code .ci/run} installs
   * (../shared/BUILD-NOTES.md: mount tests skip only without /dev/fuse).
   */
  static void assume() {
    assumeTrue(Files.exists(Path.of("/dev/fuse")), "/dev/fuse is absent: no FUSE here");
    if (!libfuse2()) {
      throw new AssertionError("libfuse.so.2 is not installed, though /dev/fuse exists:"
          + " apt-get install -y libfuse2 fuse3 (.ci/run does)");
    }
  }

  static boolean libfuse2() {
    try {
      Process p = new ProcessBuilder("ldconfig", "-p").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      return out.contains("libfuse.so.2");
    } catch (IOException e) {
      return Files.exists(Path.of("/lib/x86_64-linux-gnu/libfuse.so.2"))
          || Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libfuse.so.2"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
