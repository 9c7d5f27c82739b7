package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.node.StorageNode;
import io.parityfs.node.protocol.ListRequest;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.testing.HeldEventThread;
import io.parityfs.testing.MiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that restarts on another address while a client's registry view has not seen it yet
 * (audit, Low: "readers can use a stale registry address after a node restart"). The clients'
 * ZooKeeper event threads are held ({@link HeldEventThread}), so the watch events of the restart
 * queue behind them and their views keep the old address: deterministic, no sleeps. Reads and
 * writes must reach the node at its new address (the client reads the target's records from
 * ZooKeeper itself when the old address fails it), and another node listening on the old
 * address must never be taken for the target: every request names its target, that node answers
 * UNKNOWN_TARGET and stores nothing. Bytes are keyed by (path, writer generation, offset).
 */
class MovedNodeTest {
  private static final int CHUNK = 1 << 20;

  @TempDir
  static Path dir;
  static MiniCluster cluster;
  static String target;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.start(dir, 1, "raid6:4+2", 6);
    target = cluster.nodes().get(0).targets().get(0).id();
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A file of three chunks, all on the first node's target, written as generation 1. */
  private static FileStatus write(ParityClient c, String path) throws IOException {
    Layout onTarget = new Layout(CHUNK, 1, List.of(target), "raid6:4+2");
    try (PfsOutputStream out = c.create(path, CreateOptions.file().withLayout(onTarget))) {
      out.write(FencingTest.keyed(path, 1, 0, 2 * CHUNK + 100));
    }
    return c.namespace().getStatus(path);
  }

  /** The file as generation 1 wrote it, with chunk 1 as generation 2 rewrote it. */
  private static byte[] rewritten(String path) {
    byte[] all = FencingTest.keyed(path, 1, 0, 2 * CHUNK + 100);
    System.arraycopy(FencingTest.keyed(path, 2, CHUNK, CHUNK), 0, all, CHUNK, CHUNK);
    return all;
  }

  private static byte[] readAll(PfsInputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[64 << 10];
    int n;
    while ((n = in.read(buf, 0, buf.length)) > 0) {
      out.write(buf, 0, n);
    }
    return out.toByteArray();
  }

  private static String viewed(ParityClient c) {
    return c.registry().target(target).orElseThrow().address();
  }

  private static String text(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }

  @Test
  void readsAndWritesReachANodeRestartedOnANewPortThroughAStaleView() throws Exception {
    String path = "/restarted";
    try (ParityClient reader = cluster.client(Caller.of("root"));
        ParityClient writer = cluster.client(Caller.of("root"))) {
      FileStatus f = write(writer, path);
      InetSocketAddress old = cluster.address(0);
      try (PfsInputStream in = reader.open(path, 0);
          HeldEventThread r = HeldEventThread.hold(reader.curator());
          HeldEventThread w = HeldEventThread.hold(writer.curator())) {
        cluster.stopNode(0);
        // the old port stays taken while the node starts, so it gets another one; then nobody
        // listens there (connections are refused)
        try (ServerSocket busy = new ServerSocket(old.getPort(), 1,
            InetAddress.getByName(old.getHostString()))) {
          cluster.restartNode(0);
        }
        InetSocketAddress now = cluster.address(0);
        assertNotEquals(old.getPort(), now.getPort());
        assertEquals(text(old), viewed(reader), "the reader's view is stale, as intended");
        assertEquals(text(old), viewed(writer), "the writer's view is stale, as intended");

        writer.chunks().write(f.id(), f.generation(), f.layout(), 1,
            ByteBuffer.wrap(FencingTest.keyed(path, 2, CHUNK, CHUNK)), null);
        assertArrayEquals(rewritten(path), readAll(in), "read from the node's new address");
        assertEquals(text(now), viewed(reader), "the reader's view was read again");
      }
    }
  }

  @Test
  void anotherNodeOnTheOldAddressIsNeverTakenForTheTarget() throws Exception {
    String path = "/impostor";
    try (ParityClient reader = cluster.client(Caller.of("root"));
        ParityClient writer = cluster.client(Caller.of("root"))) {
      FileStatus f = write(writer, path);
      InetSocketAddress old = cluster.address(0);
      StorageNode impostor;
      try (PfsInputStream in = reader.open(path, 0);
          HeldEventThread r = HeldEventThread.hold(reader.curator());
          HeldEventThread w = HeldEventThread.hold(writer.curator())) {
        cluster.stopNode(0);
        impostor = cluster.addNode("raid6:4+2", 6, old.getPort()); // another node, another target
        cluster.restartNode(0); // the old port is the impostor's: the node gets another one
        assertEquals(old.getPort(), impostor.address().getPort());
        assertEquals(text(old), viewed(reader), "the reader's view is stale, as intended");

        writer.chunks().write(f.id(), f.generation(), f.layout(), 1,
            ByteBuffer.wrap(FencingTest.keyed(path, 2, CHUNK, CHUNK)), null);
        assertArrayEquals(rewritten(path), readAll(in), "read from the target, not the impostor");
      }
      String other = impostor.targets().get(0).id();
      assertNotEquals(target, other);
      InetSocketAddress at = new InetSocketAddress(old.getHostString(), old.getPort());
      assertTrue(writer.nodes().list(at, TargetId.of(other), f.id(), 0, 100).entries().isEmpty(),
          "the impostor's target holds nothing of the file");
      assertTrue(writer.nodes().list(at, TargetId.of(other), ListRequest.ALL_FILES, 0, 100)
          .entries().isEmpty(), "nor anything else");
      try (PfsInputStream again = writer.open(path)) {
        assertArrayEquals(rewritten(path), readAll(again));
      }
    }
  }
}
