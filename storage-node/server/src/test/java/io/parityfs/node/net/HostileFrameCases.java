package io.parityfs.node.net;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.parityfs.node.tls.CertificateAuthority;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.node.tls.TlsRole;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.AckResponse;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.DataFrame;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.FrameError;
import io.parityfs.node.protocol.FrameFormat;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.PingRequest;
import io.parityfs.node.protocol.ReadRequest;
import io.parityfs.node.protocol.StatRequest;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.protocol.WriteRequest;
import io.parityfs.node.protocol.WriteResponse;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed and misbehaving input over raw sockets: each case gets its documented answer, stored
 * data is unchanged, nothing leaks, and the node keeps serving a well-behaved client. Run by
 * {@link NodeServerHostileTest} over plaintext and by {@link NodeServerHostileTlsTest} over
 * mutual TLS, each starting its node with {@link #startWith}.
 */
abstract class HostileFrameCases {
  @TempDir static Path dir;
  static TestingServer zk;
  static TestNode node;
  static NodeClient client;
  static InetSocketAddress addr;
  static TargetId target;
  static final ChunkId KEPT = new ChunkId(100, 0);
  static byte[] kept;

  /** The client certificate's files with TLS, else null (plaintext). */
  static TlsConfig tls;

  /** Starts the node and the well-behaved client, with TLS when {@code pki} is not null. */
  static void startWith(Path pki) throws Exception {
    zk = new TestingServer(true);
    TlsConfig server = TlsConfig.OFF;
    tls = null;
    if (pki != null) {
      CertificateAuthority ca = CertificateAuthority.init(pki, "hostile");
      ca.issue(TlsRole.NODE, "node", Duration.ofDays(1), List.of("127.0.0.1"), pki);
      ca.issue(TlsRole.CLIENT, "client", Duration.ofDays(1), List.of(), pki);
      server = TlsConfig.inDirectory(pki, "node");
      tls = TlsConfig.inDirectory(pki, "client");
    }
    node = new TestNode(dir.resolve("node"), zk.getConnectString(), NodeServerConfig.builder()
        .idleTimeout(Duration.ofMillis(800)).claimWait(Duration.ofMillis(200)).tls(server)
        .build(), "4K", "16M");
    client = NodeClient.create(NodeClientConfig.builder()
        .tls(tls == null ? TlsConfig.OFF : tls).build());
    addr = node.address;
    target = node.target;
    kept = new byte[300_000];
    new Random(100).nextBytes(kept);
    client.writeChunk(addr, target, KEPT, 0, WriteMode.CREATE, 0, ByteBuffer.wrap(kept));
  }

  @AfterAll
  static void stop() throws IOException {
    client.close();
    node.close();
    zk.close();
  }

  /** After every case: the stored chunk is intact, nothing is in hand, another client is served. */
  @AfterEach
  void nodeStillServesAndDataIsIntact() throws Exception {
    Eventually.until("no writer open, nothing in hand", () -> node.server.openWriters() == 0
        && node.server.bytesInHand() == 0 && node.server.requestsInHand() == 0);
    client.ping(addr);
    ByteBuffer back = ByteBuffer.allocate(kept.length);
    client.readChunk(addr, target, KEPT, 0, back);
    assertArrayEquals(kept, back.array());
  }

  /** A raw connection to the node: a plain socket, or a TLS one with the client certificate. */
  static RawClient raw() throws IOException {
    if (tls == null) {
      return new RawClient(addr);
    }
    SSLContext ctx = ((JdkSslContext) SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
        .protocols("TLSv1.3").trustManager(tls.ca().toFile())
        .keyManager(tls.cert().toFile(), tls.key().toFile()).build()).context();
    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(addr.getAddress(),
        addr.getPort());
    s.startHandshake();
    return new RawClient(s);
  }

  private static void assertFatal(RawClient raw, Status status) throws IOException {
    ErrorResponse e = assertInstanceOf(ErrorResponse.class, raw.next(5000));
    assertEquals(status, e.status());
    assertEquals(0, e.requestId(), "connection-level errors carry request id 0");
    assertTrue(raw.closedByNode(5000), "the node closes the connection");
  }

  private static ErrorResponse error(RawClient raw, long id, Status status) throws IOException {
    ErrorResponse e = assertInstanceOf(ErrorResponse.class, raw.next(5000));
    assertEquals(status, e.status(), e.message());
    assertEquals(id, e.requestId());
    return e;
  }

  private static void pingOk(RawClient raw, long id) throws IOException {
    raw.send(new PingRequest(id));
    AckResponse a = assertInstanceOf(AckResponse.class, raw.next(5000));
    assertEquals(id, a.requestId());
  }

  /**
   * Seeded fuzzing at the node (-Dfuzz.seed replays a run): valid frames of a scratch chunk with
   * one to three bytes changed, ten to a connection, 40 connections. Every changed frame fails
   * its header or payload CRC, or names something else harmlessly: the node answers or closes
   * the connection, and afterwards holds nothing and still serves ({@link
   * #nodeStillServesAndDataIsIntact}).
   */
  @Test
  void mutatedFramesLeaveTheNodeServingAndItsDataIntact() throws Exception {
    Random rnd = new Random(Long.getLong("fuzz.seed", 20261204L));
    ChunkId scratch = new ChunkId(105, 0);
    List<byte[]> frames = List.of(RawClient.encode(new PingRequest(1)),
        RawClient.encode(new StatRequest(2, target, scratch)),
        RawClient.encode(write(3, scratch, WriteMode.CREATE, -1)),
        RawClient.encode(data(3, false, 3000, 7)), RawClient.encode(data(3, true, 2000, 8)));
    int condemned = 0;
    for (int round = 0; round < 40; round++) {
      try (RawClient raw = raw()) {
        for (int i = 0; i < 10; i++) {
          byte[] f = frames.get(rnd.nextInt(frames.size())).clone();
          for (int k = 1 + rnd.nextInt(3); k > 0; k--) {
            f[rnd.nextInt(f.length)] ^= (byte) (1 + rnd.nextInt(255));
          }
          try {
            raw.send(f);
          } catch (IOException closed) {
            break;
          }
        }
        // whatever comes back is a decodable answer, until the node closes or goes quiet
        try {
          while (raw.next(300) != null) {
            // answered
          }
          condemned++;
        } catch (java.net.SocketTimeoutException quiet) {
          // still open: closed by us
        } catch (IOException reset) {
          condemned++;
        }
      }
    }
    assertTrue(condemned > 0, "no connection was condemned: the mutations reached nothing");
  }

  private static WriteRequest write(long id, ChunkId c, WriteMode mode, long total) {
    return new WriteRequest(id, target, c, mode, 0, 0, total);
  }

  private static DataFrame data(long id, boolean end, int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return new DataFrame(id, false, end, Unpooled.wrappedBuffer(b));
  }

  @Test
  void garbageBytesAreBadFrameAndClose() throws Exception {
    try (RawClient raw = raw()) {
      byte[] junk = new byte[200];
      new Random(1).nextBytes(junk);
      junk[0] = 'X';
      raw.send(junk);
      assertFatal(raw, Status.BAD_FRAME);
    }
  }

  @Test
  void wrongMagicAndWrongVersion() throws Exception {
    try (RawClient raw = raw()) {
      raw.send(new byte[] {'P', 'F', 'S', 'X'}); // judged on the first bytes alone
      assertFatal(raw, Status.BAD_FRAME);
    }
    try (RawClient raw = raw()) {
      raw.send(RawClient.frame(FrameFormat.MAGIC, 2, Opcode.PING.code(), 0, 1, new byte[0],
          new byte[0]));
      assertFatal(raw, Status.UNSUPPORTED_VERSION);
    }
  }

  @Test
  void oversizedLengthIsRefusedBeforeItsBytesArrive() throws Exception {
    try (RawClient raw = raw()) {
      byte[] f = RawClient.frame(Opcode.PING, 0, 1, new byte[0]);
      ByteBuffer.wrap(f).putInt(24, Integer.MAX_VALUE); // payload length 2 GiB: only 36 bytes sent
      raw.send(f);
      assertFatal(raw, Status.FRAME_TOO_LARGE);
    }
  }

  @Test
  void unknownOpcodeAndBadFieldsAreAnsweredAndTheConnectionStays() throws Exception {
    try (RawClient raw = raw()) {
      raw.send(RawClient.frame(FrameFormat.MAGIC, 1, 0x7E, 0, 9, new byte[0], new byte[0]));
      error(raw, 9, Status.UNKNOWN_OPCODE);
      raw.send(RawClient.frame(Opcode.STAT, 0, 10, new byte[5])); // wrong header length
      error(raw, 10, Status.INVALID_ARGUMENT);
      byte[] crcBad = RawClient.frame(FrameFormat.MAGIC, 1, Opcode.DATA.code(),
          FrameFormat.FLAG_END, 11, new byte[0], new byte[] {1, 2, 3});
      crcBad[crcBad.length - 1] ^= 1; // payload CRC no longer matches
      raw.send(crcBad);
      // A DATA request's payload is checked by the write it belongs to (one pass with the
      // cells' checksums): this one belongs to none, which is what is wrong with it.
      error(raw, 11, Status.PROTOCOL_VIOLATION);
      pingOk(raw, 12);
    }
  }

  @Test
  void dataWithoutWriteAndReusedIdsAreProtocolViolations() throws Exception {
    try (RawClient raw = raw()) {
      raw.send(data(5, true, 100, 1));
      error(raw, 5, Status.PROTOCOL_VIOLATION);
      ChunkId c = new ChunkId(101, 0);
      raw.send(write(6, c, WriteMode.CREATE, -1));
      raw.send(write(6, c, WriteMode.CREATE, -1)); // the same id while the first is open
      error(raw, 6, Status.PROTOCOL_VIOLATION);
      raw.send(data(6, true, 1000, 2));
      WriteResponse w = assertInstanceOf(WriteResponse.class, raw.next(5000));
      assertEquals(1000, w.stat().length());
      pingOk(raw, 7);
    }
    assertTrue(client.delete(addr, target, new ChunkId(101, 0)));
  }

  @Test
  void truncatedFrameThenCloseIsDropped() throws Exception {
    try (RawClient raw = raw()) {
      byte[] f = RawClient.encode(new StatRequest(3, target, KEPT));
      raw.send(Arrays.copyOf(f, f.length / 2));
    }
  }

  @Test
  void clientVanishingMidWriteLeavesNothingVisible() throws Exception {
    ChunkId fresh = new ChunkId(102, 0);
    try (RawClient raw = raw()) {
      raw.send(write(1, KEPT, WriteMode.REPLACE, 4 << 20)); // over existing data
      raw.send(write(2, fresh, WriteMode.CREATE, -1)); // a new chunk
      for (int i = 0; i < 5; i++) {
        raw.send(data(1, false, 256 << 10, i));
        raw.send(data(2, false, 100_000, i));
      }
      Eventually.until("both writers open", () -> node.server.openWriters() == 2);
    }
    Eventually.until("the writers aborted", () -> node.server.openWriters() == 0);
    assertEquals(io.parityfs.node.protocol.Status.NOT_FOUND,
        org.junit.jupiter.api.Assertions.assertThrows(io.parityfs.node.client.NodeException.class,
            () -> client.stat(addr, target, fresh)).status());
    assertEquals(kept.length, client.stat(addr, target, KEPT).length());
  }

  @Test
  void aStreamOfAnotherLengthThanAnnouncedIsRefused() throws Exception {
    try (RawClient raw = raw()) {
      raw.send(write(1, KEPT, WriteMode.REPLACE, 5000));
      raw.send(data(1, true, 4000, 1));
      error(raw, 1, Status.INVALID_ARGUMENT);
      raw.send(write(2, KEPT, WriteMode.REPLACE, 5000));
      raw.send(data(2, false, 4000, 1));
      raw.send(data(2, false, 4000, 2)); // over the announced length: answered at once
      error(raw, 2, Status.INVALID_ARGUMENT);
      raw.send(data(2, true, 10, 3)); // the rest of the stream is dropped quietly
      pingOk(raw, 3);
    }
  }

  @Test
  void aCorruptDataFrameFailsItsWrite() throws Exception {
    try (RawClient raw = raw()) {
      raw.send(write(1, KEPT, WriteMode.REPLACE, -1));
      raw.send(data(1, false, 4000, 1));
      byte[] bad = RawClient.frame(FrameFormat.MAGIC, 1, Opcode.DATA.code(), FrameFormat.FLAG_MORE,
          1, new byte[0], new byte[4000]);
      bad[bad.length - 1] = 1;
      raw.send(bad);
      error(raw, 1, Status.CRC_MISMATCH);
      raw.send(data(1, true, 100, 2));
      pingOk(raw, 2);
    }
  }

  @Test
  void bytesDamagedInTheNodesMemoryAfterTheirCheckAreRefusedByTheClient() throws Exception {
    // A bit flips in the node's outbound buffer after the cells were read and checked against
    // their stored checksums (a bad DIMM, a stray write). The frame carries the stored checksums,
    // not ones taken from the damaged memory, so the client's decoder refuses it.
    AtomicInteger frames = new AtomicInteger();
    ReadStream.BEFORE_EMIT = b -> {
      if (frames.getAndIncrement() == 0) {
        int at = b.readerIndex() + 100;
        b.setByte(at, b.getByte(at) ^ 1);
      }
    };
    try {
      try (RawClient raw = raw()) {
        raw.send(new ReadRequest(1, target, KEPT, 0, -1));
        FrameError e = assertInstanceOf(FrameError.class, raw.next(5000));
        assertEquals(Status.CRC_MISMATCH, e.status());
        assertEquals(1, e.requestId());
      }
      // The node client reads again (CRC_MISMATCH is retryable, nothing was handed over yet)
      // and gets the stored bytes.
      frames.set(0);
      ByteBuffer back = ByteBuffer.allocate(kept.length);
      client.readChunk(addr, target, KEPT, 0, back);
      assertArrayEquals(kept, back.array());
      assertTrue(frames.get() >= 2, "the damaged frame was refused and the read made again");
    } finally {
      ReadStream.BEFORE_EMIT = null;
    }
  }

  @Test
  void idleConnectionsWithAPartialFrameOrAnOpenWriteAreClosed() throws Exception {
    int before = node.server.idleCloses.get();
    try (RawClient raw = raw()) {
      byte[] f = RawClient.encode(new PingRequest(1));
      raw.send(Arrays.copyOf(f, 20));
      assertTrue(raw.closedByNode(5000));
    }
    try (RawClient raw = raw()) {
      raw.send(write(1, new ChunkId(103, 0), WriteMode.CREATE, -1));
      raw.send(data(1, false, 1000, 1));
      assertTrue(raw.closedByNode(5000));
    }
    assertEquals(before + 2, node.server.idleCloses.get());
    Set<ConnectionHandler> earlier = new HashSet<>(node.server.connections());
    try (RawClient raw = raw()) {
      pingOk(raw, 1);
      ConnectionHandler idle = node.server.connections().stream()
          .filter(h -> !earlier.contains(h)).findFirst().orElseThrow();
      // idle with nothing pending: kept open through two idle timeouts the node saw (the wait
      // also ends if the node drops the connection: the ping then fails)
      Eventually.until("two idle timeouts", () -> idle.readerIdleEvents() >= 2
          || !node.server.connections().contains(idle));
      pingOk(raw, 2);
    }
    assertEquals(before + 2, node.server.idleCloses.get());
    assertEquals(Status.NOT_FOUND, org.junit.jupiter.api.Assertions.assertThrows(
        io.parityfs.node.client.NodeException.class,
        () -> client.stat(addr, target, new ChunkId(103, 0))).status());
  }

  /** A second stream of a chunk waits its turn (ChunkClaimTest), but only for claimWait. */
  @Test
  void aConcurrentWriteOfTheSameChunkIsAConflictOnceItWaitedClaimWait() throws Exception {
    try (RawClient raw = raw()) {
      raw.send(write(1, KEPT, WriteMode.REPLACE, -1));
      raw.send(data(1, false, 1000, 1));
      raw.send(write(2, KEPT, WriteMode.REPLACE, -1));
      ErrorResponse e = error(raw, 2, Status.CONFLICT);
      assertTrue(e.message().contains("waited 200 ms"), e.message());
      raw.send(data(2, true, 10, 1)); // dropped
      assertFalse(raw.closedByNode(200));
    }
  }
}
