package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.FrameFormat;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's denial-of-service limits (issue 18, audit S3) under floods of idle and half-written
 * connections: the caps on connections per peer address and per node refuse a connection as it
 * is accepted (closed before any byte is read); the node-wide budget for partial frames closes
 * the connection whose partial frame would pass it and never holds more; in every case a
 * well-behaved client is served again as soon as the flood's connections go. LISTs past their
 * node-wide number in progress wait for a place, and are answered BUSY, having done nothing,
 * when none comes free in time. Peers are told
 * apart by their loopback source address (127.0.0.1, .2, .3).
 */
class NodeLimitsTest {
  private static final int PER_PEER = 6;
  private static final int PER_NODE = 9;
  /** Two largest frames: two stalled 3 MiB partial frames fit, a third does not. */
  private static final long PARTIAL = 2 * NodeServerConfig.LARGEST_FRAME;

  @TempDir static Path dir;
  static TestingServer zk;
  static TestNode node;
  private final List<Socket> flood = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    zk = new TestingServer(true);
    node = new TestNode(dir.resolve("node"), zk.getConnectString(), NodeServerConfig.builder()
        .maxConnectionsPerPeer(PER_PEER).maxConnections(PER_NODE)
        .maxPartialFrameBytes(PARTIAL).maxListsInProgress(1).listWait(Duration.ofMillis(300))
        .build(), "4K", "1M");
  }

  @AfterAll
  static void stop() throws Exception {
    if (node != null) {
      node.close();
    }
    if (zk != null) {
      zk.close();
    }
  }

  @AfterEach
  void closeFlood() throws Exception {
    for (Socket s : flood) {
      s.close();
    }
    flood.clear();
    awaitAdmitted(0);
  }

  private static void awaitAdmitted(int n) throws InterruptedException {
    long end = System.currentTimeMillis() + 10_000;
    while (node.server.admittedConnections() != n && System.currentTimeMillis() < end) {
      Thread.sleep(20);
    }
    assertEquals(n, node.server.admittedConnections(), "connections the node counts");
  }

  /** A connection from {@code source} (a loopback address), kept in the flood. */
  private Socket connect(String source) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(source, 0));
    s.connect(node.address, 5_000);
    s.setSoTimeout(5_000);
    flood.add(s);
    return s;
  }

  /** Whether the node closed {@code s} (EOF or reset within 5 s) rather than keep it open. */
  private static boolean closedByNode(Socket s) throws IOException {
    try {
      s.setSoTimeout(5_000);
      return s.getInputStream().read() < 0;
    } catch (SocketTimeoutException open) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }

  /** Whether {@code s} is still open (nothing to read within 300 ms, no EOF). */
  private static boolean stillOpen(Socket s) throws IOException {
    try {
      s.setSoTimeout(300);
      return s.getInputStream().read() >= 0;
    } catch (SocketTimeoutException open) {
      return true;
    } catch (IOException reset) {
      return false;
    }
  }

  private static ByteBuffer content(String writer, int i) {
    return ByteBuffer.wrap((writer + " wrote chunk " + i + "; ").repeat(500)
        .getBytes(StandardCharsets.UTF_8));
  }

  /** A fresh client writes chunk {@code i} and reads it back: the node serves. */
  private static void served(String writer, int i) throws IOException {
    try (NodeClient c = NodeClient.create(NodeClientConfig.builder().maxConnectionsPerNode(1)
        .maxAttempts(1).build())) {
      ChunkId id = new ChunkId(7, i);
      c.writeChunk(node.address, node.target, id, 0, WriteMode.CREATE, 0, content(writer, i));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      c.readChunk(node.address, node.target, id, 0, -1, Channels.newChannel(out));
      assertArrayEquals(content(writer, i).array(), out.toByteArray());
    }
  }

  @Test
  void idleConnectionsPastAPeersCapAreClosedAndOthersAreServed() throws Exception {
    List<Socket> idle = new ArrayList<>();
    for (int i = 0; i < PER_PEER; i++) {
      idle.add(connect("127.0.0.1"));
    }
    awaitAdmitted(PER_PEER);
    for (int i = 0; i < 3; i++) {
      assertTrue(closedByNode(connect("127.0.0.1")), "connection " + (PER_PEER + i + 1)
          + " of one peer is closed");
    }
    for (Socket s : idle) {
      assertTrue(stillOpen(s), "the connections within the cap stay");
    }
    // another address is within its own cap; the flooding one gets in again once one goes
    Socket other = connect("127.0.0.2");
    assertTrue(stillOpen(other));
    idle.get(0).close();
    awaitAdmitted(PER_PEER);
    served("after-peer-cap", 1);
  }

  @Test
  void connectionsPastTheNodesCapAreClosedWhateverTheirAddress() throws Exception {
    for (int i = 0; i < PER_PEER; i++) {
      connect("127.0.0.1");
    }
    for (int i = 0; i < PER_NODE - PER_PEER; i++) {
      connect("127.0.0.2");
    }
    awaitAdmitted(PER_NODE);
    assertTrue(closedByNode(connect("127.0.0.3")), "a new peer past the node's cap");
    assertTrue(closedByNode(connect("127.0.0.2")));
    assertEquals(PER_NODE, node.server.admittedConnections());
    flood.get(0).close();
    awaitAdmitted(PER_NODE - 1);
    served("after-node-cap", 2);
  }

  @Test
  void aListPastTheNumberInProgressWaitsThenIsAnsweredBusy() throws Exception {
    served("listed", 5);
    try (NodeClient c = NodeClient.create(NodeClientConfig.builder().maxAttempts(1).build())) {
      assertTrue(node.server.startList(), "the one place for a LIST, held by the test");
      try {
        NodeException e = assertThrows(NodeException.class,
            () -> c.list(node.address, node.target, 7, 0, 100));
        assertEquals(Status.BUSY, e.status(), e.getMessage());
      } finally {
        node.server.endList();
      }
      // a LIST that waits while the place is held gets it when the place comes free
      assertTrue(node.server.startList());
      java.util.concurrent.CompletableFuture<?> waiting = c.listAsync(node.address, node.target,
          7, 0, 100);
      Thread.sleep(100);
      node.server.endList();
      waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertTrue(c.list(node.address, node.target, 7, 0, 100).entries().stream()
          .anyMatch(entry -> entry.chunk().equals(new ChunkId(7, 5))));
    }
  }

  /** The start of a WRITE_DATA-sized frame: its fixed part declaring 4 MiB, then 3 MiB of it. */
  private static byte[] partialFrame() {
    byte[] whole = RawClient.frame(FrameFormat.MAGIC, 1, Opcode.PING.code(), 0, 99,
        new byte[0], new byte[4 << 20]);
    return Arrays.copyOf(whole, FrameFormat.FIXED_LENGTH + (3 << 20));
  }

  @Test
  void halfWrittenFramesPastTheBudgetAreClosedAndTheNodeHoldsNoMore() throws Exception {
    byte[] partial = partialFrame();
    List<Socket> stalled = new ArrayList<>();
    for (String source : List.of("127.0.0.1", "127.0.0.2")) {
      Socket s = connect(source);
      s.getOutputStream().write(partial);
      s.getOutputStream().flush();
      stalled.add(s);
    }
    long end = System.currentTimeMillis() + 10_000;
    while (node.server.partialFrameBytes() < 2L * partial.length
        && System.currentTimeMillis() < end) {
      Thread.sleep(20);
    }
    assertEquals(2L * partial.length, node.server.partialFrameBytes());
    Socket third = connect("127.0.0.3");
    try {
      third.getOutputStream().write(partial);
    } catch (IOException closedMidWay) {
      // the node closed it while it was still sending: what the budget is for
    }
    assertTrue(closedByNode(third), "the frame that would pass the budget");
    assertTrue(node.server.partialFrameBytes() <= PARTIAL, "held "
        + node.server.partialFrameBytes());
    for (Socket s : stalled) {
      assertTrue(stillOpen(s), "the frames within the budget stay");
    }
    // small frames still fit beside the stalled ones
    served("beside-stalled-frames", 3);
    for (Socket s : stalled) {
      s.close();
    }
    end = System.currentTimeMillis() + 10_000;
    while (node.server.partialFrameBytes() != 0 && System.currentTimeMillis() < end) {
      Thread.sleep(20);
    }
    assertEquals(0, node.server.partialFrameBytes(), "closed connections give their bytes back");
    served("after-the-flood", 4);
  }
}
