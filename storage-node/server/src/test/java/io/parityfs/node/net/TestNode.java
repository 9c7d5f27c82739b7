package io.parityfs.node.net;

import io.parityfs.node.StorageNode;
import io.parityfs.node.StorageTarget;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.testing.TestNodeConfig;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A real storage node for the server tests: one target, RAID-6 4+2 over six folders, CPU codec,
 * small cells, served by a {@link NettyNodeServer} on loopback, registered in the given ZooKeeper.
 */
final class TestNode implements Closeable {
  final StorageNode node;
  final NettyNodeServer server;
  final InetSocketAddress address;
  final TargetId target;
  final Path dir;

  TestNode(Path dir, String zooKeeper, NodeServerConfig config, String cellSize,
      String maxChunkSize) throws Exception {
    this.dir = dir;
    Properties p = TestNodeConfig.target(TestNodeConfig.node(dir, "net-test", zooKeeper)
            // the network tests count connections: no cluster manager talking to its own node
            .set(NodeConfigKeys.CLUSTER_MANAGER, false),
            "t0", "raid6:4+2", TestNodeConfig.driveFolders(dir, 6))
        .setText("t0", NodeConfigKeys.CELL_SIZE, cellSize)
        .setText("t0", NodeConfigKeys.MAX_CHUNK_SIZE, maxChunkSize)
        .toProperties();
    server = new NettyNodeServer(config);
    node = new StorageNode(NodeConfigParser.parse(p, "test", dir), server);
    node.start();
    address = new InetSocketAddress("127.0.0.1", node.address().getPort());
    target = TargetId.of(node.targets().get(0).id());
  }

  StorageTarget storageTarget() {
    return node.targets().get(0);
  }

  @Override
  public void close() throws IOException {
    node.close();
  }
}
