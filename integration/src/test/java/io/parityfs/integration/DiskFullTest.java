package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.PlacementConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real ENOSPC under a storage node, through the wire: drive folders that are small tmpfs mounts
 * (so the error comes from the kernel wherever the space ends: a shard's data, its CRC table
 * or header, a manifest, a directory entry), on child-process nodes. node2's six drives are all
 * small (its target fills up mid-commit); node1 has one small drive among five on disk. Each
 * target is alone in a pool, so a file's chunks go where the test says.
 *
 * <p>What must hold: a write into a full target ends with a clear error, in bounded time, and
 * never an acknowledgement without its shards: the committed length is the last acknowledged
 * one, every committed byte reads back right, the version before the failed append stays
 * readable; a single full drive ends in a clear error or a degraded target with every byte
 * right. Needs root (mount); skipped otherwise, with the reason.
 */
class DiskFullTest {
  private static final int CHUNK = 1 << 20;
  private static final long HSYNC = 512 << 10;
  private static final int FULL_NODE = 2;
  private static final int ONE_DRIVE_NODE = 1;

  @TempDir
  static Path dir;
  static TestCluster cluster;
  /**
   * Writes with no placement reserve (default 1 GiB or 1 %, which keeps new files off these
   * small targets before any byte is sent): a reserve is a hint from free-space figures up to
   * a refresh old, which concurrent writers overrun; what a node does when the space really
   * ends is what is tested here.
   */
  static ParityClient writer;
  private static final List<Path> mounts = new ArrayList<>();

  private static boolean mount(Path at, String size) throws IOException, InterruptedException {
    Files.createDirectories(at);
    Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs",
        at.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      System.out.println("[test] mount tmpfs at " + at + " failed: " + out);
      return false;
    }
    mounts.add(at);
    return true;
  }

  @BeforeAll
  static void start() throws Exception {
    Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux")
        && mount(dir.resolve("probe"), "1m"), "needs root to mount a small tmpfs (real ENOSPC)");
    cluster = TestCluster.start(dir.resolve("cluster"), DiskFullTest.class, 1, c -> {
      try {
        for (int d = 0; d < c.shape().drives(); d++) {
          if (!mount(c.drive(FULL_NODE, d), "6m")) {
            throw new IOException("mount failed");
          }
        }
        if (!mount(c.drive(ONE_DRIVE_NODE, 0), "3m")) {
          throw new IOException("mount failed");
        }
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      c.updateNodeConfig(FULL_NODE, Map.of("target.t.pool", "full"));
      c.updateNodeConfig(ONE_DRIVE_NODE, Map.of("target.t.pool", "onefull"));
    });
    writer = ParityClient.connect(cluster.local().clientConfig()
        .placement(PlacementConfig.builder().reserveBytes(0).reserveFraction(0).build())
        .build(), Caller.of("root"));
    for (String pool : List.of("full", "onefull")) {
      cluster.root().namespace().mkdirs("/" + pool, CreateOptions.directory()
          .withLayout(new Layout(CHUNK, 1, List.of(), "raid6:4+2", Across.NONE, pool)));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (writer != null) {
        writer.close();
      }
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      for (Path m : mounts) {
        new ProcessBuilder("umount", "-l", m.toString()).inheritIO().start()
            .waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Appends {@code until} bytes of {@code key} with an hsync every {@link #HSYNC}, until done or
   * an IOException (returned; null when the append closed), in a thread joined within 120 s;
   * {@code acked} hears each acknowledged length.
   */
  private static IOException append(ParityClient c, PfsOutputStream out, String key, long until,
      AtomicLong acked) throws Exception {
    IOException[] failure = new IOException[1];
    Thread t = new Thread(() -> {
      try {
        try {
          TestFiles.writeTo(out, key, until, HSYNC, acked::set);
        } finally {
          out.close();
        }
        acked.set(until);
      } catch (IOException e) {
        failure[0] = e;
      }
    }, "appender");
    t.start();
    t.join(Duration.ofSeconds(120).toMillis());
    assertFalse(t.isAlive(), "the writer hangs on a full target" + cluster.logTails());
    return failure[0];
  }

  @Test
  void aTargetFullMidCommitFailsTheWriteClearlyAndKeepsEveryAcknowledgedByte()
      throws Exception {
    String path = "/full/f";
    String v1 = ExpectedBytes.key(path, "v1");
    String v2 = ExpectedBytes.key(path, "v2");
    long base = 2L * CHUNK + 12345;
    TestFiles.write(writer, path, v1, base, 0, n -> { });
    AtomicLong acked = new AtomicLong(base);
    IOException failure = append(writer, writer.append(path), v2, 64L << 20, acked);
    System.out.println("[test] the append into a full target: " + failure + ", acknowledged "
        + acked.get() + "; node" + FULL_NODE + ": " + DriveFailureTest.array(cluster,
            FULL_NODE));
    assertTrue(failure != null, "64 MiB appended to a target of 6 x 6 MiB drives");
    assertTrue(failure.getMessage() != null && failure.getMessage().toLowerCase()
        .matches(".*(space|full|no_space).*"), "the error says the target is full: " + failure);
    FileStatus s = TestFiles.status(cluster.root(), path);
    assertEquals(acked.get(), s.length(), "the committed length is the last acknowledged one");
    TestFiles.Content content = TestFiles.Content.of(v1).then(base, v2);
    assertTrue(cluster.root().recoverLease(path), "lease recovery");
    long length = TestFiles.status(cluster.root(), path).length();
    assertTrue(length >= acked.get(), "recovered " + length + " < acknowledged "
        + acked.get());
    TestFiles.verify(cluster.root(), path, content, length);
    // the node still serves what it has: the version before the append is read again
    try (var in = cluster.root().open(path)) {
      byte[] b = new byte[(int) base];
      assertEquals(base, in.read(0, b, 0, b.length));
      assertEquals(-1, ExpectedBytes.firstMismatch(v1, 0, b, 0, b.length));
    }
  }

  @Test
  void oneFullDriveEndsInAClearErrorOrADegradedTargetWithEveryByteRight() throws Exception {
    String path = "/onefull/f";
    String key = ExpectedBytes.key(path, "w");
    long size = 24L << 20;
    AtomicLong acked = new AtomicLong();
    PfsOutputStream out = writer.create(path, CreateOptions.file());
    IOException failure = append(writer, out, key, size, acked);
    String array = DriveFailureTest.array(cluster, ONE_DRIVE_NODE).toString();
    System.out.println("[test] 24 MiB onto a target with one 3 MiB drive: " + (failure == null
        ? "closed" : failure) + "; node" + ONE_DRIVE_NODE + ": " + array);
    if (failure == null) {
      assertTrue(array.contains("\"DEGRADED\""), "every byte acknowledged, yet no drive"
          + " failed: where did slot 0's shards go? " + array);
      TestFiles.verify(cluster.root(), path, key, size);
    } else {
      assertEquals(acked.get(), TestFiles.status(cluster.root(), path).length());
      assertTrue(cluster.root().recoverLease(path));
      long length = TestFiles.status(cluster.root(), path).length();
      assertTrue(length >= acked.get());
      TestFiles.verify(cluster.root(), path, key, length);
    }
  }
}
