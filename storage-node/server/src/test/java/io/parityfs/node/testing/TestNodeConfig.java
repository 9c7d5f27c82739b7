package io.parityfs.node.testing;

import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeProperties;
import io.parityfs.raid.codec.select.CodecBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The configuration of a storage node in a test or benchmark, typed ({@link NodeProperties}): what
 * every in-process node shares, so that a test spells out only what it is about. Exported in the
 * server's test-jar. A node from {@link #node} serves on loopback on a free port, has no metrics
 * endpoint, runs the CPU codec (a test must not depend on a GPU being there or not) and waits 10 s
 * for ZooKeeper; {@link #target} adds a target on fresh drive folders, made at first start, with
 * no scrub schedule. Every value can be set again on the returned {@link NodeProperties}.
 *
 * <pre>{@code
 * Properties p = TestNodeConfig.target(TestNodeConfig.node(home, "n0", zk.getConnectString()),
 *         "t0", "raid6:4+2", TestNodeConfig.driveFolders(home, 6))
 *     .setText("t0", NodeConfigKeys.MAX_CHUNK_SIZE, "1M")
 *     .toProperties();
 * }</pre>
 */
public final class TestNodeConfig {
  private TestNodeConfig() {}

  /** A node named {@code name} with its id file in {@code home}, on ZooKeeper {@code zooKeeper}. */
  public static NodeProperties node(Path home, String name, String zooKeeper) {
    return NodeProperties.create()
        .set(NodeConfigKeys.NODE_NAME, name)
        .set(NodeConfigKeys.NODE_ID_FILE, home.resolve("node.id"))
        .set(NodeConfigKeys.LISTEN_HOST, "127.0.0.1")
        .set(NodeConfigKeys.LISTEN_PORT, 0)
        .set(NodeConfigKeys.METRICS_PORT, -1)
        .set(NodeConfigKeys.ZK_CONNECT, zooKeeper)
        .set(NodeConfigKeys.ZK_SESSION_TIMEOUT, Duration.ofSeconds(10))
        .set(NodeConfigKeys.ZK_CONNECTION_TIMEOUT, Duration.ofSeconds(10))
        .set(NodeConfigKeys.CODEC, CodecBackend.CPU);
  }

  /**
   * Adds target {@code target} of {@code geometry} over {@code drives} to {@code node}: created
   * at the node's first start, never scrubbed on a schedule.
   */
  public static NodeProperties target(NodeProperties node, String target, String geometry,
      List<Path> drives) {
    return node
        .set(target, NodeConfigKeys.DRIVES, drives.stream().map(Path::toString).toList())
        .set(target, NodeConfigKeys.CREATE, true)
        .setText(target, NodeConfigKeys.GEOMETRY, geometry)
        .set(target, NodeConfigKeys.SCRUB_INTERVAL, Duration.ZERO);
  }

  /** {@code count} empty drive folders {@code parent/drive0}, {@code drive1}, ... (created). */
  public static List<Path> driveFolders(Path parent, int count) throws IOException {
    List<Path> drives = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      drives.add(Files.createDirectories(parent.resolve("drive" + i)).toAbsolutePath());
    }
    return drives;
  }
}
