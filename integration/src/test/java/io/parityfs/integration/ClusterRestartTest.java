package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole cluster restarted: stopped cleanly and started, then killed at once (every node
 * and ZooKeeper with SIGKILL, a file open with hsynced data) and started. Every closed file
 * reads back byte for byte with its length, the namespace lists the same entries, and the open
 * file recovers to at least its acknowledged length with the writer's bytes.
 */
class ClusterRestartTest {
  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), ClusterRestartTest.class);
    cluster.mkdirs("/restart/sub");
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  private final Map<String, Long> files = new LinkedHashMap<>();

  private void write(String path, long size) throws IOException {
    TestFiles.write(cluster.root(), path, path, size, 0, n -> { });
    files.put(path, size);
  }

  private void verifyAll(String when) throws IOException {
    for (Map.Entry<String, Long> f : files.entrySet()) {
      try {
        TestFiles.verify(cluster.root(), f.getKey(), f.getKey(), f.getValue());
      } catch (AssertionError | IOException e) {
        throw new AssertionError(when + ": " + e.getMessage() + cluster.logTails(), e);
      }
    }
  }

  private static List<String> tail(List<String> lines) {
    return lines.subList(Math.max(0, lines.size() - 8), lines.size());
  }

  private List<String> listing() throws IOException {
    return cluster.root().namespace().listAll("/restart").stream()
        .map(s -> s.path() + " " + s.length()).sorted().toList();
  }

  @Test
  void everyByteSurvivesACleanAndACrashRestartOfTheWholeCluster() throws Exception {
    write("/restart/empty", 0);
    write("/restart/one", 1);
    write("/restart/chunk", TestCluster.CHUNK);
    write("/restart/sub/odd", 5L * TestCluster.CHUNK + 4097);
    write("/restart/sub/big", 12L << 20);
    List<String> before = listing();

    cluster.restart(false);
    for (int i = 0; i < cluster.local().shape().nodes(); i++) {
      // SIGTERM: the shutdown's own lines reach the log (the JDK's logging hook resets no
      // handler before the node's hook is done)
      List<String> stopped = cluster.previousProcessLines(i);
      String id = cluster.nodeId(i);
      assertTrue(stopped.stream().anyMatch(l -> l.contains("node " + id + ": closing")),
          "node" + i + " logged no 'closing' at SIGTERM: " + tail(stopped));
      assertTrue(stopped.stream().anyMatch(l -> l.contains("node " + id + ": closed")),
          "node" + i + " logged no 'closed' at SIGTERM: " + tail(stopped));
    }
    assertEquals(before, listing(), "the namespace after a clean restart");
    verifyAll("after a clean restart");

    write("/restart/second", 3L * TestCluster.CHUNK + 1);
    String open = "/restart/open";
    PfsOutputStream out = cluster.root().create(open, CreateOptions.file());
    String openKey = ExpectedBytes.key(open, "before-the-crash");
    TestFiles.writeTo(out, openKey, 2L * TestCluster.CHUNK + 333, 1 << 20, n -> { });
    out.hsync();
    long acked = out.position();
    TestFiles.writeTo(out, openKey, acked + 100_000, 0, n -> { }); // not acknowledged
    before = listing();

    cluster.restart(true);
    verifyAll("after a crash of the whole cluster");
    FileStatus s = TestFiles.status(cluster.root(), open);
    assertEquals(acked, s.length(), "the open file's committed length");
    assertTrue(cluster.root().recoverLease(open));
    long length = TestFiles.status(cluster.root(), open).length();
    assertTrue(length >= acked, "recovered " + length + " < acknowledged " + acked);
    TestFiles.verify(cluster.root(), open, openKey, length);
    // rewritten by a second writer (its bytes differ), so verifyAll checks what it wrote
    cluster.root().namespace().delete(open, false);
    write(open, length);
    write("/restart/third", 2L << 20);
    verifyAll("after writing again");
    cluster.awaitHealthy(true, Duration.ofSeconds(30));
  }
}
