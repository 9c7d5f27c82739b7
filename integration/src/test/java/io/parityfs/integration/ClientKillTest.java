package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.FileStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client process killed with SIGKILL in the middle of writing a file (uploads in flight, a
 * partial chunk not yet hsynced): after lease recovery the file is closed at a length at least
 * that of the last hsync the writer saw acknowledged, every byte up to that length is the
 * writer's (nothing unacknowledged shows up as garbage or zeros), and the file can be appended
 * to from there.
 */
class ClientKillTest {
  private static final long HSYNC = 1_300_000; // neither chunk- nor piece-aligned

  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), ClientKillTest.class);
    cluster.mkdirs("/crash");
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Starts a {@link CrashingWriter} process; its ACK lines go to {@code acked}. */
  private Process startWriter(String path, long size, AtomicLong acked, List<String> output)
      throws IOException {
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dparityfs.local=" + dir.resolve("cluster").resolve("writer"), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), CrashingWriter.class.getName(),
        cluster.local().dir().toString(), path, Long.toString(size), Long.toString(HSYNC));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.startsWith("ACK ")) {
            acked.set(Long.parseLong(line.substring(4)));
          }
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
    return p;
  }

  private static String tail(List<String> output) {
    synchronized (output) {
      return "; the writer's output ends:\n  " + String.join("\n  ",
          output.subList(Math.max(0, output.size() - 15), output.size()));
    }
  }

  @Test
  void aWriterKilledMidWriteLeavesExactlyItsBytesAfterLeaseRecovery() throws Exception {
    for (int round = 0; round < 2; round++) {
      String path = "/crash/f" + round;
      long size = 64L << 20;
      AtomicLong acked = new AtomicLong(-1);
      List<String> output = new ArrayList<>();
      Process p = startWriter(path, size, acked, output);
      try {
        // the first round is killed early (a partial second chunk), the second later
        long killAt = round == 0 ? 2 * HSYNC : 9 * HSYNC;
        cluster.await("the writer acknowledged " + killAt + " bytes", Duration.ofSeconds(60),
            () -> acked.get() >= killAt || !p.isAlive());
        assertTrue(p.isAlive(), "the writer died by itself" + tail(output));
      } finally {
        p.destroyForcibly(); // SIGKILL
        assertTrue(p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS));
      }
      long last = acked.get();
      assertTrue(last < size, "the writer finished before the kill" + tail(output));
      FileStatus open = TestFiles.status(cluster.root(), path);
      assertTrue(open.isOpenForWrite(), "the killed writer's file is open");
      assertTrue(open.length() >= last, "committed " + open.length() + " < acknowledged " + last);
      assertTrue(cluster.root().recoverLease(path), "lease recovery closes the file");
      FileStatus closed = TestFiles.status(cluster.root(), path);
      assertFalse(closed.isOpenForWrite());
      assertTrue(closed.length() >= last && closed.length() <= size, "recovered length "
          + closed.length() + " not in [" + last + ", " + size + "]");
      System.out.printf("[test] %s: acknowledged %d, recovered %d%n", path, last,
          closed.length());
      TestFiles.Content crashed = TestFiles.Content.of(ExpectedBytes.key(path,
          CrashingWriter.WRITER));
      TestFiles.verify(cluster.root(), path, crashed, closed.length());
      // the recovered file is a consistent base for the next writer, whose bytes differ from
      // the dead one's: a chunk of the dead writer past the recovered end must not come back
      String appender = ExpectedBytes.key(path, "appender");
      long grown = closed.length() + 3 * HSYNC;
      try (PfsOutputStream out = cluster.root().append(path)) {
        TestFiles.writeTo(out, appender, grown, 0, n -> { });
      }
      TestFiles.verify(cluster.root(), path, crashed.then(closed.length(), appender), grown);
    }
  }

  /**
   * No recoverLease here: the elected cluster manager closes the file once the dead writer's
   * session has expired (10 s), at its next lease round (every 30 s): up to 40 s, so only with
   * {@code -Dintegration.slow=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "integration.slow", matches = "true")
  void aWriterKilledWhileTheClusterManagerWatchesIsRecoveredByIt() throws Exception {
    String path = "/crash/auto";
    AtomicLong acked = new AtomicLong(-1);
    List<String> output = new ArrayList<>();
    Process p = startWriter(path, 64L << 20, acked, output);
    try {
      cluster.await("the writer acknowledged", Duration.ofSeconds(60),
          () -> acked.get() >= 3 * HSYNC || !p.isAlive());
      assertTrue(p.isAlive(), "the writer died by itself" + tail(output));
    } finally {
      p.destroyForcibly();
      assertTrue(p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS));
    }
    long last = acked.get();
    cluster.await("the cluster manager recovers the dead writer's lease",
        Duration.ofSeconds(90), () -> {
          try {
            return !TestFiles.status(cluster.root(), path).isOpenForWrite();
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        });
    long length = TestFiles.status(cluster.root(), path).length();
    assertTrue(length >= last, "recovered " + length + " < acknowledged " + last);
    assertEquals(length, TestFiles.verify(cluster.root(), path,
        ExpectedBytes.key(path, CrashingWriter.WRITER), length));
  }
}
