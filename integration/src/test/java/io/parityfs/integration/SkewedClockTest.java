package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.protocol.WriteRequest;
import io.parityfs.testkit.SystemDeps;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node wall clocks hours apart: node1's JVM runs two hours ahead, node2's two hours behind
 * (libfaketime, LD_PRELOADed through the child process's environment, monotonic time left
 * alone; the skew reaches the JVM's {@code System.currentTimeMillis} and the file times it reads
 * back), node0 on the real time. node1 is the only cluster-manager candidate, so the orphan
 * collection runs with a cutoff two hours in the future: every chunk on node0 and node2 looks
 * older than the grace.
 *
 * <p>What must hold: the registry keeps every target ONLINE (nothing of reachability depends on
 * a node's clock); files written across the three nodes, one closed and one still open, keep
 * every byte through an orphan collection (run by a re-election of node1 after the writes);
 * lease recovery of the open file keeps every acknowledged byte. Needs Debian's {@code faketime}
 * package (skipped without it, failed where system dependencies are required).
 */
class SkewedClockTest {
  private static final Path LIBFAKETIME =
      Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");
  private static final int AHEAD = 1;
  private static final int BEHIND = 2;
  private static final Duration SKEW = Duration.ofHours(2);
  private static final long HSYNC = 512 << 10;
  private static final Pattern ORPHAN_LINE = Pattern.compile("orphan collection: (\\d+) live"
      + " files .*, (\\d+) chunks checked on (\\d+) targets \\((\\d+) unreachable\\), (\\d+)"
      + " orphans found, (\\d+) deleted");

  @TempDir
  static Path dir;
  static TestCluster cluster;
  static String skipped;

  /**
   * The environment that skews a JVM's wall clock by {@code offset}. With
   * FAKETIME_FORCE_MONOTONIC_FIX=0:
   * Debian's libfaketime 0.9.10 turns its monotonic fix on by itself on glibc 2.36, and with it
   * every timed wait of the JVM (parkNanos, Object.wait, Thread.sleep) returns early, so its
   * threads spin and a node takes minutes to start (measured here: 20 parkNanos of 100 ms took
   * 1.1 s in all); with the fix off they wait their time.
   */
  private static Map<String, String> faketime(String offset) {
    return Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME", offset,
        "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0");
  }

  @BeforeAll
  static void start() throws Exception {
    skipped = SystemDeps.missing("faketime", System.getProperty("os.name").startsWith("Linux")
        && Files.isReadable(LIBFAKETIME), LIBFAKETIME + " is missing (apt-get install"
            + " faketime): no node can run with a skewed clock");
    if (skipped != null) {
      return;
    }
    cluster = TestCluster.start(dir.resolve("cluster"), SkewedClockTest.class, 1, c -> {
      c.setNodeEnvironment(AHEAD, faketime("+" + SKEW.toHours() + "h"));
      c.setNodeEnvironment(BEHIND, faketime("-" + SKEW.toHours() + "h"));
      c.updateNodeConfig(0, Map.of("cluster.manager.enabled", "false"));
      c.updateNodeConfig(BEHIND, Map.of("cluster.manager.enabled", "false"));
    });
    cluster.mkdirs("/skew");
  }

  @BeforeEach
  void skipWithoutFaketime() {
    SystemDeps.skipIf(skipped);
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The node's own clock, as it wrote it into its registry record, minus the real time. */
  private static Duration reportedSkew(int i) throws IOException {
    TargetInfo t = cluster.target(i);
    return Duration.between(Instant.now(), t.updated());
  }

  @Test
  void theSkewReachesTheNodesJvms() throws Exception {
    Duration ahead = reportedSkew(AHEAD);
    Duration behind = reportedSkew(BEHIND);
    Duration none = reportedSkew(0);
    System.out.println("[test] node clocks as their registry records say: node0 " + none
        + ", node1 " + ahead + ", node2 " + behind);
    Duration slack = Duration.ofMinutes(30);
    assertTrue(ahead.minus(SKEW).abs().compareTo(slack) < 0, "node" + AHEAD + " runs " + ahead
        + " off, not +" + SKEW + ": the JVM ignores libfaketime");
    assertTrue(behind.plus(SKEW).abs().compareTo(slack) < 0, "node" + BEHIND + " runs "
        + behind + " off, not -" + SKEW + ": the JVM ignores libfaketime");
    assertTrue(none.abs().compareTo(slack) < 0, "node0 runs " + none + " off");
    for (int i = 0; i < 3; i++) {
      assertEquals(Reachability.ONLINE, cluster.target(i).reachability(), "node" + i);
    }
  }

  /** node1's orphan-collection lines, of its current process. */
  private static List<String> orphanLines() throws IOException {
    List<String> all = Files.readAllLines(cluster.local().nodeProcess(AHEAD).log(),
        StandardCharsets.UTF_8);
    int start = 0;
    for (int k = 0; k < all.size(); k++) {
      if (all.get(k).startsWith("---- ")) {
        start = k;
      }
    }
    return all.subList(start, all.size()).stream()
        .filter(l -> ORPHAN_LINE.matcher(l).find()).toList();
  }

  @Test
  void filesAcrossSkewedNodesSurviveOrphanCollectionAndLeaseRecovery() throws Exception {
    String closed = "/skew/closed";
    String closedKey = ExpectedBytes.key(closed, "w1");
    long closedSize = 7L * TestCluster.CHUNK + 4321;
    TestFiles.write(cluster.root(), closed, closedKey, closedSize, HSYNC, n -> { });
    String open = "/skew/open";
    String openKey = ExpectedBytes.key(open, "w1");
    AtomicLong acked = new AtomicLong();
    PfsOutputStream out = cluster.root().create(open, CreateOptions.file());
    TestFiles.writeTo(out, openKey, 4L * TestCluster.CHUNK + 999, HSYNC, acked::set);
    out.hsync();
    acked.set(out.position());

    // node1 (the only candidate) elected again: an orphan collection round with these chunks
    cluster.local().stopNode(AHEAD, Duration.ofSeconds(30));
    cluster.restartNode(AHEAD);
    cluster.await("an orphan collection by node" + AHEAD + " after its restart",
        Duration.ofSeconds(60), () -> {
          try {
            return !orphanLines().isEmpty();
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        });
    String line = orphanLines().get(0);
    System.out.println("[test] " + line);
    Matcher m = ORPHAN_LINE.matcher(line);
    assertTrue(m.find());
    assertEquals("3", m.group(3), "every target listed: " + line);
    assertEquals("0", m.group(4), "no target unreachable: " + line);
    // the 8 chunks of the closed file and 5 of the open one, on three targets
    assertTrue(Long.parseLong(m.group(2)) >= 13, "every chunk checked: " + line);
    assertEquals("0", m.group(6), "chunks of live files deleted: " + line);

    TestFiles.verify(cluster.root(), closed, closedKey, closedSize);
    assertTrue(cluster.root().recoverLease(open), "lease recovery of the open file");
    try {
      out.close();
    } catch (IOException expected) {
      // its lease was revoked
    }
    long length = TestFiles.status(cluster.root(), open).length();
    assertTrue(length >= acked.get(), "recovered " + length + " < acknowledged " + acked);
    TestFiles.verify(cluster.root(), open, openKey, length);
    for (int i = 0; i < 3; i++) {
      TargetInfo t = cluster.target(i);
      assertEquals(Reachability.ONLINE, t.reachability(), "node" + i + ": " + t);
      assertEquals("", t.offlineReason(), "node" + i + ": " + t);
    }
  }

  /**
   * The grace of the orphan collection (1 h by default) is measured on the manager's clock
   * against chunk times from the nodes' clocks (D11): a manager two hours ahead takes a chunk
   * written seconds ago for one older than the grace. The chunk here is a true orphan (its file
   * id is a directory's, which no file has), so deleting it harms nothing by itself; it shows
   * that the grace, which is what keeps the chunks of a file created during a scan (invisible to
   * it) from being collected, does not hold across skewed clocks. Failed before D11's fix: the
   * orphan was deleted ("1 orphans found, 1 deleted"); orphans are now aged by the manager's own
   * clock over two rounds, so a node's clock does not enter.
   */
  @Test
  void aChunkYoungerThanTheGraceIsNotCollectedByAManagerWhoseClockIsAhead() throws Exception {
    cluster.mkdirs("/skew/orphan-dir");
    long dirId = TestFiles.status(cluster.root(), "/skew/orphan-dir").id();
    TargetInfo t = cluster.target(0); // node0: the real time
    cluster.root().nodes().writeChunk(t.socketAddress(), TargetId.of(t.id()),
        new ChunkId(dirId, 0), 0, WriteMode.CREATE, WriteRequest.SYNC,
        ByteBuffer.wrap(ExpectedBytes.of(ExpectedBytes.key("/skew/orphan-dir", "orphan"), 0,
            4096)));
    cluster.local().stopNode(AHEAD, Duration.ofSeconds(30));
    cluster.restartNode(AHEAD);
    cluster.await("an orphan collection by node" + AHEAD + " after its restart",
        Duration.ofSeconds(60), () -> {
          try {
            return !orphanLines().isEmpty();
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        });
    String line = orphanLines().get(0);
    System.out.println("[test] " + line);
    Matcher m = ORPHAN_LINE.matcher(line);
    assertTrue(m.find());
    assertEquals("0", m.group(6), "a chunk seconds old collected, under a grace of an hour: "
        + line);
  }
}
