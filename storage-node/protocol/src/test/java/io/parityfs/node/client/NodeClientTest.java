package io.parityfs.node.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.ListRequest;
import io.parityfs.node.protocol.ListResponse;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client against {@link FakeNode} over loopback sockets. */
class NodeClientTest {
  private static final TargetId T = TargetId.of("00112233-4455-6677-8899-aabbccddeeff");
  private static final ChunkId C = new ChunkId(7, 1);

  private FakeNode node;
  private NodeClient client;

  @BeforeEach
  void start() throws InterruptedException {
    node = new FakeNode();
    client = NodeClient.create(NodeClientConfig.builder()
        .requestTimeout(Duration.ofSeconds(5)).initialBackoff(Duration.ofMillis(10)).build());
  }

  @AfterEach
  void stop() {
    client.close();
    node.close();
  }

  private InetSocketAddress addr() {
    return node.address();
  }

  @Test
  void writeStatReadDeleteRoundTrip() throws IOException {
    byte[] data = "hello, parity".getBytes();
    ChunkStat s = client.writeChunk(addr(), T, C, 0, WriteMode.CREATE, 0, ByteBuffer.wrap(data));
    assertEquals(data.length, s.length());
    assertEquals(s, client.stat(addr(), T, C));
    ByteBuffer dst = ByteBuffer.allocate(5);
    assertEquals(5, client.readChunk(addr(), T, C, 7, dst));
    assertEquals("parit", new String(dst.array()));
    client.writeChunk(addr(), T, C, -1, WriteMode.APPEND, 0, ByteBuffer.wrap("y".getBytes()));
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    assertEquals(14, client.readChunk(addr(), T, C, 0, -1, Channels.newChannel(all)));
    assertEquals("hello, parityy", all.toString());
    assertTrue(client.delete(addr(), T, C));
    assertFalse(client.delete(addr(), T, C));
    client.sync(addr(), TargetId.ALL);
    client.ping(addr());
  }

  @Test
  void errorStatusesSurfaceAsNodeExceptions() throws IOException {
    NodeException e = assertThrows(NodeException.class, () -> client.stat(addr(), T, C));
    assertEquals(Status.NOT_FOUND, e.status());
    assertEquals(1, node.requests.get(), "NOT_FOUND is not retried");
    e = assertThrows(NodeException.class,
        () -> client.readChunk(addr(), T, C, 0, ByteBuffer.allocate(4)));
    assertEquals(Status.NOT_FOUND, e.status());
    client.writeChunk(addr(), T, C, 0, WriteMode.CREATE, 0, ByteBuffer.allocate(3));
    e = assertThrows(NodeException.class,
        () -> client.writeChunk(addr(), T, C, 0, WriteMode.CREATE, 0, ByteBuffer.allocate(3)));
    assertEquals(Status.ALREADY_EXISTS, e.status());
    e = assertThrows(NodeException.class, () -> client.admin().failDrive(addr(), T, 99));
    assertEquals(Status.ILLEGAL_STATE, e.status());
    assertEquals("{\"nodeId\":\"fake\"}", client.admin().nodeInfo(addr()));
    assertThrows(IllegalArgumentException.class, () -> client.stat(addr(), TargetId.ALL, C));
  }

  @Test
  void largeStreamedWriteAndReadAreByteExact() throws Exception {
    int size = 32 << 20;
    byte[] data = new byte[size];
    new Random(1).nextBytes(data);
    // Unknown length: the client streams until end of stream.
    ReadableByteChannel src = Channels.newChannel(new java.io.ByteArrayInputStream(data));
    ChunkStat s = client.writeChunk(addr(), T, C, 0, WriteMode.REPLACE, 0, src, -1);
    assertEquals(size, s.length());
    assertArrayEquals(data, node.chunks.get(C));

    MessageDigest want = MessageDigest.getInstance("SHA-256");
    want.update(data);
    MessageDigest got = MessageDigest.getInstance("SHA-256");
    long n = client.readChunk(addr(), T, C, 0, -1, new DigestChannel(got, 0));
    assertEquals(size, n);
    assertArrayEquals(want.digest(), got.digest());

    ByteBuffer range = ByteBuffer.allocateDirect(3 << 20);
    assertEquals(3 << 20, client.readChunk(addr(), T, C, 12345, range));
    range.flip();
    for (int i = 0; i < range.limit(); i += 4099) {
      assertEquals(data[12345 + i], range.get(i));
    }
  }

