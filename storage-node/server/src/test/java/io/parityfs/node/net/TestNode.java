package io.parityfs.node.net;

import io.parityfs.node.StorageNode;
import io.parityfs.node.StorageTarget;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.config.NodeProperties;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.raid.codec.select.CodecBackend;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    List<String> drives = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      drives.add(Files.createDirectories(dir.resolve("drive" + i)).toString());
    }
    Properties p = NodeProperties.create()
        .set(NodeConfigKeys.NODE_NAME, "net-test")
        .set(NodeConfigKeys.NODE_ID_FILE, dir.resolve("node.id"))
        .set(NodeConfigKeys.LISTEN_HOST, "127.0.0.1")
        .set(NodeConfigKeys.LISTEN_PORT, 0)
        .set(NodeConfigKeys.METRICS_PORT, -1)
        // the network tests count connections: no cluster manager talking to its own node
        .set(NodeConfigKeys.CLUSTER_MANAGER, false)
        .set(NodeConfigKeys.ZK_CONNECT, zooKeeper)
        .set(NodeConfigKeys.ZK_SESSION_TIMEOUT, Duration.ofSeconds(10))
        .set(NodeConfigKeys.ZK_CONNECTION_TIMEOUT, Duration.ofSeconds(10))
        .set(NodeConfigKeys.CODEC, CodecBackend.CPU)
        .set("t0", NodeConfigKeys.DRIVES, drives)
        .set("t0", NodeConfigKeys.CREATE, true)
        .setText("t0", NodeConfigKeys.GEOMETRY, "raid6:4+2")
        .setText("t0", NodeConfigKeys.CELL_SIZE, cellSize)
        .setText("t0", NodeConfigKeys.MAX_CHUNK_SIZE, maxChunkSize)
        .set("t0", NodeConfigKeys.SCRUB_INTERVAL, Duration.ZERO)
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
