package io.parityfs.node.net;

import io.parityfs.node.StorageNode;
import io.parityfs.node.StorageTarget;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.protocol.TargetId;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
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
    Properties p = new Properties();
    p.setProperty("node.name", "net-test");
    p.setProperty("node.idFile", dir.resolve("node.id").toString());
    p.setProperty("node.listen.host", "127.0.0.1");
    p.setProperty("node.listen.port", "0");
    p.setProperty("metrics.port", "-1");
    // the network tests count connections: no cluster manager talking to its own node
    p.setProperty("cluster.manager.enabled", "false");
    p.setProperty("zookeeper.connect", zooKeeper);
    p.setProperty("zookeeper.sessionTimeout", "10s");
    p.setProperty("zookeeper.connectionTimeout", "10s");
    p.setProperty("codec", "cpu");
    p.setProperty("targets", "t0");
    StringBuilder drives = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      Path d = Files.createDirectories(dir.resolve("drive" + i));
      drives.append(i == 0 ? "" : ",").append(d);
    }
    p.setProperty("target.t0.drives", drives.toString());
    p.setProperty("target.t0.create", "true");
    p.setProperty("target.t0.geometry", "raid6:4+2");
    p.setProperty("target.t0.cellSize", cellSize);
    p.setProperty("target.t0.maxChunkSize", maxChunkSize);
    p.setProperty("target.t0.scrubInterval", "0");
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
