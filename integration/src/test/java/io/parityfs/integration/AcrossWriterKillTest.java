package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.GroupCheck;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.TargetId;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 item 5, as a user met it on a secure 3-node local cluster: an {@code ec:2+1} file
 * gets 300 bytes and an hflush, then 20 MiB more; the writer process is SIGKILLed once the
 * group's next round has landed; the node holding chunk 0 stops; lease recovery closes the
 * file. The 300 acknowledged bytes read back with that node down, after it returns, after
 * catch-up, and with it down again. (Before issue 40 they read UNAVAILABLE with the node down
 * and DATA_LOST for good after it came back.)
 */
class AcrossWriterKillTest {
  private static final long SMALL = 300;
  private static final long MORE = 20L << 20;

  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.startSecure(dir.resolve("cluster"), AcrossWriterKillTest.class, 3);
    cluster.root().namespace().mkdirs("/h", CreateOptions.directory()
        .withLayout(TestCluster.LAYOUT.withAcross(Across.ec(2, 1))));
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theHflushedBytesOfAKilledWriterSurviveTheLossOfTheirNode() throws Exception {
    String path = "/h/killed";
    AtomicLong acked = new AtomicLong(-1);
    AtomicBoolean wrote = new AtomicBoolean();
    List<String> output = new ArrayList<>();
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Dparityfs.local=" + dir.resolve("cluster").resolve("writer"), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), HflushingWriter.class.getName(),
        cluster.local().dir().toString(), path, Long.toString(SMALL), Long.toString(MORE));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.startsWith("ACK ")) {
            acked.set(Long.parseLong(line.substring(4)));
          }
          wrote.compareAndSet(false, line.equals("WROTE"));
          synchronized (output) {
            output.add(line);
          }
        }
      } catch (IOException e) {
        // the process died: its output ends
      }
    }, "writer output");
    reader.setDaemon(true);
    reader.start();
    FileStatus f;
    try {
      cluster.await("the writer wrote its bytes", Duration.ofSeconds(120),
          () -> wrote.get() || !p.isAlive());
      assertTrue(p.isAlive(), "the writer died by itself: " + output);
      assertEquals(SMALL, acked.get(), "the hflush acknowledged");
      f = TestFiles.status(cluster.root(), path);
      // the group's next round landed: its parity carries a round of both data chunks
      FileStatus file = f;
      cluster.await("group 0's round landed", Duration.ofSeconds(60),
          () -> roundCount(file, 0, 2) == 2);
    } finally {
      p.destroyForcibly(); // SIGKILL
      assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    }
    int victim = cluster.nodeOf(f.layout().targets().get(0)); // chunk 0's node
    cluster.local().stopNode(victim, Duration.ofSeconds(30));
    try {
      assertTrue(cluster.root().recoverLease(path), "lease recovery with chunk 0's node down");
      long length = TestFiles.status(cluster.root(), path).length();
      assertTrue(length >= SMALL, "recovered " + length);
      assertEquals(length, TestFiles.verify(cluster.root(), path,
          ExpectedBytes.key(path, HflushingWriter.WRITER), length), "with the node down");
    } finally {
      cluster.local().startNode(victim);
      cluster.awaitHealthy(false, TestCluster.START);
    }
    String key = ExpectedBytes.key(path, HflushingWriter.WRITER);
    long length = TestFiles.status(cluster.root(), path).length();
    assertEquals(length, TestFiles.verify(cluster.root(), path, key, length), "node back");
    new Repairer(cluster.root()).repair(path);
    FileStatus caught = TestFiles.status(cluster.root(), path);
    assertTrue(caught.repairs().isEmpty(), "caught up: " + caught.repairs());
    GroupCheck.Report r = new GroupCheck(cluster.root()).check(caught);
    assertEquals(GroupCheck.State.PROTECTED, r.worst(), r.toString());
    cluster.local().stopNode(victim, Duration.ofSeconds(30));
    try {
      assertEquals(length, TestFiles.verify(cluster.root(), path, key, length),
          "after catch-up, the node down again");
    } finally {
      cluster.local().startNode(victim);
      cluster.awaitHealthy(false, TestCluster.START);
    }
  }

  /** The count of data chunks of the round group {@code g}'s member {@code j} carries, or -1. */
  private static int roundCount(FileStatus f, long g, int j) {
    try {
      ChunkMap map = ChunkMap.of(f.layout());
      String target = f.layout().targets().get(map.memberPosition(g, j));
      TargetInfo t = cluster.root().registry().target(target).orElseThrow();
      ChunkStat s = cluster.root().nodes().stat(t.socketAddress(), TargetId.of(target),
          new ChunkId(f.id(), map.memberIndex(g, j)));
      return s.generation() == f.generation() ? (int) (s.sequence() & 31) : -1;
    } catch (IOException e) {
      return -1;
    }
  }
}
