package io.parityfs.client;

import io.parityfs.meta.Caller;
import io.parityfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class with a mini cluster of its own (RAID-6 4+2 nodes of six folders each), for tests
 * that stop, retire or damage nodes: its {@code @BeforeAll} calls {@link #startCluster}; the
 * cluster stops after the class.
 */
abstract class OwnClusterTest {
  @TempDir
  static Path dir;
  static MiniCluster cluster;
  static ParityClient client;

  /** Starts {@code nodes} nodes and a client acting as root. */
  static void startCluster(int nodes) throws Exception {
    cluster = MiniCluster.start(dir, nodes, "raid6:4+2", 6);
    client = cluster.client(Caller.of("root"));
  }

  @AfterAll
  static void stopCluster() throws IOException {
    if (client != null) {
      client.close();
      client = null;
    }
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }
}
