package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.netty.buffer.Unpooled;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.AckResponse;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.DataFrame;
import io.parityfs.node.protocol.PingRequest;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.protocol.WriteRequest;
import io.parityfs.node.protocol.WriteResponse;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One stream writes a chunk at a time, and a WRITE of a chunk that another stream holds waits
 * its turn instead of failing: the case is a client whose WRITE timed out retrying it while the
 * node still holds the first attempt (the repeat run's PartitionTest failure: "CONFLICT: chunk
 * 262:0 is being written by another stream" under load). Each stream's bytes are keyed by its
 * seed, so the test tells which one the chunk holds. The wait's bound (CONFLICT after {@code
 * claimWait}) is tested by NodeServerHostileTest.
 */
class ChunkClaimTest {
  @TempDir static Path dir;
  static TestingServer zk;
  static TestNode node;
  static NodeClient client;
  static InetSocketAddress addr;
  static TargetId target;

  @BeforeAll
  static void start() throws Exception {
    zk = new TestingServer(true);
    node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K", "16M");
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

  @AfterEach
  void nothingLeftInHand() {
    Eventually.until("no writer open, nothing in hand", () -> node.server.openWriters() == 0
        && node.server.bytesInHand() == 0 && node.server.requestsInHand() == 0);
  }

  @Test
  void aRetryWaitsForTheAttemptItReplacesInsteadOfFailing() throws Exception {
    ChunkId d = new ChunkId(201, 0);
    try (RawClient retry = new RawClient(addr)) {
      RawClient first = new RawClient(addr);
      first.send(write(1, d));
      first.send(data(1, false, 1000, 1));
      pingThrough(first); // the first attempt holds the chunk, unfinished
      retry.send(write(7, d));
      retry.send(data(7, true, 500, 7));
      pingThrough(retry); // the retry's frames are in: it waits behind the first attempt
      first.close(); // the first attempt's client gave up: its stream is aborted
      WriteResponse w = assertInstanceOf(WriteResponse.class, retry.next(10_000),
          "the retry is served once the chunk is free (before: CONFLICT at once)");
      assertEquals(7, w.requestId());
      assertEquals(500, w.stat().length());
    }
    assertArrayEquals(bytes(500, 7), read(d, 500), "the chunk holds the retry's bytes");
  }

  @Test
  void writesOfOneChunkAreServedInTurnAndTheLastOneWins() throws Exception {
    ChunkId c = new ChunkId(202, 0);
    try (RawClient raw = new RawClient(addr)) {
      raw.send(write(1, c));
      raw.send(data(1, false, 1000, 1));
      raw.send(write(2, c));
      raw.send(data(2, true, 300, 2)); // waits for stream 1
      raw.send(data(1, true, 24, 11));
      WriteResponse one = assertInstanceOf(WriteResponse.class, raw.next(10_000));
      assertEquals(1, one.requestId(), "the holder is answered first");
      assertEquals(1024, one.stat().length());
      WriteResponse two = assertInstanceOf(WriteResponse.class, raw.next(10_000));
      assertEquals(2, two.requestId());
      assertEquals(300, two.stat().length());
    }
    assertArrayEquals(bytes(300, 2), read(c, 300));
  }

  @Test
  void aWaitingStreamThatGoesAwayLeavesTheChunkFree() throws Exception {
    ChunkId c = new ChunkId(203, 0);
    try (RawClient holder = new RawClient(addr)) {
      try (RawClient waiter = new RawClient(addr)) {
        holder.send(write(1, c));
        holder.send(data(1, false, 100, 1));
        pingThrough(holder);
        waiter.send(write(1, c));
        waiter.send(data(1, true, 50, 5));
        pingThrough(waiter);
      } // the waiter's connection closes while it waits
      holder.send(data(1, true, 100, 3));
      WriteResponse w = assertInstanceOf(WriteResponse.class, holder.next(10_000));
      assertEquals(200, w.stat().length());
    }
    // the claim is neither held nor queued any more: a new writer gets the chunk at once
    client.writeChunk(addr, target, c, 0, WriteMode.REPLACE, WriteRequest.SYNC,
        ByteBuffer.wrap(bytes(40, 9)));
    assertArrayEquals(bytes(40, 9), read(c, 40));
  }

  /** A PING answered after every frame sent before it has been read by the node. */
  private static void pingThrough(RawClient raw) throws IOException {
    raw.send(new PingRequest(99));
    assertEquals(99, assertInstanceOf(AckResponse.class, raw.next(10_000)).requestId());
  }

  private static WriteRequest write(long id, ChunkId c) {
    return new WriteRequest(id, target, c, WriteMode.REPLACE, 0, 0, -1);
  }

  private static DataFrame data(long id, boolean end, int n, long seed) {
    return new DataFrame(id, false, end, Unpooled.wrappedBuffer(bytes(n, seed)));
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static byte[] read(ChunkId c, int n) throws IOException {
    ByteBuffer back = ByteBuffer.allocate(n);
    client.readChunk(addr, target, c, 0, back);
    return back.array();
  }
}
