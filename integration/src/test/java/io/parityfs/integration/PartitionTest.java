package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.targets.Reachability;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Partial partitions through {@link TcpProxy}s on loopback: node1 listens on 127.0.0.2 and
 * advertises 127.0.0.1, where a proxy forwards to it, so every client (and the other nodes)
 * reach it only through that proxy; and node1 reaches ZooKeeper only through a second proxy.
 * What must hold: a writer cut from a node (both ways, or one way) fails with a clear error in
 * bounded time and never has bytes acknowledged that are then lost; a node cut from ZooKeeper
 * while clients still reach it loses its registration, its cluster manager steps down and
 * another node's acts, and no acknowledged byte is lost; after healing, every acknowledged byte
 * reads back and new files are written.
 */
class PartitionTest {
  private static final int VICTIM = 1;
  private static final long HSYNC = 512 << 10;
  private static final long FILE = 16L << 20;
  /** The writers' request timeout: a cut shows within seconds, not the default 30 s × 3. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  @TempDir
  static Path dir;
  static TestCluster cluster;
  static TcpProxy toNode;
  static TcpProxy toZooKeeper;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), PartitionTest.class, 1, c -> {
      int port = portFreeOnBoth();
      InetAddress behind = InetAddress.getByName("127.0.0.2");
      toNode = new TcpProxy("clients->node1",
          new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
          new InetSocketAddress(behind, port));
      toZooKeeper = TcpProxy.to("node1->zookeeper",
          new InetSocketAddress(InetAddress.getLoopbackAddress(), c.zooKeeperClientPort(1)));
      c.updateNodeConfig(VICTIM, Map.of("node.listen.host", "127.0.0.2",
          "node.listen.port", Integer.toString(port), "node.advertise.host", "127.0.0.1",
          "zookeeper.connect", "127.0.0.1:" + toZooKeeper.port()));
    });
    cluster.mkdirs("/part");
  }

  /** A port that nothing listens on at 127.0.0.1 nor at 127.0.0.2. */
  private static int portFreeOnBoth() throws IOException {
    for (int tries = 0; tries < 50; tries++) {
      try (ServerSocket a = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
          ServerSocket b = new ServerSocket(a.getLocalPort(), 1,
              InetAddress.getByName("127.0.0.2"))) {
        return a.getLocalPort();
      } catch (IOException e) {
        // taken on 127.0.0.2: another
      }
    }
    throw new IOException("no port free on both 127.0.0.1 and 127.0.0.2");
  }

