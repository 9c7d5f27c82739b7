package io.parityfs.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.cluster.ClusterManager;
import io.parityfs.meta.targets.TargetRegistry;
import io.parityfs.meta.targets.TargetRegistryConfig;
import io.parityfs.node.StorageNode;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.net.NettyNodeServer;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ListRequest;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.protocol.WriteRequest;
import io.parityfs.node.testing.TestNodeConfig;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node (RAID-6 4+2 over temp folders, served on loopback) runs the cluster-manager
 * candidate; the manager deletes a removed file's chunks over the wire protocol.
 */
class NodeClusterManagerTest {
  @TempDir static Path dir;
  static TestingServer zk;
  static StorageNode node;
  static CuratorFramework curator;
  static NodeClient client;
  static InetSocketAddress addr;
  static String target;

  static StorageNode startNode(Path dir, boolean manager) throws Exception {
    Properties p = TestNodeConfig.target(TestNodeConfig.node(dir, "cluster-test",
                zk.getConnectString()).set(NodeConfigKeys.CLUSTER_MANAGER, manager),
            "t0", "raid6:4+2", TestNodeConfig.driveFolders(dir, 6))
        .setText("t0", NodeConfigKeys.CELL_SIZE, "4K")
        .setText("t0", NodeConfigKeys.MAX_CHUNK_SIZE, "1M")
        .toProperties();
    StorageNode n = new StorageNode(NodeConfigParser.parse(p, "test", dir),
        new NettyNodeServer(NodeServerConfig.DEFAULT));
    n.start();
    return n;
  }

  @BeforeAll
  static void start() throws Exception {
    zk = new TestingServer(true);
    node = startNode(Files.createDirectories(dir.resolve("node")), true);
    addr = new InetSocketAddress("127.0.0.1", node.address().getPort());
    target = node.targets().get(0).id();
    curator = CuratorFrameworkFactory.newClient(zk.getConnectString(),
        new ExponentialBackoffRetry(100, 5));
    curator.start();
    assertTrue(curator.blockUntilConnected(10, TimeUnit.SECONDS));
    client = NodeClient.create(NodeClientConfig.DEFAULT);
  }

  @AfterAll
  static void stop() throws IOException {
    client.close();
    curator.close();
    node.close();
    zk.close();
  }

  private void write(long fileId, int index) throws IOException {
    client.writeChunk(addr, TargetId.of(target), new ChunkId(fileId, index), 0, WriteMode.CREATE,
        WriteRequest.SYNC, ByteBuffer.wrap(new byte[] {1, 2, 3, (byte) index}));
  }

  private int chunksOf(long fileId) throws IOException {
    return client.list(addr, TargetId.of(target), fileId, 0, 1000).entries().size();
  }

  @Test
  void theNodesManagerDeletesTheChunksOfARemovedFileOverTheProtocol() throws Exception {
    ClusterManager m = node.clusterManager();
    assertNotNull(m);
    Eventually.until("the node's candidate leads", Duration.ofSeconds(30), m::isLeader);
    Namespace ns = Namespace.open(curator, NamespaceConfig.DEFAULT);
    Layout layout = new Layout(1 << 20, 1, List.of(target), "raid6:4+2");
    FileStatus gone = ns.create("/gone", CreateOptions.file().withLayout(layout));
    FileStatus kept = ns.create("/kept", CreateOptions.file().withLayout(layout));
    for (int i = 0; i < 3; i++) {
      write(gone.id(), i);
      write(kept.id(), i);
    }
    assertEquals(3, chunksOf(gone.id()));
    ns.delete("/gone", false);
    Eventually.until("the queue drained", Duration.ofSeconds(30),
        () -> m.status().filesDrained() >= 1);
    assertEquals(0, chunksOf(gone.id()));
    assertEquals(3, chunksOf(kept.id()));
    assertEquals(3, m.status().chunksDeleted());
  }

  @Test
  void chunkServiceListsPagesAndRefusesWhatItCannotReach() throws Exception {
    try (TargetRegistry registry = TargetRegistry.open(curator, TargetRegistryConfig.DEFAULT)) {
      ChunkService s = new NodeChunkService(client, registry);
      assertEquals(List.of(target), s.targets());
      long file = 900_000;
      for (int i = 0; i < 5; i++) {
        write(file, i);
      }
      ChunkPage first = s.list(target, file, 0, 2);
      assertEquals(2, first.chunks().size());
      assertTrue(first.hasMore());
      assertEquals(file, first.chunks().get(0).fileId());
      assertEquals(0, first.chunks().get(0).index());
      assertTrue(first.chunks().get(0).modifiedMillis() > 0);
      int seen = 2;
      ChunkPage p = first;
      while (p.hasMore()) {
        p = s.list(target, file, p.nextCursor(), 2);
        seen += p.chunks().size();
      }
      assertEquals(5, seen);
      assertTrue(s.list(target, ChunkService.ALL_FILES, 0, 1000).chunks().size() >= 5);
      assertTrue(s.delete(target, file, 4));
      assertTrue(!s.delete(target, file, 4));
      assertEquals(4, chunksOf(file));
      assertThrows(IOException.class, () -> s.list("t1", file, 0, 10));
      assertThrows(IOException.class,
          () -> s.list("00000000-0000-0000-0000-000000000001", file, 0, 10));
      assertEquals(ListRequest.ALL_FILES, ChunkService.ALL_FILES);
    }
  }

  @Test
  void aNodeWithTheManagerOffRunsNone() throws Exception {
    StorageNode off = startNode(Files.createDirectories(dir.resolve("off")), false);
    try {
      assertNull(off.clusterManager());
    } finally {
      off.close();
    }
  }
}
