package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.testing.FullTargetCluster;
import io.parityfs.testkit.SystemDeps;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code put} into a full storage target exits with the no-space code (8), its message
 * starting with NO_SPACE; not the generic failure (1). A real full target ({@link
 * FullTargetCluster}).
 */
class CliNoSpaceTest {
  @TempDir
  static Path dir;
  static String missing;
  static FullTargetCluster full;
  static CliRunner cli;

  @BeforeAll
  static void start() throws Exception {
    missing = FullTargetCluster.missing(dir);
    if (missing == null) {
      full = FullTargetCluster.start(dir.resolve("cluster"));
      cli = new CliRunner(full.cluster().connectString());
    }
  }

  @BeforeEach
  void skipWithoutTmpfs() {
    SystemDeps.skipIf(missing);
  }

  @AfterAll
  static void stop() throws Exception {
    if (full != null) {
      full.close();
    }
  }

  @Test
  void putIntoAFullTargetExitsNoSpace() throws Exception {
    Path big = Files.write(dir.resolve("big.bin"), new byte[FullTargetCluster.TOO_MUCH]);
    CliRunner.Run r = cli.fails(8, "put", big.toString(), "/big.bin");
    assertTrue(r.err().startsWith("parityfs: put: /big.bin: NO_SPACE: "), r.err());
  }
}
