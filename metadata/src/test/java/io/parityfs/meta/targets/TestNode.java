package io.parityfs.meta.targets;

import io.parityfs.meta.registry.NodeRecord;
import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.meta.registry.ZkPaths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * A storage node as the registry sees it: writes the records a real node's {@code
 * NodeRegistration} writes (the same record classes and codec), with a ZooKeeper session of its
 * own, so that {@link #stop()} makes its ephemeral record go the way a crash or shutdown does.
 */
final class TestNode {
  static final long TIB = 1L << 40;

  /** One target of the node; change the fields, then {@link #publish()}. */
  static final class Target {
    final String id = UUID.randomUUID().toString();
    final String name;
    String pool;
    String protection;
    String state = "OPTIMAL";
    long capacityBytes = 10 * TIB;
    /** The highest file id the target says it holds chunks or fences of. */
    long maxFileId;
    long freeBytes;
    /** The file systems its online status names (id to drives); none, as older nodes. */
    Map<String, Integer> fileSystems = Map.of();

    Target(String name, String pool, String protection, long freeBytes) {
      this.name = name;
      this.pool = pool;
      this.protection = protection;
      this.freeBytes = freeBytes;
    }
  }

  final String id = UUID.randomUUID().toString();
  final String host;
  final int port;
  private final String connect;
  private final String namespace;
  private final Map<String, Target> targets = new LinkedHashMap<>();
  private CuratorFramework session;
  /** The failure domain its node record names ({@code node.domain}); "" for none. */
  String domain = "";

  TestNode(String connect, String namespace, String host, int port) {
    this.connect = connect;
    this.namespace = namespace;
    this.host = host;
    this.port = port;
  }

  Target add(String name, String pool, String protection, long freeBytes) {
    Target t = new Target(name, pool, protection, freeBytes);
    targets.put(t.id, t);
    return t;
  }

  List<Target> targets() {
    return List.copyOf(targets.values());
  }

  /** Connects (a new session) and registers: persistent records, then the online record. */
  TestNode start() throws Exception {
    session = CuratorFrameworkFactory.builder().connectString(connect).namespace(namespace)
        .sessionTimeoutMs(30_000).connectionTimeoutMs(10_000)
        .retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
    session.start();
    if (!session.blockUntilConnected(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no ZooKeeper");
    }
    writePersistent();
    session.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
        .forPath(ZkPaths.online(id), RegistryCodec.encode(online()));
    return this;
  }

  /** Writes the persistent records only (a node that was known once but is not running). */
  TestNode writeRecordsOnly() throws Exception {
    session = CuratorFrameworkFactory.builder().connectString(connect).namespace(namespace)
        .retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
    session.start();
    writePersistent();
    session.close();
    session = null;
    return this;
  }

  /** Rewrites every record, as a node does on a state change. */
  void publish() throws Exception {
    writePersistent();
    session.setData().forPath(ZkPaths.online(id), RegistryCodec.encode(online()));
  }

  /** Closes the session: the online record goes at once, as at a node's shutdown. */
  void stop() {
    session.close();
    session = null;
  }

  private void writePersistent() throws Exception {
    long now = System.currentTimeMillis();
    put(ZkPaths.node(id), RegistryCodec.encode(new NodeRecord(RegistryCodec.SCHEMA, id,
        "node-" + port, host, port, -1, List.copyOf(targets.keySet()), now, domain)));
    for (Target t : targets.values()) {
      put(ZkPaths.target(t.id), RegistryCodec.encode(new TargetRecord(RegistryCodec.SCHEMA,
          t.id, id, t.name, t.pool, t.protection, 65536, 64L << 20, 6, 0, now, t.state,
          t.capacityBytes, now, t.maxFileId)));
    }
  }

  private OnlineRecord online() {
    List<OnlineRecord.TargetStatus> statuses = new ArrayList<>();
    long capacity = 0;
    long free = 0;
    for (Target t : targets.values()) {
      statuses.add(new OnlineRecord.TargetStatus(t.id, t.name, t.state, t.protection,
          t.capacityBytes, t.freeBytes, "cpu", "test", List.of(), List.of(),
          t.fileSystems.entrySet().stream().map(e -> new OnlineRecord.FileSystemShare(
              e.getKey(), e.getValue())).toList()));
      capacity += t.capacityBytes;
      free += t.freeBytes;
    }
    long now = System.currentTimeMillis();
    return new OnlineRecord(RegistryCodec.SCHEMA, id, "node-" + port, host, port, -1, now, now,
        capacity, free, statuses);
  }

  private void put(String path, byte[] data) throws Exception {
    try {
      session.setData().forPath(path, data);
    } catch (KeeperException.NoNodeException e) {
      session.create().creatingParentsIfNeeded().forPath(path, data);
    }
  }
}
