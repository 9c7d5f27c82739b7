package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.node.chunk.ChunkWriter;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.net.NodeServerRoundTripTest.Sink;
import io.parityfs.node.net.NodeServerRoundTripTest.Source;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.ReadRequest;
import io.parityfs.node.protocol.StatRequest;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that push harder than the node can take, or do not read: the node's memory for them
 * stays bounded (checked through the server's counters and each connection's outbound buffer)
 * and other clients are served meanwhile.
 */
class NodeServerBackpressureTest {
  @TempDir static Path dir;
  static TestingServer zk;
  static TestNode node;
  static NodeClient client;
  static NodeClient other;
  static InetSocketAddress addr;
  static TargetId target;
  static final ChunkId SMALL = new ChunkId(1, 0);
  static final ChunkId BIG = new ChunkId(1, 1);
  static final long BIG_SIZE = 8L << 20;
  static byte[] small = new byte[50_000];
  static final long PER_CONNECTION = NodeServerConfig.DEFAULT.maxBytesPerConnection();
  static final long HIGH_WATER = NodeServerConfig.DEFAULT.writeBufferHighWater();

  @BeforeAll
  static void start() throws Exception {
    zk = new TestingServer(true);
    node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K", "64M");
    client = NodeClient.create(NodeClientConfig.DEFAULT);
    other = NodeClient.create(NodeClientConfig.DEFAULT);
    addr = node.address;
    target = node.target;
    new Random(1).nextBytes(small);
    client.writeChunk(addr, target, SMALL, 0, WriteMode.CREATE, 0, ByteBuffer.wrap(small));
    client.writeChunk(addr, target, BIG, 0, WriteMode.CREATE, 0, new Source(5, BIG_SIZE),
        BIG_SIZE);
  }

  @AfterAll
  static void stop() throws IOException {
    client.close();
    other.close();
    node.close();
    zk.close();
  }

  /** Another client is served in full while the misbehaving one is held back. */
  static void othersAreServed() throws IOException {
    other.ping(addr);
    assertEquals(small.length, other.stat(addr, target, SMALL).length());
    ByteBuffer b = ByteBuffer.allocate(small.length);
    other.readChunk(addr, target, SMALL, 0, b);
    assertArrayEquals(small, b.array());
  }

  @Test
  void aWriteFasterThanTheArrayIsHeldBackAtTheConnectionLimit() throws Exception {
    ChunkId c = new ChunkId(2, 0);
    long n = 48L << 20;
    // Hold the chunk's lock in the array: the node cannot hand the stream's bytes on.
    ChunkWriter blocker = node.storageTarget().chunks().openWrite(c, 0, WriteMode.REPLACE);
    CompletableFuture<ChunkStat> write = CompletableFuture.supplyAsync(() -> {
      try {
        return client.writeChunk(addr, target, c, 0, WriteMode.REPLACE, 0, new Source(9, n), n);
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
    long max = 0;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    boolean paused = false;
    while (System.nanoTime() < end) {
      max = Math.max(max, node.server.bytesInHand());
      paused |= node.server.connections().stream().anyMatch(ConnectionHandler::paused);
      Thread.sleep(2);
    }
    assertTrue(paused, "the connection stopped being read");
    assertTrue(max >= PER_CONNECTION / 2, "the node took bytes up to its limit: " + max);
    // the limit, plus what one read of the socket may bring (one decoded burst, < 2 MiB)
    assertTrue(max <= PER_CONNECTION + (2 << 20), "bytes in hand " + max);
    othersAreServed();
    blocker.abort();
    ChunkStat s = write.get(60, TimeUnit.SECONDS);
    assertEquals(n, s.length());
    Sink sink = new Sink(9);
    client.readChunk(addr, target, c, 0, -1, sink);
    assertEquals(n, sink.checked);
  }

  @Test
  void aClientThatNeverReadsItsAnswersIsNotReadEither() throws Exception {
    try (RawClient raw = new RawClient(addr)) {
      raw.socket.setReceiveBufferSize(64 << 10);
      byte[] reads = new byte[0];
      java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
      for (int i = 0; i < 32; i++) {
        batch.write(RawClient.encode(new ReadRequest(1000 + i, target, BIG, 0, -1)));
      }
      reads = batch.toByteArray();
      byte[] flood = reads;
      Thread sender = new Thread(() -> {
        try {
          raw.send(flood);
          for (long id = 2; ; id++) {
            raw.send(RawClient.encode(new StatRequest(id, target, SMALL))); // blocks once the
            // node stops reading
          }
        } catch (IOException e) {
          // the socket was closed by the test
        }
      }, "flood");
      sender.setDaemon(true);
      sender.start();
      // the node's steady state, observed: not reading the connection, and every READ stream
      // parked for the socket (none producing a frame, the channel not writable), so the
      // outbound buffer can only grow by the answers already under way
      Eventually.until("the connection paused with its reads stalled", () -> node.server
          .connections().stream().anyMatch(h -> h.paused() && h.readsStalled()));
      long outbound = node.server.connections().stream()
          .mapToLong(ConnectionHandler::outboundBytes).max().orElse(0);
      // high water, plus the READ frames read ahead, plus small answers: never 32 x 8 MiB
      long bound = HIGH_WATER + ConnectionHandler.MAX_READS_PRODUCING * (1L << 20) + (1 << 20);
      assertTrue(outbound <= bound, "outbound " + outbound + " > " + bound);
      // auto-read goes off at the limit, but the requests of the socket read that reached it
      // are decoded and admitted: at most one read's worth more (Netty's default receive
      // allocator reads at most 64 KiB at a time, here all STAT frames). The flood is endless,
      // so a node that kept reading would hold without bound.
      int statFrame = RawClient.encode(new StatRequest(1, target, SMALL)).length;
      int inHand = node.server.requestsInHand();
      assertTrue(inHand <= NodeServerConfig.DEFAULT.maxRequestsPerConnection()
          + (64 << 10) / statFrame + 1, "requests in hand " + inHand);
      othersAreServed();
      Sink sink = new Sink(5);
      other.readChunk(addr, target, BIG, 0, -1, sink);
      assertEquals(BIG_SIZE, sink.checked);
    }
    Eventually.until("the stalled requests ended with the connection",
        () -> node.server.requestsInHand() == 0 && node.server.connectionCount() <= 2);
  }
}