  @Test
  void directBuffersAreSentAsTheyAreAndTheNodeGetsTheirBytes() throws Exception {
    byte[] data = new byte[(5 << 20) + 12345];
    new Random(3).nextBytes(data);
    ByteBuffer a = ByteBuffer.allocateDirect(3 << 20).put(data, 0, 3 << 20).flip();
    ByteBuffer b = ByteBuffer.allocateDirect(data.length).put(data, 3 << 20,
        data.length - (3 << 20)).flip();
    List<ByteBuf> lent = new CopyOnWriteArrayList<>();
    NodeClient.LEND_HOOK = (ch, f) -> lent.add(f);
    try {
      ChunkStat s = client.writeChunk(addr(), T, C, 0, WriteMode.REPLACE, 0, a, b);
      assertEquals(data.length, s.length());
    } finally {
      NodeClient.LEND_HOOK = null;
    }
    assertArrayEquals(data, node.chunks.get(C));
    long sum = 0;
    boolean boundary = false;
    for (ByteBuf f : lent) {
      assertEquals(0, f.refCnt(), "a frame of the caller's memory is still held");
      assertTrue(f.isDirect() && f.capacity() <= 1 << 20);
      sum += f.capacity();
      boundary |= sum == 3 << 20;
    }
    assertEquals(data.length, sum, "every byte went out as a slice of the caller's buffers");
    assertTrue(boundary, "frames end where the first buffer ends");
    assertEquals(0, a.position(), "the caller's buffers are left alone");
  }

  @Test
  void aDirectWriteReturnsOnlyOnceTheTransportHasLetGoOfTheCallersMemory() throws Exception {
    byte[] data = new byte[4 << 20];
    new Random(4).nextBytes(data);
    ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).flip();
    CountDownLatch loopHeld = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<ByteBuf> lent = new CopyOnWriteArrayList<>();
    NodeClient.LEND_HOOK = (ch, f) -> {
      if (lent.isEmpty()) { // hold the connection's event loop: nothing it queued goes out
        ch.eventLoop().execute(() -> {
          loopHeld.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      lent.add(f);
    };
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    List<Integer> heldAtReturn = new CopyOnWriteArrayList<>();
    Thread writer = new Thread(() -> {
      try {
        client.writeChunk(addr(), T, C, 0, WriteMode.REPLACE, 0, direct);
      } catch (Throwable t) {
        thrown.set(t);
      } finally {
        lent.forEach(f -> heldAtReturn.add(f.refCnt()));
      }
    });
    try {
      writer.start();
      assertTrue(loopHeld.await(10, TimeUnit.SECONDS));
      for (int i = 0; i < 1000 && lent.size() < 4; i++) {
        Thread.sleep(5);
      }
      assertEquals(4, lent.size(), "every frame queued while the event loop is held");
      writer.interrupt(); // the write gives up while its frames are queued
      writer.join(300);
      assertTrue(writer.isAlive(), "returned while the transport still held the caller's memory");
      release.countDown();
      writer.join(10_000);
      assertFalse(writer.isAlive());
    } finally {
      release.countDown();
      NodeClient.LEND_HOOK = null;
    }
    assertInstanceOf(java.io.InterruptedIOException.class, thrown.get());
    assertEquals(List.of(0, 0, 0, 0), heldAtReturn);
  }

  @Test
  void aSlowReaderHoldsTheNodeBackInsteadOfBuffering() throws Exception {
    byte[] data = new byte[16 << 20];
    new Random(2).nextBytes(data);
    node.chunks.put(C, data);
    MessageDigest got = MessageDigest.getInstance("SHA-256");
    long n = client.readChunk(addr(), T, C, 0, -1, new DigestChannel(got, 20));
    assertEquals(data.length, n);
    assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(data), got.digest());
    assertTrue(node.sawUnwritable.get() > 0, "the node had to wait for the client");
  }

  @Test
  void requestsArePipelinedOnOneConnection() throws Exception {
    node.chunks.put(C, new byte[10]);
    node.statDelayMillis = 200;
    client.ping(addr());
    long t0 = System.nanoTime();
    List<CompletableFuture<ChunkStat>> all = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      all.add(client.statAsync(addr(), T, C));
    }
    for (CompletableFuture<ChunkStat> f : all) {
      assertEquals(10, f.get().length());
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms < 2000, "20 pipelined 200 ms requests took " + ms + " ms");
    assertEquals(20, node.maxInFlightOnOneConnection.get());
    assertEquals(1, client.connectionsOpened(addr()));
  }

