package io.parityfs.hadoop;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.testing.FullTargetCluster;
import io.parityfs.testkit.SystemDeps;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ClusterStorageCapacityExceededException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A storage node's NO_SPACE reaches a Hadoop writer as {@link
 * ClusterStorageCapacityExceededException} naming the full target (not a bare IOException),
 * from the write, hflush or close that stores the chunk. A real full target ({@link
 * FullTargetCluster}).
 */
class PfsFileSystemNoSpaceTest {
  @TempDir
  static Path dir;
  static String missing;
  static FullTargetCluster full;
  static FileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    missing = FullTargetCluster.missing(dir);
    if (missing == null) {
      full = FullTargetCluster.start(dir.resolve("cluster"));
      Configuration conf = new Configuration();
      conf.set("fs.pfs.cluster.full.zookeeper", full.cluster().connectString());
      conf.set("fs.pfs.zookeeper.session-timeout", "5s");
      fs = FileSystem.newInstance(URI.create("pfs://full/"), conf);
    }
  }

  @BeforeEach
  void skipWithoutTmpfs() {
    SystemDeps.skipIf(missing);
  }

  @AfterAll
  static void stop() throws Exception {
    if (fs != null) {
      fs.close();
    }
    if (full != null) {
      full.close();
    }
  }

  @Test
  void aFullTargetIsClusterStorageCapacityExceeded() {
    ClusterStorageCapacityExceededException e = assertThrows(
        ClusterStorageCapacityExceededException.class, () -> {
          try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/big"))) {
            byte[] piece = new byte[1 << 20];
            for (int written = 0; written < FullTargetCluster.TOO_MUCH; written += piece.length) {
              out.write(piece);
            }
            out.hflush();
          }
        });
    assertTrue(e.getMessage().contains("NO_SPACE") && e.getMessage().contains(full.target()),
        "names the status and the target: " + e.getMessage());
    assertTrue(e.getCause() instanceof IOException, String.valueOf(e.getCause()));
  }
}