  @AfterAll
  static void stop() throws IOException {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      if (toNode != null) {
        toNode.close();
      }
      if (toZooKeeper != null) {
        toZooKeeper.close();
      }
    }
  }

  @AfterEach
  void heal() throws IOException {
    heal(toNode);
    heal(toZooKeeper);
    cluster.awaitHealthy(false, TestCluster.START);
  }

  /**
   * Ends a partition as they end: the connections it left (whose streams lost bytes) are reset,
   * new ones pass.
   */
  private static void heal(TcpProxy p) {
    if (p.mode() != TcpProxy.Mode.PASS) {
      p.mode(TcpProxy.Mode.RESET);
      p.mode(TcpProxy.Mode.PASS);
    }
  }

  private static ParityClient shortTimeoutClient() throws IOException {
    return ParityClient.connect(cluster.local().clientConfig()
        .nodes(cluster.local().nodeClientConfig().requestTimeout(REQUEST_TIMEOUT).build())
        .build(),
        Caller.of("root"));
  }

  /** A writer thread: FILE bytes, an hsync every HSYNC. */
  private static final class Writer {
    final String path;
    final String key;
    final AtomicLong acked = new AtomicLong();
    volatile boolean closed;
    volatile IOException failure;
    volatile long endedNanos;
    final Thread thread;

    Writer(ParityClient c, String path) {
      this.path = path;
      this.key = ExpectedBytes.key(path, "writer");
      this.thread = new Thread(() -> {
        try {
          PfsOutputStream out = c.create(path, CreateOptions.file());
          try {
            TestFiles.writeTo(out, key, FILE, HSYNC, acked::set);
          } finally {
            out.close();
          }
          acked.set(FILE);
          closed = true;
        } catch (IOException e) {
          failure = e;
        } finally {
          endedNanos = System.nanoTime();
        }
      }, "writer " + path);
    }
  }

  /**
   * Writers cut from node1 (both ways, only their requests, or only its answers): each fails
   * with an IOException naming node1's target, within a bound (request timeout × attempts, plus
   * slack), its committed length is its last acknowledged hsync, and after the partition heals
   * lease recovery gives at least every acknowledged byte, every one right.
   */
  @ParameterizedTest
  @EnumSource(value = TcpProxy.Mode.class, names = {"BLACKHOLE", "DROP_TO_TARGET",
      "DROP_FROM_TARGET"})
  void aWriterCutFromANodeFailsClearlyInBoundedTimeAndLosesNothingAcknowledged(
      TcpProxy.Mode cut) throws Exception {
    String victim = cluster.target(VICTIM).id();
    List<Writer> writers = new ArrayList<>();
    long cutAt;
    try (ParityClient c = shortTimeoutClient()) {
      for (int i = 0; i < 3; i++) {
        writers.add(new Writer(c, "/part/" + cut.name().toLowerCase() + i));
      }
      writers.forEach(w -> w.thread.start());
      cluster.await("every writer acknowledged 2 MiB", Duration.ofSeconds(60),
          () -> writers.stream().allMatch(w -> w.acked.get() >= 2 << 20 || w.failure != null));
      writers.forEach(w -> assertEquals(null, w.failure, w.path + " failed before the cut"));
      toNode.mode(cut);
      cutAt = System.nanoTime();
      for (Writer w : writers) {
        w.thread.join(Duration.ofSeconds(120).toMillis());
        assertFalse(w.thread.isAlive(), w.path + ": the writer hangs with node1 cut ("
            + cut + ")" + cluster.logTails());
      }
    }
    for (Writer w : writers) {
      double took = (w.endedNanos - cutAt) / 1e9;
      System.out.printf("[test] %s (%s): %s after %.1f s, acknowledged %d%n", w.path, cut,
          w.closed ? "closed" : w.failure, took, w.acked.get());
      assertFalse(w.closed, w.path + ": closed with node1 cut off (" + cut + ")");
      assertTrue(String.valueOf(w.failure.getMessage()).contains(victim), w.path
          + ": the error names the cut target " + victim + ": " + w.failure);
      FileStatus s = TestFiles.status(cluster.root(), w.path);
      assertTrue(s.isOpenForWrite(), w.path + ": a failed writer's file stays open");
      assertEquals(w.acked.get(), s.length(), w.path + ": the committed length is the last"
          + " acknowledged hsync's");
    }
    heal(toNode);
    cluster.awaitHealthy(false, TestCluster.START);
    for (Writer w : writers) {
      assertTrue(cluster.root().recoverLease(w.path), w.path + ": lease recovery");
      long length = TestFiles.status(cluster.root(), w.path).length();
      assertTrue(length >= w.acked.get() && length <= FILE, w.path + ": recovered " + length
          + " not in [" + w.acked.get() + ", " + FILE + "]");
      TestFiles.verify(cluster.root(), w.path, w.key, length);
    }
  }

  /**
   * node1 cut from ZooKeeper (blackhole: its session's pings vanish) while clients still reach
   * it: its online record expires (the target leaves ONLINE), its cluster manager does not act
   * and exactly one other node's does, a writer striped over it either goes on or fails
   * clearly, and after the cut heals node1 registers again and every acknowledged byte, before
   * and during the cut, reads back.
   */
  @Test
  void aNodeCutFromZooKeeperLosesItsRegistrationAndManagerButNoAcknowledgedByte()
      throws Exception {
    makeVictimTheActingManager();
    String before = "/part/zk-before";
    String beforeKey = ExpectedBytes.key(before, "w");
    TestFiles.write(cluster.root(), before, beforeKey, 4L << 20, 0, n -> { });
    Writer w;
    try (ParityClient c = shortTimeoutClient()) {
      w = new Writer(c, "/part/zk-writer");
      w.thread.start();
      cluster.await("the writer acknowledged 2 MiB", Duration.ofSeconds(60),
          () -> w.acked.get() >= 2 << 20 || w.failure != null);
      assertEquals(null, w.failure);
      toZooKeeper.mode(TcpProxy.Mode.BLACKHOLE);
      cluster.await("node1's registration expired", Duration.ofSeconds(90), () -> {
        try {
          return cluster.target(VICTIM).reachability() != Reachability.ONLINE;
        } catch (IOException e) {
          return false;
        }
      });
      // node1's manager acted: with its session gone it must stop, and another must take over
      cluster.await("one cluster manager acting, not node1's", Duration.ofSeconds(90), () -> {
        List<Integer> acting = actingManagers();
        return acting.size() == 1 && acting.get(0) != VICTIM;
      });
      w.thread.join(Duration.ofSeconds(120).toMillis());
      assertFalse(w.thread.isAlive(), "the writer hangs with node1 cut from ZooKeeper");
      System.out.println("[test] the writer with node1 cut from ZooKeeper: " + (w.closed
          ? "closed" : w.failure) + ", acknowledged " + w.acked.get());
    }
    heal(toZooKeeper);
    cluster.awaitHealthy(false, TestCluster.START);
    long length = w.acked.get();
    if (!w.closed) {
      assertTrue(cluster.root().recoverLease(w.path), w.path + ": lease recovery");
      length = TestFiles.status(cluster.root(), w.path).length();
      assertTrue(length >= w.acked.get(), w.path + ": recovered " + length
          + " < acknowledged " + w.acked.get());
    }
    TestFiles.verify(cluster.root(), w.path, w.key, length);
    TestFiles.verify(cluster.root(), before, beforeKey, 4L << 20);
    String after = "/part/zk-after";
    TestFiles.write(cluster.root(), after, ExpectedBytes.key(after, "w"), 4L << 20, HSYNC,
        n -> { });
    TestFiles.verify(cluster.root(), after, ExpectedBytes.key(after, "w"), 4L << 20);
  }

  /**
   * Restarts (SIGTERM, start) whichever other node's cluster manager acts, until node1's does:
   * the election goes to the next candidate in line, so at most two restarts.
   */
  private static void makeVictimTheActingManager() throws IOException {
    for (int round = 0; round < 3; round++) {
      cluster.await("one cluster manager acting", Duration.ofSeconds(60),
          () -> actingManagers().size() == 1);
      int acting = actingManagers().get(0);
      if (acting == VICTIM) {
        return;
      }
      System.out.println("[test] node" + acting + "'s manager acts: restarting node" + acting);
      cluster.local().stopNode(acting, Duration.ofSeconds(30));
      cluster.await("another cluster manager acting", Duration.ofSeconds(60),
          () -> actingManagers().size() == 1 && actingManagers().get(0) != acting);
      cluster.restartNode(acting);
    }
    throw new AssertionError("node1's cluster manager never acted: " + actingManagers());
  }

  private static List<Integer> actingManagers() {
    return cluster.actingManagers();
  }

}