  @Test
  void aNodeThatNeverAnswersTimesOut() {
    client.close();
    client = NodeClient.create(NodeClientConfig.builder()
        .requestTimeout(Duration.ofMillis(300)).maxAttempts(2)
        .initialBackoff(Duration.ofMillis(10)).build());
    node.silent = true;
    long t0 = System.nanoTime();
    NodeException e = assertThrows(NodeException.class, () -> client.stat(addr(), T, C));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(Status.TIMEOUT, e.status());
    assertTrue(ms >= 550 && ms < 3000, "two tries of 300 ms took " + ms + " ms");
    assertEquals(2, client.connectionsOpened(addr()), "a timeout closes its connection");
    e = assertThrows(NodeException.class, () -> client.writeChunk(addr(), T, C, 0,
        WriteMode.CREATE, 0, ByteBuffer.allocate(100)));
    assertEquals(Status.TIMEOUT, e.status());
    e = assertThrows(NodeException.class,
        () -> client.readChunk(addr(), T, C, 0, ByteBuffer.allocate(10)));
    assertEquals(Status.TIMEOUT, e.status());
  }

  @Test
  void idempotentRequestsAreRetriedOnANewConnection() throws IOException {
    node.chunks.put(C, new byte[3]);
    node.dropConnections.set(1);
    assertEquals(3, client.stat(addr(), T, C).length());
    assertEquals(2, node.accepted.get());
    node.dropConnections.set(1);
    ByteBuffer dst = ByteBuffer.allocate(3);
    client.close();
    client = NodeClient.create(NodeClientConfig.builder().initialBackoff(Duration.ofMillis(5))
        .build());
    assertEquals(3, client.readChunk(addr(), T, C, 0, dst));
  }

  /**
   * D16: a READ cut mid-way (the connection drops after its first frame) while a write replaces
   * the chunk must not be resumed at offset + done on the new version: the ByteBuffer read
   * restarts from its offset (all new bytes), the channel read fails; never a mix of versions.
   */
  @Test
  void aCutReadIsNeverResumedOnAnotherVersion() throws Exception {
    int size = 300 << 10;
    byte[] v1 = new byte[size];
    byte[] v2 = new byte[size];
    java.util.Arrays.fill(v1, (byte) 0x11);
    java.util.Arrays.fill(v2, (byte) 0x22);
    client.close();
    client = NodeClient.create(NodeClientConfig.builder().initialBackoff(Duration.ofMillis(5))
        .build());
    node.chunks.put(C, v1);
    node.onCut = () -> node.chunks.put(C, v2);
    node.cutReadsAfterFirstFrame.set(1);
    ByteBuffer dst = ByteBuffer.allocate(size + 10);
    dst.position(10);
    assertEquals(size, client.readChunk(addr(), T, C, 0, dst));
    assertEquals(size + 10, dst.position());
    assertArrayEquals(v2, java.util.Arrays.copyOfRange(dst.array(), 10, size + 10),
        "restarted from the offset: one version only");

    node.chunks.put(C, v1);
    node.onCut = () -> node.chunks.put(C, v2);
    node.cutReadsAfterFirstFrame.set(1);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    NodeException e = assertThrows(NodeException.class,
        () -> client.readChunk(addr(), T, C, 0, -1, Channels.newChannel(out)));
    assertTrue(e.getMessage().contains("not resumed"), e.getMessage());
    for (byte b : out.toByteArray()) {
      assertEquals(0x11, b, "only bytes of the first version were delivered");
    }
  }

