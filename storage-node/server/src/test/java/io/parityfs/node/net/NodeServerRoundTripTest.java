package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.ListEntry;
import io.parityfs.node.protocol.ListRequest;
import io.parityfs.node.protocol.ListResponse;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.protocol.WriteRequest;
import io.parityfs.node.protocol.admin.AdminCodec;
import io.parityfs.node.protocol.admin.ArrayStatus;
import io.parityfs.node.protocol.admin.DriveSlot;
import io.parityfs.node.protocol.admin.NodeInfo;
import io.parityfs.node.protocol.admin.Progress;
import io.parityfs.node.protocol.admin.TargetStatus;
import io.parityfs.node.protocol.admin.TargetSummary;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every operation through the real client against a real node (RAID-6 4+2, 4 KiB cells). */
class NodeServerRoundTripTest {
  @TempDir static Path dir;
  static TestingServer zk;
  static TestNode node;
  static NodeClient client;
  static InetSocketAddress addr;
  static TargetId target;
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    zk = new TestingServer(true);
    node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K", "64M");
    client = NodeClient.create(NodeClientConfig.DEFAULT);
    addr = node.address;
    target = node.target;
  }

  @AfterAll
  static void stop() throws IOException {
    client.close();
    node.close();
    zk.close();
  }

  static byte[] bytes(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static byte[] read(ChunkId c, long offset, long length) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    client.readChunk(addr, target, c, offset, length, java.nio.channels.Channels.newChannel(out));
    return out.toByteArray();
  }

  static Status status(ThrowingRunnable r) {
    return assertThrows(NodeException.class, r::run).status();
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void pingNodeInfoArrayStatusAndProgress() throws Exception {
    client.ping(addr);
    JsonNode info = JSON.readTree(client.admin().nodeInfo(addr));
    assertEquals(node.node.nodeId(), info.get("nodeId").asText());
    assertEquals(target.toString(), info.get("targets").get(0).get("id").asText());
    assertEquals("raid6:4+2", info.get("targets").get(0).get("protection").asText());
    JsonNode status = JSON.readTree(client.admin().arrayStatus(addr, TargetId.ALL));
    JsonNode t = status.get("targets").get(0);
    assertEquals("OPTIMAL", t.get("state").asText());
    assertEquals(4096, t.get("cellSize").asInt());
    assertEquals(6, t.get("drives").size());
    for (JsonNode d : t.get("drives")) {
      assertEquals("ONLINE", d.get("state").asText());
    }
    JsonNode one = JSON.readTree(client.admin().arrayStatus(addr, target)).get("targets");
    assertEquals(1, one.size());
    assertEquals(t.get("id"), one.get(0).get("id"));
    assertEquals(t.get("drives"), one.get(0).get("drives"));
    JsonNode progress = JSON.readTree(client.admin().progress(addr, TargetId.ALL));
    assertEquals(0, progress.get("tasks").size(), progress.toString());
    assertTrue(node.server.transport().equals("epoll") || node.server.transport().equals("nio"));
  }

  @Test
  void adminRepliesAreTheTypedDocumentsOfSchemaOne() throws Exception {
    String raw = client.admin().nodeInfo(addr);
    assertTrue(raw.startsWith("{\"schema\":1,\"nodeId\":"), raw);
    NodeInfo info = AdminCodec.decode(raw, NodeInfo.class);
    assertEquals(node.node.nodeId(), info.nodeId());
    assertEquals(new TargetSummary(target.toString(), info.targets().get(0).name(), "raid6:4+2",
        "OPTIMAL"), info.targets().get(0));
    ArrayStatus status = AdminCodec.decode(client.admin().arrayStatus(addr, target),
        ArrayStatus.class);
    TargetStatus t = status.targets().get(0);
    assertEquals(List.of(0, 1, 2, 3, 4, 5), t.drives().stream().map(DriveSlot::slot).toList());
    assertEquals(4096, t.cellSize());
    assertEquals(List.of(), AdminCodec.decode(client.admin().progress(addr, target),
        Progress.class).tasks());
  }

  @Test
  void writeStatReadRangesDelete() throws Exception {
    ChunkId c = new ChunkId(1, 0);
    byte[] data = bytes(1, 100_000);
    ChunkStat s = client.writeChunk(addr, target, c, 0, WriteMode.CREATE, WriteRequest.SYNC,
        ByteBuffer.wrap(data));
    assertEquals(100_000, s.length());
    assertEquals(1, s.version(), "a new chunk has version 1");
    assertEquals(s, client.stat(addr, target, c));
    assertArrayEquals(data, read(c, 0, -1));
    assertArrayEquals(Arrays.copyOfRange(data, 12_345, 60_000), read(c, 12_345, 60_000 - 12_345));
    assertArrayEquals(Arrays.copyOfRange(data, 99_000, 100_000), read(c, 99_000, 5_000),
        "a read past the end returns what is there");
    assertEquals(0, read(c, 100_000, 10).length);
    assertEquals(0, read(c, 500_000, -1).length, "a read past the end: one empty END frame");
    ByteBuffer into = ByteBuffer.allocate(777);
    assertEquals(777, client.readChunk(addr, target, c, 1000, into));
    assertArrayEquals(Arrays.copyOfRange(data, 1000, 1777), into.array());
    // the node stored exactly these bytes
    ChunkStore store = node.storageTarget().chunks();
    ByteBuffer direct = ByteBuffer.allocate(100_000);
    while (direct.hasRemaining()) {
      store.read(c, direct.position(), direct);
    }
    assertArrayEquals(data, direct.array());
    assertTrue(client.delete(addr, target, c));
    assertFalse(client.delete(addr, target, c), "delete is idempotent");
    assertEquals(Status.NOT_FOUND, status(() -> client.stat(addr, target, c)));
    assertEquals(Status.NOT_FOUND, status(() -> read(c, 0, -1)));
  }

  @Test
  void createReplaceOverwriteAppendSemantics() throws Exception {
    ChunkId c = new ChunkId(2, 7);
    byte[] a = bytes(2, 30_000);
    ChunkStat v1 = client.writeChunk(addr, target, c, 0, WriteMode.CREATE, 0, ByteBuffer.wrap(a));
    assertEquals(Status.ALREADY_EXISTS, status(() -> client.writeChunk(addr, target, c, 0,
        WriteMode.CREATE, 0, ByteBuffer.wrap(a))));
    assertArrayEquals(a, read(c, 0, -1), "a refused CREATE changes nothing");
    byte[] b = bytes(3, 20_000);
    ChunkStat v2 = client.writeChunk(addr, target, c, 0, WriteMode.REPLACE, 0, ByteBuffer.wrap(b));
    assertTrue(v2.version() > v1.version());
    assertEquals(20_000, v2.length());
    assertArrayEquals(b, read(c, 0, -1), "REPLACE truncates");
    byte[] patch = bytes(4, 8_000);
    ChunkStat v3 = client.writeChunk(addr, target, c, 15_000, WriteMode.OVERWRITE, 0,
        ByteBuffer.wrap(patch));
    assertEquals(23_000, v3.length(), "OVERWRITE past the end grows the chunk");
    byte[] expect = Arrays.copyOf(b, 23_000);
    System.arraycopy(patch, 0, expect, 15_000, 8_000);
    assertArrayEquals(expect, read(c, 0, -1));
    byte[] mid = bytes(5, 1_000);
    client.writeChunk(addr, target, c, 100, WriteMode.OVERWRITE, 0, ByteBuffer.wrap(mid));
    System.arraycopy(mid, 0, expect, 100, 1_000);
    assertArrayEquals(expect, read(c, 0, -1), "bytes after the overwritten range are kept");
    assertEquals(Status.INVALID_ARGUMENT, status(() -> client.writeChunk(addr, target, c, 23_001,
        WriteMode.OVERWRITE, 0, ByteBuffer.wrap(mid))));
    assertEquals(Status.NOT_FOUND, status(() -> client.writeChunk(addr, target,
        new ChunkId(2, 8), 0, WriteMode.OVERWRITE, 0, ByteBuffer.wrap(mid))));
    byte[] tail = bytes(6, 5_000);
    ChunkStat v5 = client.writeChunk(addr, target, c, -1, WriteMode.APPEND, 0,
        ByteBuffer.wrap(tail));
    assertEquals(28_000, v5.length());
    ChunkStat v6 = client.writeChunk(addr, target, c, 28_000, WriteMode.APPEND, 0,
        ByteBuffer.wrap(tail));
    assertEquals(33_000, v6.length());
    assertEquals(Status.CONFLICT, status(() -> client.writeChunk(addr, target, c, 28_000,
        WriteMode.APPEND, 0, ByteBuffer.wrap(tail))), "a retried append does not land twice");
    byte[] all = new byte[33_000];
    System.arraycopy(expect, 0, all, 0, 23_000);
    System.arraycopy(tail, 0, all, 23_000, 5_000);
    System.arraycopy(tail, 0, all, 28_000, 5_000);
    assertArrayEquals(all, read(c, 0, -1));
    ChunkStat fresh = client.writeChunk(addr, target, new ChunkId(2, 9), -1, WriteMode.APPEND, 0,
        ByteBuffer.wrap(tail));
    assertEquals(5_000, fresh.length(), "APPEND creates a missing chunk");
    // an empty write: a zero-length chunk
    assertEquals(0, client.writeChunk(addr, target, new ChunkId(2, 10), 0, WriteMode.CREATE, 0,
        ByteBuffer.allocate(0)).length());
    assertEquals(0, read(new ChunkId(2, 10), 0, -1).length);
    // a write over the maximum chunk size: INVALID_ARGUMENT, nothing visible
    assertEquals(Status.INVALID_ARGUMENT, status(() -> client.writeChunk(addr, target,
        new ChunkId(2, 11), 0, WriteMode.CREATE, 0, new Source(11, (64 << 20) + 1),
        (64 << 20) + 1)));
    assertEquals(Status.NOT_FOUND, status(() -> client.stat(addr, target, new ChunkId(2, 11))));
    client.ping(addr); // the connection is still fine after the early error
  }

  @Test
  void streamsOf48MiBWithKnownAndUnknownLengthAreByteExact() throws Exception {
    long n = 48L << 20;
    ChunkId c = new ChunkId(3, 0);
    ChunkStat s = client.writeChunk(addr, target, c, 0, WriteMode.CREATE, 0, new Source(77, n), n);
    assertEquals(n, s.length());
    Sink sink = new Sink(77);
    assertEquals(n, client.readChunk(addr, target, c, 0, -1, sink));
    assertEquals(n, sink.checked);
    ChunkId d = new ChunkId(3, 1);
    long m = (33L << 20) + 12_345;
    s = client.writeChunk(addr, target, d, 0, WriteMode.REPLACE, 0, new Source(78, m), -1);
    assertEquals(m, s.length());
    Sink part = new Sink(78);
    part.skip(5_000_000);
    assertEquals(m - 5_000_000, client.readChunk(addr, target, d, 5_000_000, -1, part));
    assertEquals(m, part.checked);
  }

  @Test
  void listPagesInObjectOrderOverallAndPerFile() throws Exception {
    TargetId t = target;
    List<ChunkId> written = new ArrayList<>();
    for (long f : new long[] {40, 41}) {
      for (int i = 0; i < 12; i++) {
        ChunkId c = new ChunkId(f, i * 3);
        client.writeChunk(addr, t, c, 0, WriteMode.REPLACE, 0, ByteBuffer.wrap(bytes(i, 10 + i)));
        written.add(c);
      }
    }
    List<ListEntry> file40 = new ArrayList<>();
    long cursor = 0;
    int pages = 0;
    do {
      ListResponse page = client.list(addr, t, 40, cursor, 5);
      assertTrue(page.entries().size() <= 5);
      file40.addAll(page.entries());
      cursor = page.nextCursor();
      pages++;
    } while (cursor != ListResponse.END);
    assertEquals(3, pages);
    assertEquals(written.subList(0, 12), file40.stream().map(ListEntry::chunk).toList());
    for (ListEntry e : file40) {
      assertEquals(10 + e.chunk().chunkIndex() / 3, e.length());
      assertTrue(e.version() > 0 && e.modifiedMillis() > 0, e.toString());
    }
    List<ChunkId> all = new ArrayList<>();
    cursor = 0;
    do {
      ListResponse page = client.list(addr, t, ListRequest.ALL_FILES, cursor, 7);
      page.entries().forEach(e -> all.add(e.chunk()));
      cursor = page.nextCursor();
    } while (cursor != ListResponse.END);
    List<ChunkId> mine = all.stream().filter(c -> c.fileId() == 40 || c.fileId() == 41).toList();
    assertEquals(written, mine);
    for (int i = 1; i < all.size(); i++) {
      assertTrue(Long.compareUnsigned(all.get(i - 1).objectId(), all.get(i).objectId()) < 0);
    }
    assertEquals(0, client.list(addr, t, 999, 0, 10).entries().size());
  }

  @Test
  void syncAndErrorsForUnknownTargetsAndIds() throws Exception {
    client.sync(addr, TargetId.ALL);
    client.sync(addr, target);
    TargetId nowhere = new TargetId(UUID.randomUUID());
    ChunkId c = new ChunkId(5, 0);
    assertEquals(Status.UNKNOWN_TARGET, status(() -> client.stat(addr, nowhere, c)));
    assertEquals(Status.UNKNOWN_TARGET, status(() -> client.sync(addr, nowhere)));
    assertEquals(Status.UNKNOWN_TARGET, status(() -> read(c, 0, -1, nowhere)));
    assertEquals(Status.UNKNOWN_TARGET, status(() -> client.writeChunk(addr, nowhere, c, 0,
        WriteMode.CREATE, 0, ByteBuffer.wrap(new byte[10]))));
    assertEquals(Status.UNKNOWN_TARGET, status(() -> client.list(addr, nowhere, -1, 0, 10)));
    assertEquals(Status.UNKNOWN_TARGET, status(() -> client.admin().arrayStatus(addr, nowhere)));
    // ids out of range cannot be built by the client: sent raw, they are INVALID_ARGUMENT
    try (RawClient raw = new RawClient(addr)) {
      ByteBuffer h = ByteBuffer.allocate(28);
      h.putLong(target.uuid().getMostSignificantBits())
          .putLong(target.uuid().getLeastSignificantBits()).putLong(1L << 40).putInt(0);
      raw.send(RawClient.frame(io.parityfs.node.protocol.Opcode.STAT, 0, 5, h.array()));
      var e = (io.parityfs.node.protocol.ErrorResponse) raw.next(5000);
      assertEquals(Status.INVALID_ARGUMENT, e.status());
      assertEquals(5, e.requestId());
      h.putInt(24, 1 << 24).putLong(16, 1);
      raw.send(RawClient.frame(io.parityfs.node.protocol.Opcode.STAT, 0, 6, h.array()));
      e = (io.parityfs.node.protocol.ErrorResponse) raw.next(5000);
      assertEquals(Status.INVALID_ARGUMENT, e.status());
      assertEquals(6, e.requestId());
    }
    client.ping(addr);
  }

  static byte[] read(ChunkId c, long offset, long length, TargetId t) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    client.readChunk(addr, t, c, offset, length, java.nio.channels.Channels.newChannel(out));
    return out.toByteArray();
  }

  @Test
  void requestsAreCountedInTheNodeMetrics() throws Exception {
    ChunkId c = new ChunkId(6, 0);
    client.writeChunk(addr, target, c, 0, WriteMode.REPLACE, 0, ByteBuffer.wrap(bytes(6, 5000)));
    read(c, 0, -1);
    assertEquals(Status.NOT_FOUND, status(() -> client.stat(addr, target, new ChunkId(6, 1))));
    var snapshot = node.node.metrics().registry().scrape();
    String text = snapshot.stream().map(Object::toString).reduce("", String::concat);
    assertTrue(snapshot.stream().anyMatch(m -> m.getMetadata().getName()
        .equals("parityfs_node_requests")), text);
    double writesOk = counter(snapshot, "write", "OK");
    double statsNotFound = counter(snapshot, "stat", "NOT_FOUND");
    assertTrue(writesOk >= 1, "writes OK " + writesOk);
    assertTrue(statsNotFound >= 1, "stat NOT_FOUND " + statsNotFound);
  }

  private static double counter(io.prometheus.metrics.model.snapshots.MetricSnapshots all,
      String op, String status) {
    for (var m : all) {
      if (m.getMetadata().getName().equals("parityfs_node_requests")) {
        for (var d : ((io.prometheus.metrics.model.snapshots.CounterSnapshot) m).getDataPoints()) {
          if (op.equals(d.getLabels().get("op")) && status.equals(d.getLabels().get("status"))) {
            return d.getValue();
          }
        }
      }
    }
    return 0;
  }

  @Test
  void theAddressRegisteredInZooKeeperServesTheProtocol() throws Exception {
    try (CuratorFramework zkClient = CuratorFrameworkFactory.newClient(zk.getConnectString(),
        new RetryOneTime(100))) {
      zkClient.start();
      zkClient.blockUntilConnected();
      String nodeId = node.node.nodeId();
      JsonNode online = JSON.readTree(zkClient.getData().forPath(
          ZkPaths.online(nodeId)));
      InetSocketAddress published = new InetSocketAddress(online.get("host").asText(),
          online.get("port").asInt());
      assertEquals(addr.getPort(), published.getPort());
      assertEquals(nodeId, JSON.readTree(client.admin().nodeInfo(published)).get("nodeId").asText());
      String targetId = online.get("targets").get(0).get("targetId").asText();
      ChunkId c = new ChunkId(7, 0);
      byte[] data = bytes(7, 70_000);
      client.writeChunk(published, TargetId.of(targetId), c, 0, WriteMode.CREATE, 0,
          ByteBuffer.wrap(data));
      ByteBuffer back = ByteBuffer.allocate(70_000);
      client.readChunk(published, TargetId.of(targetId), c, 0, back);
      assertArrayEquals(data, back.array());
    }
  }

  /** Deterministic bytes: position i of stream seed is a function of (seed, i). */
  static byte at(long seed, long i) {
    long x = (i >>> 3) * 0x9E3779B97F4A7C15L + seed * 0xBF58476D1CE4E5B9L;
    x ^= x >>> 31;
    x *= 0x94D049BB133111EBL;
    return (byte) (x >>> ((i & 7) * 8));
  }

  /** n generated bytes. */
  static final class Source implements ReadableByteChannel {
    private final long seed;
    private final long n;
    private long pos;

    Source(long seed, long n) {
      this.seed = seed;
      this.n = n;
    }

    @Override
    public int read(ByteBuffer dst) {
      if (pos == n) {
        return -1;
      }
      int k = (int) Math.min(dst.remaining(), n - pos);
      for (int i = 0; i < k; i++) {
        dst.put(at(seed, pos++));
      }
      return k;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }

  /** Checks every byte against the generated stream. */
  static final class Sink implements WritableByteChannel {
    private final long seed;
    long checked;

    Sink(long seed) {
      this.seed = seed;
    }

    void skip(long n) {
      checked += n;
    }

    @Override
    public int write(ByteBuffer src) {
      int k = src.remaining();
      for (int i = 0; i < k; i++) {
        byte b = src.get();
        if (b != at(seed, checked)) {
          throw new AssertionError("byte " + checked + " differs");
        }
        checked++;
      }
      return k;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
