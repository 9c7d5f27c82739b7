package io.parityfs.testkit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestDirsTest {
  @TempDir
  Path tmp;

  @Test
  void deletesATreeAndToleratesAMissingOne() throws Exception {
    Path root = tmp.resolve("a");
    Files.createDirectories(root.resolve("b/c"));
    Files.writeString(root.resolve("b/c/f"), "x");
    Files.writeString(root.resolve("g"), "y");
    TestDirs.deleteTree(root);
    assertFalse(Files.exists(root));
    assertTrue(Files.exists(tmp), "only the tree itself goes");
    TestDirs.deleteTree(root); // already gone: nothing to do
  }
}