  @Test
  void busyIsRetriedButNotForANonIdempotentWrite() throws IOException {
    node.chunks.put(C, new byte[3]);
    node.busyAnswers.set(2);
    assertEquals(3, client.stat(addr(), T, C).length());
    assertEquals(3, node.requests.get());
    node.busyAnswers.set(1);
    NodeException e = assertThrows(NodeException.class, () -> client.writeChunk(addr(), T,
        new ChunkId(8, 0), 0, WriteMode.CREATE, 0, ByteBuffer.allocate(10)));
    assertEquals(Status.BUSY, e.status());
    assertTrue(e.retryable());
    node.busyAnswers.set(1);
    assertEquals(10, client.writeChunk(addr(), T, new ChunkId(8, 0), 0, WriteMode.REPLACE, 0,
        ByteBuffer.allocate(10)).length(), "REPLACE from buffers is retried");
  }

  @Test
  void theConnectionIsReused() throws IOException {
    for (int i = 0; i < 50; i++) {
      client.ping(addr());
    }
    assertEquals(1, node.accepted.get());
    assertEquals(1, client.connectionsOpened(addr()));
  }

  @Test
  void listPagesThroughAllChunks() throws IOException {
    for (int i = 0; i < 25; i++) {
      node.chunks.put(new ChunkId(5, i), new byte[i]);
    }
    node.chunks.put(new ChunkId(6, 0), new byte[1]);
    List<ChunkId> seen = new ArrayList<>();
    long cursor = 0;
    do {
      ListResponse page = client.list(addr(), T, 5, cursor, 10);
      page.entries().forEach(e -> seen.add(e.chunk()));
      cursor = page.nextCursor();
    } while (cursor != ListResponse.END);
    assertEquals(25, seen.size());
    assertEquals(26, client.list(addr(), T, ListRequest.ALL_FILES, 0, 100).entries().size());
  }

  @Test
  void aRefusedConnectionIsUnavailableAfterTheRetries() throws IOException {
    InetSocketAddress nowhere;
    try (ServerSocket s = new ServerSocket(0)) {
      nowhere = new InetSocketAddress("127.0.0.1", s.getLocalPort());
    }
    NodeException e = assertThrows(NodeException.class, () -> client.ping(nowhere));
    assertEquals(Status.UNAVAILABLE, e.status());
    assertEquals(3, client.connectionsOpened(nowhere));
  }

  @Test
  void closeFailsWhatIsInFlightAndRefusesNewRequests() throws Exception {
    node.silent = true;
    CompletableFuture<Void> pending = client.pingAsync(addr());
    node.ignored.get(5, TimeUnit.SECONDS); // the ping reached the node: it is in flight
    assertFalse(pending.isDone(), "a silent node answers nothing");
    client.close();
    Exception e = assertThrows(Exception.class, pending::get);
    assertEquals(Status.UNAVAILABLE, ((NodeException) e.getCause()).status());
    assertThrows(IllegalStateException.class, () -> client.ping(addr()));
  }

  /** Digests what is written to it, optionally sleeping per write (a slow consumer). */
  private static final class DigestChannel implements WritableByteChannel {
    private final MessageDigest digest;
    private final long sleepMillis;

    DigestChannel(MessageDigest digest, long sleepMillis) {
      this.digest = digest;
      this.sleepMillis = sleepMillis;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int n = src.remaining();
      digest.update(src);
      if (sleepMillis > 0) {
        try {
          Thread.sleep(sleepMillis);
        } catch (InterruptedException e) {
          throw new java.io.InterruptedIOException();
        }
      }
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
