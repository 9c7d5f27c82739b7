package io.parityfs.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.node.chunk.ChunkWriter;
import io.parityfs.node.cli.NodeCommand;
import io.parityfs.node.config.NodeConfig;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.config.NodeProperties;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.registry.NodeRegistration;
import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.testkit.Eventually;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class StorageNodeTest {
  @TempDir Path dir;
  private TestingServer zk;
  private CuratorFramework reader;
  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void zooKeeper() throws Exception {
    zk = new TestingServer(true);
    reader = CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100));
    reader.start();
    reader.blockUntilConnected();
  }

  @AfterEach
  void stopZooKeeper() throws IOException {
    reader.close();
    zk.close();
  }

  /** Two targets: raid6:4+2 on 6 folders (pool default), mirror:2 on 2 (pool archive.cold). */
  private Properties props() throws IOException {
    List<String> drives = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      drives.add(Files.createDirectories(dir.resolve("nvme" + i)).toString());
    }
    Files.createDirectories(dir.resolve("m0"));
    Files.createDirectories(dir.resolve("m1"));
    return NodeProperties.create()
        .set(NodeConfigKeys.NODE_NAME, "test-node")
        .set(NodeConfigKeys.NODE_DOMAIN, "rack-07")
        .set(NodeConfigKeys.NODE_ID_FILE, dir.resolve("state/node.id"))
        .set(NodeConfigKeys.LISTEN_HOST, "127.0.0.1")
        .set(NodeConfigKeys.LISTEN_PORT, 7110)
        .set(NodeConfigKeys.METRICS_HOST, "127.0.0.1")
        .set(NodeConfigKeys.METRICS_PORT, 0)
        .set(NodeConfigKeys.ZK_CONNECT, zk.getConnectString())
        .set(NodeConfigKeys.ZK_SESSION_TIMEOUT, Duration.ofSeconds(4))
        .set(NodeConfigKeys.ZK_CONNECTION_TIMEOUT, Duration.ofSeconds(3))
        // only state changes refresh in the tests
        .set(NodeConfigKeys.REGISTRY_REFRESH, Duration.ofSeconds(60))
        .set(NodeConfigKeys.CODEC, CodecBackend.CPU)
        .set("fast", NodeConfigKeys.DRIVES, drives)
        .set("fast", NodeConfigKeys.CREATE, true)
        .setText("fast", NodeConfigKeys.GEOMETRY, "raid6:4+2")
        .setText("fast", NodeConfigKeys.CELL_SIZE, "4K")
        .setText("fast", NodeConfigKeys.MAX_CHUNK_SIZE, "1M")
        .set("fast", NodeConfigKeys.SCRUB_INTERVAL, Duration.ofDays(1))
        .setText("fast", NodeConfigKeys.REBUILD_BUSY_RATE, "50")
        .set("small", NodeConfigKeys.DRIVES,
            List.of(dir.resolve("m0").toString(), dir.resolve("m1").toString()))
        .set("small", NodeConfigKeys.CREATE, true)
        .setText("small", NodeConfigKeys.GEOMETRY, "mirror:2")
        .setText("small", NodeConfigKeys.CELL_SIZE, "4K")
        .set("small", NodeConfigKeys.SCRUB_INTERVAL, Duration.ZERO)
        .set("small", NodeConfigKeys.POOL, "archive.cold")
        .toProperties();
  }

  private StorageNode start(Properties p) throws Exception {
    NodeConfig c = NodeConfigParser.parse(p, "test", dir);
    StorageNode node = new StorageNode(c, NodeServer.none());
    node.start();
    return node;
  }

  private JsonNode read(String path) throws Exception {
    return json.readTree(reader.getData().forPath(path));
  }

  private boolean exists(String path) {
    try {
      return reader.checkExists().forPath(path) != null;
    } catch (Exception e) {
      return false;
    }
  }

  private HttpResponse<String> get(StorageNode node, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + node.metricsPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void startRegistersEphemeralAndPersistentRecordsAndCloseDeregisters() throws Exception {
    StorageNode node = start(props());
    String id = node.nodeId();
    assertEquals(2, node.targets().size());
    StorageTarget fast = node.targets().get(0);
    StorageTarget small = node.targets().get(1);
    assertEquals(fast.array().id().toString(), fast.id());
    assertEquals(ArrayState.OPTIMAL, fast.state());

    Stat online = reader.checkExists().forPath(ZkPaths.online(id));
    assertNotNull(online);
    assertNotEquals(0, online.getEphemeralOwner(), "online record is ephemeral");
    JsonNode o = read(ZkPaths.online(id));
    assertEquals(1, o.get("schema").asInt());
    assertEquals(id, o.get("nodeId").asText());
    assertEquals("test-node", o.get("name").asText());
    assertEquals("127.0.0.1", o.get("host").asText());
    assertEquals(7110, o.get("port").asInt());
    assertEquals(node.metricsPort(), o.get("metricsPort").asInt());
    assertTrue(o.get("capacityBytes").asLong() > 0);
    assertTrue(o.get("freeBytes").asLong() > 0);
    assertEquals(2, o.get("targets").size());
    JsonNode t0 = o.get("targets").get(0);
    assertEquals(fast.id(), t0.get("targetId").asText());
    assertEquals("fast", t0.get("name").asText());
    assertEquals("OPTIMAL", t0.get("state").asText());
    assertEquals("raid6:4+2", t0.get("protection").asText());
    assertEquals("cpu", t0.get("codec").asText());
    assertFalse(t0.get("codecImplementation").asText().isEmpty());
    assertEquals(6, t0.get("drives").size());
    assertEquals("ONLINE", t0.get("drives").get(5).get("state").asText());
    assertEquals("none", o.get("targets").get(1).get("codec").asText(), "a mirror has no codec");
    assertEquals("mirror:2", o.get("targets").get(1).get("protection").asText());

    Stat nodeStat = reader.checkExists().forPath(ZkPaths.node(id));
    assertEquals(0, nodeStat.getEphemeralOwner(), "node record is persistent");
    JsonNode n = read(ZkPaths.node(id));
    assertEquals(id, n.get("nodeId").asText());
    assertEquals("rack-07", n.get("domain").asText(), "the failure domain, for placement");
    assertEquals(2, n.get("targets").size());
    assertEquals(small.id(), n.get("targets").get(1).asText());
    JsonNode t = read(ZkPaths.target(fast.id()));
    assertEquals(0, reader.checkExists().forPath(ZkPaths.target(fast.id())).getEphemeralOwner());
    assertEquals(id, t.get("nodeId").asText());
    assertEquals("raid6:4+2", t.get("protection").asText());
    assertEquals(4096, t.get("cellSize").asInt());
    assertEquals(1 << 20, t.get("maxChunkSize").asLong());
    assertEquals(6, t.get("dataSlots").asInt());
    assertEquals("OPTIMAL", t.get("state").asText());
    assertEquals("default", t.get("pool").asText());
    // read back through the metadata layer's schema, as its target registry does
    TargetRecord smallRecord = RegistryCodec.decode(
        reader.getData().forPath(ZkPaths.target(small.id())), TargetRecord.class,
        ZkPaths.target(small.id()));
    assertEquals("archive.cold", smallRecord.pool());
    assertEquals("mirror:2", smallRecord.protection());
    assertEquals(id, RegistryCodec.decode(reader.getData().forPath(ZkPaths.online(id)),
        OnlineRecord.class, ZkPaths.online(id)).nodeId());

    // a drive failure is published at once (the refresh interval is 60 s)
    fast.array().failDrive(2);
    Eventually.until("DEGRADED in the online record", () -> {
      try {
        JsonNode r = read(ZkPaths.online(id)).get("targets").get(0);
        return r.get("state").asText().equals("DEGRADED")
            && r.get("drives").get(2).get("state").asText().equals("FAILED");
      } catch (Exception e) {
        return false;
      }
    });
    Eventually.until("DEGRADED in the target record", () -> {
      try {
        return read(ZkPaths.target(fast.id())).get("state").asText().equals("DEGRADED");
      } catch (Exception e) {
        return false;
      }
    });

    node.close();
    assertNull(reader.checkExists().forPath(ZkPaths.online(id)), "online record removed");
    assertNotNull(reader.checkExists().forPath(ZkPaths.node(id)), "node record kept");
    assertNotNull(reader.checkExists().forPath(ZkPaths.target(fast.id())), "target kept");
    node.close(); // harmless
    assertThrows(IllegalStateException.class, node::start);
  }

  /**
   * The server serves (and the node registers, so its target shows ONLINE) before start()
   * returns: an admin request answered then (ARRAY_STATUS, DRIVE_* name the node) must not fail
   * with "node is STARTING" (L-a). Here the server asks at its own start, inside that window.
   */
  @Test
  void aStartingNodesServerCanNameTheNode() throws Exception {
    NodeConfig c = NodeConfigParser.parse(props(), "test", dir);
    java.util.concurrent.atomic.AtomicReference<Object> seen =
        new java.util.concurrent.atomic.AtomicReference<>();
    StorageNode node = new StorageNode(c, new NodeServer() {
      @Override
      public java.net.InetSocketAddress start(String host, int port, NodeServices services) {
        try {
          seen.set(services.nodeId());
        } catch (RuntimeException e) {
          seen.set(e);
        }
        return java.net.InetSocketAddress.createUnresolved(host, port);
      }

      @Override
      public void close() {}
    });
    node.start();
    try {
      assertEquals(node.nodeId(), seen.get(), "the node's id while it starts");
    } finally {
      node.close();
    }
  }

  @Test
  void drivesOnOneFileSystemCountItOnceInTheCapacity() throws Exception {
    // every drive folder of both targets is on the temporary folder's file system: counted
    // once per drive, raid6:4+2 claimed 6 x 4/6 = 4 times the disk, mirror:2 twice half of it
    StorageNode node = start(props());
    try {
      java.nio.file.FileStore fs = Files.getFileStore(dir);
      StorageTarget fast = node.targets().get(0);
      StorageTarget small = node.targets().get(1);
      assertEquals(java.util.List.of(fs), fast.fileStores());
      long total = fs.getTotalSpace();
      assertEquals(total * 4.0 / 6, fast.capacityBytes(), 1.0, "raid6:4+2: k/width of the disk");
      assertEquals(total / 2.0, small.capacityBytes(), 1.0, "mirror:2: half the disk");
      long usable = fs.getUsableSpace();
      assertTrue(fast.freeBytes() <= usable * 4.0 / 6 + (64 << 20), fast.freeBytes() + " free of "
          + usable);
    } finally {
      node.close();
    }
  }

  /**
   * Issue 39 item 5: a failed drive adds no space. The estimate divided the file system by the
   * drives still live on it, so with slot 2 failed raid6:4+2 claimed 4/5 of the disk instead
   * of 4/6 (168 GiB became 201.6 GiB in {@code parityfs fail-drive}).
   */
  @Test
  void aFailedDriveDoesNotGrowTheCapacity() throws Exception {
    StorageNode node = start(props());
    try {
      StorageTarget fast = node.targets().get(0);
      long total = Files.getFileStore(dir).getTotalSpace();
      long before = fast.capacityBytes();
      assertEquals(total * 4.0 / 6, before, 1.0, "optimal");
      fast.array().failDrive(2);
      assertEquals(ArrayState.DEGRADED, fast.state());
      assertEquals(before, fast.capacityBytes(), "one slot failed");
      assertTrue(fast.freeBytes() <= Files.getFileStore(dir).getUsableSpace() * 4.0 / 6
          + (64 << 20), fast.freeBytes() + " free");
      String id = fast.fileSystemIds().keySet().iterator().next();
      assertEquals(6, fast.fileSystemIds().get(id), "the failed slot's share counts too");
    } finally {
      node.close();
    }
  }

  /**
   * Issue 15 item 7: each target names the file system its capacity counts, by an id that every
   * node of this machine gives it (boot id and device), so that a cluster total counts a disk
   * that several targets or nodes share once. Both targets here are on the test folder's.
   */
  @Test
  void targetsNameTheFileSystemTheirCapacityCounts() throws Exception {
    StorageNode node = start(props());
    try {
      String dev = Long.toHexString((Long) Files.getAttribute(dir, "unix:dev"));
      java.util.Map<String, Integer> fast = node.targets().get(0).fileSystemIds();
      assertEquals(1, fast.size(), fast.toString());
      String id = fast.keySet().iterator().next();
      assertTrue(id.endsWith(":" + dev), id);
      assertEquals(6, fast.get(id), "every data drive of raid6:4+2");
      assertEquals(java.util.Map.of(id, 2), node.targets().get(1).fileSystemIds());
      OnlineRecord online = node.snapshot().online();
      assertEquals(java.util.List.of(new OnlineRecord.FileSystemShare(id, 6)),
          online.targets().get(0).fileSystems(), "in the online record");
    } finally {
      node.close();
    }
  }

  /**
   * Issue 39 item 4: the objects a scrub found lost are published with their ids beside the
   * count, and leave the record as soon as they are rewritten.
   */
  @Test
  void theOnlineRecordListsTheLostObjectsUntilTheyAreRewritten() throws Exception {
    StorageNode node = start(props());
    try {
      StorageTarget fast = node.targets().get(0);
      long lost = (5L << 24) | 1; // file 5, chunk 1
      long kept = (5L << 24) | 2;
      for (long id : new long[] {lost, kept}) {
        byte[] data = new byte[4096 * 4 * 2];
        new java.util.Random(id).nextBytes(data);
        fast.array().store().write(id, new java.io.ByteArrayInputStream(data), data.length);
      }
      for (int shard : new int[] {0, 2, 4}) { // three bad cells of stripe 1: beyond raid6
        String name = io.parityfs.raid.array.object.ObjectFiles.shard(lost, 0, shard);
        Path file;
        try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
          file = all.filter(f -> f.getFileName().toString().equals(name)).findFirst()
              .orElseThrow();
        }
        try (java.nio.channels.FileChannel f = java.nio.channels.FileChannel.open(file,
            java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
          long at = io.parityfs.raid.array.format.ShardFormat.cellOffset(4096, 1) + 100;
          ByteBuffer b = ByteBuffer.allocate(1);
          f.read(b, at);
          b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
          f.write(b, at);
        }
      }
      assertEquals(1, fast.array().scrubber().run().unrecoverableObjects());
      String hex = String.format("%016x", lost);
      assertEquals(1, fast.lostObjects());
      assertEquals(List.of(lost), fast.lostObjectIds());
      OnlineRecord.TargetStatus status = node.snapshot().online().targets().get(0);
      assertEquals(1, status.lostObjects());
      assertEquals(List.of(hex), status.lostIds());
      String online = ZkPaths.online(node.snapshot().online().nodeId());
      Eventually.until("the registry lists the lost object", Duration.ofSeconds(20),
          () -> readQuietly(online).path("targets").path(0).path("lostIds").toString()
              .equals("[\"" + hex + "\"]"));

      byte[] fresh = new byte[4096];
      fast.array().store().write(lost, new java.io.ByteArrayInputStream(fresh), fresh.length);
      assertEquals(0, fast.lostObjects());
      assertEquals(List.of(), fast.lostObjectIds());
      status = node.snapshot().online().targets().get(0);
      assertEquals(0, status.lostObjects());
      assertEquals(List.of(), status.lostIds());
      Eventually.until("the registry lists none", Duration.ofSeconds(20),
          () -> readQuietly(online).path("targets").path(0).path("lostObjects").asLong() == 0);
    } finally {
      node.close();
    }
  }

  private JsonNode readQuietly(String path) {
    try {
      return read(path);
    } catch (Exception e) {
      return json.createObjectNode();
    }
  }

  @Test
  void aRestartedNodeIsTheSameNodeWithTheSameTargetsAndData() throws Exception {
    Properties p = props();
    StorageNode first = start(p);
    String id = first.nodeId();
    String fast = first.targets().get(0).id();
    String small = first.targets().get(1).id();
    ChunkId chunk = new ChunkId(99, 1);
    try (ChunkWriter w = first.targets().get(0).chunks().openWrite(chunk, 0, WriteMode.CREATE)) {
      w.write(ByteBuffer.wrap("hello chunk".getBytes(StandardCharsets.UTF_8)));
      w.commit();
    }
    first.close();
    for (int i = 0; i < 6; i++) {
      assertTrue(Files.readString(dir.resolve("nvme" + i).resolve(NodeIdentity.DRIVE_FILE))
          .contains("nodeId=" + id), "node id on every drive");
    }

    StorageNode second = start(p);
    assertEquals(id, second.nodeId());
    assertEquals(fast, second.targets().get(0).id());
    assertEquals(small, second.targets().get(1).id());
    assertEquals(11, second.targets().get(0).chunks().stat(chunk).orElseThrow().length());
    assertTrue(exists(ZkPaths.online(id)));
    second.close();

    // the system disk is reinstalled: the id file is gone, the drives still know the node
    Files.delete(dir.resolve("state/node.id"));
    StorageNode third = start(p);
    assertEquals(id, third.nodeId());
    third.close();
    assertTrue(Files.readString(dir.resolve("state/node.id")).contains(id), "id file rewritten");

    // drives of another node: refused, naming the files
    Files.writeString(dir.resolve("state/node.id"),
        "format=1\nnodeId=00000000-0000-0000-0000-000000000001\n");
    StorageNode fourth = new StorageNode(NodeConfigParser.parse(p, "test", dir),
        NodeServer.none());
    IOException e = assertThrows(IOException.class, fourth::start);
    assertTrue(e.getMessage().contains("node.id") && e.getMessage().contains(id),
        e.getMessage());
  }

  /**
   * The online record deleted after the node wrote it and before it set the watch that
   * re-creates it (the step where aLostSessionIsRegisteredAgain's delete once landed): the watch
   * finds no record and the node registers again.
   */
  @Test
  void aRecordDeletedBeforeItsWatchIsSetIsCreatedAgain() throws Exception {
    StorageNode node = start(props());
    String id = node.nodeId();
    long before = node.registration().registrations();
    java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
    NodeRegistration.BEFORE_WATCH_HOOK = () -> {
      if (once.compareAndSet(false, true)) {
        try {
          reader.delete().forPath(ZkPaths.online(id));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    };
    try {
      KillSession.kill(node.registration().curator().getZookeeperClient().getZooKeeper());
      Eventually.until("registered again after the delete",
          () -> once.get() && node.registration().registrations() >= before + 2
              && exists(ZkPaths.online(id)));
    } finally {
      NodeRegistration.BEFORE_WATCH_HOOK = null;
    }
    // and the record is watched again: a later delete is repaired too
    reader.delete().forPath(ZkPaths.online(id));
    Eventually.until("re-created after a later delete", () -> exists(ZkPaths.online(id)));
    node.close();
  }

  @Test
  void aLostSessionIsRegisteredAgain() throws Exception {
    StorageNode node = start(props());
    String id = node.nodeId();
    final long owner = reader.checkExists().forPath(ZkPaths.online(id)).getEphemeralOwner();
    assertEquals(1, node.registration().registrations());
    KillSession.kill(node.registration().curator().getZookeeperClient().getZooKeeper());
    Eventually.until("re-registered under a new session", () -> {
      try {
        Stat s = reader.checkExists().forPath(ZkPaths.online(id));
        return s != null && s.getEphemeralOwner() != owner;
      } catch (Exception e) {
        return false;
      }
    });
    Eventually.until("counted", () -> node.registration().registrations() >= 2);
    assertEquals(id, read(ZkPaths.online(id)).get("nodeId").asText());
    Eventually.until("connected again", () -> node.health().healthy());

    // deleted behind the node's back: re-created by the watch
    reader.delete().forPath(ZkPaths.online(id));
    Eventually.until("re-created after a delete", () -> exists(ZkPaths.online(id)));
    node.close();
    assertFalse(exists(ZkPaths.online(id)));
  }

  @Test
  void metricsAndHealthEndpoint() throws Exception {
    StorageNode node = start(props());
    node.metrics().observe("write", "OK", 2_000_000, 4096, 0);
    node.metrics().observe("read", "NOT_FOUND", 50_000, 0, 0);
    node.metrics().observe("read", "OK", 80_000, 0, 8192);
    HttpResponse<String> m = get(node, "/metrics");
    assertEquals(200, m.statusCode());
    String text = m.body();
    for (String name : new String[] {
        "parityfs_node_requests_total{op=\"write\",status=\"OK\"} 1.0",
        "parityfs_node_requests_total{op=\"read\",status=\"NOT_FOUND\"} 1.0",
        "parityfs_node_request_duration_seconds_bucket",
        "parityfs_node_received_bytes_total{op=\"write\"} 4096.0",
        "parityfs_node_sent_bytes_total{op=\"read\"} 8192.0",
        "parityfs_target_state{name=\"fast\",state=\"OPTIMAL\",target=\"",
        "parityfs_target_drive_state{",
        "parityfs_target_capacity_bytes{",
        "parityfs_target_free_bytes{",
        "parityfs_target_scrub_running{",
        "parityfs_target_cells_repaired_total{",
        "parityfs_target_scrub_repairs_total{",
        "parityfs_target_scrub_unrecoverable_objects_total{",
        "parityfs_target_scrub_lost_objects{",
        "parityfs_target_garbage_files_deleted_total{",
        "parityfs_target_garbage_passes_total{",
        "parityfs_codec_info{chosen=\"cpu\"",
        "parityfs_zookeeper_connected 1.0"}) {
      assertTrue(text.contains(name), name + " in\n" + text);
    }
    HttpResponse<String> h = get(node, "/health");
    assertEquals(200, h.statusCode(), h.body());
    assertTrue(h.body().startsWith("OK"), h.body());
    assertTrue(h.body().contains("fast") && h.body().contains("OPTIMAL"), h.body());
    assertEquals(404, get(node, "/nothing").statusCode());

    // degraded still serves: healthy
    StorageTarget small = node.targets().get(1);
    small.array().failDrive(1);
    assertEquals(ArrayState.DEGRADED, small.state());
    assertEquals(200, get(node, "/health").statusCode());
    // more drives lost than the mirror tolerates: unhealthy
    small.array().failDrive(0, true); // beyond the tolerance: forced
    assertEquals(ArrayState.FAILED, small.state());
    HttpResponse<String> failed = get(node, "/health");
    assertEquals(503, failed.statusCode());
    assertTrue(failed.body().startsWith("UNHEALTHY") && failed.body().contains("FAILED"),
        failed.body());
    node.close();
  }

  @Test
  void zooKeeperDownIsUnhealthy() throws Exception {
    StorageNode node = start(props());
    assertEquals(200, get(node, "/health").statusCode());
    zk.stop();
    Eventually.until("503 while ZooKeeper is away", () -> {
      try {
        return get(node, "/health").statusCode() == 503;
      } catch (Exception e) {
        return false;
      }
    });
    assertTrue(get(node, "/health").body().contains("zookeeper NOT CONNECTED"));
    assertTrue(get(node, "/metrics").body().contains("parityfs_zookeeper_connected 0.0"));
    zk.restart();
    Eventually.until("200 after ZooKeeper is back", () -> {
      try {
        return get(node, "/health").statusCode() == 200;
      } catch (Exception e) {
        return false;
      }
    });
    node.close();
  }

  @Test
  void nodeStartCommandPrintsWhereItListensAndItsTargets() throws Exception {
    Path conf = dir.resolve("node.properties");
    try (var w = Files.newBufferedWriter(conf)) {
      props().store(w, null);
    }
    Properties props = props();
    props.setProperty("node.listen.port", "0"); // node start serves the wire protocol
    try (var w = Files.newBufferedWriter(conf)) {
      props.store(w, null);
    }
    CommandLine cli = new CommandLine(new NodeCommand());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    CommandLine sub = cli.getSubcommands().get("start");
    NodeCommand.Start running = sub.getCommand();
    Thread t = new Thread(() -> cli.execute("start", "--config", conf.toString()));
    t.start();
    Eventually.until("the targets printed", () -> out.toString(StandardCharsets.UTF_8).contains(
        "target small"));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("listening on 127.0.0.1"), printed);
    assertTrue(printed.contains("target fast") && printed.contains("raid6:4+2"), printed);
    java.util.regex.Matcher port = java.util.regex.Pattern.compile("listening on \\S*:(\\d+)")
        .matcher(printed);
    assertTrue(port.find(), printed);
    try (var client = io.parityfs.node.client.NodeClient.create(
        io.parityfs.node.client.NodeClientConfig.DEFAULT)) {
      var where = new java.net.InetSocketAddress("127.0.0.1", Integer.parseInt(port.group(1)));
      client.ping(where);
      assertTrue(client.admin().nodeInfo(where).contains("\"targets\""));
    }
    running.requestStop();
    t.join(10_000);
    assertFalse(t.isAlive());

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CommandLine bad = new CommandLine(new NodeCommand());
    bad.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    Path broken = dir.resolve("broken.properties");
    Files.writeString(broken, "targets = a\ntarget.a.drives = x\nmetrics.port = many\n");
    assertEquals(2, bad.execute("start", "--config", broken.toString()));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("metrics.port"), err.toString());
  }
}
