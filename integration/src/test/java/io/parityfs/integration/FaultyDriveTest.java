package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Layout;
import io.parityfs.testkit.SystemDeps;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drive that fails on its own, through the wire: drive 0 of two child-process nodes is a
 * {@link FaultFs} mount (a FUSE pass-through), switched to answer fsync with EIO (node2) or the
 * creation of a manifest's temp file with ENOSPC, in the middle of a commit after every shard is
 * durable (node1). Each of those targets is alone in a pool, so a file's chunks go where the test
 * says; the file system logs every fault it injects, and each test checks that its fault fired.
 *
 * <p>What must hold: the write ends with a clear error, or completes degraded with the failed
 * drive marked FAILED (never an acknowledgement that counts a shard whose fsync failed); the
 * committed length is the last acknowledged one and every committed byte reads back; the
 * version before the faulty append stays readable; once the fault is gone the target takes new
 * writes. Needs root, /dev/fuse, gcc and libfuse-dev (see {@link FaultFs#missing}).
 */
class FaultyDriveTest {
  private static final int CHUNK = 1 << 20;
  private static final long HSYNC = 512 << 10;
  private static final int FSYNC_NODE = 2;
  private static final int MANIFEST_NODE = 1;

  @TempDir
  static Path dir;
  static TestCluster cluster;
  static ParityClient writer;
  static FaultFs fsyncDrive;
  static FaultFs manifestDrive;
  /** Why every test skips, or null. */
  static String skipped;

  @BeforeAll
  static void start() throws Exception {
    skipped = FaultFs.missing();
    if (skipped != null) {
      return;
    }
    cluster = TestCluster.start(dir.resolve("cluster"), FaultyDriveTest.class, 1, c -> {
      try {
        fsyncDrive = FaultFs.mount(c.drive(FSYNC_NODE, 0), dir.resolve("faultfs-fsync"));
        manifestDrive = FaultFs.mount(c.drive(MANIFEST_NODE, 0),
            dir.resolve("faultfs-manifest"));
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      c.updateNodeConfig(FSYNC_NODE, Map.of("target.t.pool", "fsync"));
      c.updateNodeConfig(MANIFEST_NODE, Map.of("target.t.pool", "manifest"));
    });
    writer = ParityClient.connect(cluster.local().clientConfig().build(),
        Caller.of("root"));
    for (String pool : List.of("fsync", "manifest")) {
      cluster.root().namespace().mkdirs("/" + pool, CreateOptions.directory()
          .withLayout(new Layout(CHUNK, 1, List.of(), "raid6:4+2", Across.NONE, pool)));
    }
  }

  @BeforeEach
  void skipWithoutFaultFs() {
    SystemDeps.skipIf(skipped);
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
      for (FaultFs f : new FaultFs[] {fsyncDrive, manifestDrive}) {
        if (f != null) {
          f.close();
        }
      }
    }
  }

  /**
   * Appends up to {@code until} bytes of {@code key} with an hsync every {@link #HSYNC}, in a
   * thread joined within 120 s; returns the IOException that ended it (null when it closed);
   * {@code acked} hears each acknowledged length.
   */
  private static IOException append(PfsOutputStream out, String key, long until,
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
    assertFalse(t.isAlive(), "the writer hangs on a faulty drive" + cluster.logTails());
    return failure[0];
  }

  /**
   * The checks both faults share, after an append of {@code v2} at {@code base} onto a file
   * of {@code v1} ended with {@code failure} (null: closed) at {@code acked}: the committed
   * length is the acknowledged one (on an error), lease recovery keeps every acknowledged byte
   * and every byte read is the right writer's; the version before the append reads back.
   */
  private static void verifyAfter(String path, String v1, String v2, long base,
      IOException failure, long acked) throws IOException {
    if (failure != null) {
      assertTrue(failure.getMessage() != null && !failure.getMessage().isBlank(),
          "a clear error: " + failure);
      assertEquals(acked, TestFiles.status(cluster.root(), path).length(),
          "the committed length is the last acknowledged one");
      assertTrue(cluster.root().recoverLease(path), "lease recovery");
    }
    long length = TestFiles.status(cluster.root(), path).length();
    assertTrue(length >= acked, "committed " + length + " < acknowledged " + acked);
    TestFiles.verify(cluster.root(), path, TestFiles.Content.of(v1).then(base, v2), length);
    try (var in = cluster.root().open(path)) {
      byte[] b = new byte[(int) base];
      assertEquals(base, in.read(0, b, 0, b.length));
      assertEquals(-1, ExpectedBytes.firstMismatch(v1, 0, b, 0, b.length),
          "the version before the append");
    }
  }

  @Test
  void fsyncEioOnADriveFailsTheDriveOrTheWriteAndKeepsEveryAcknowledgedByte()
      throws Exception {
    String path = "/fsync/f";
    String v1 = ExpectedBytes.key(path, "v1");
    String v2 = ExpectedBytes.key(path, "v2");
    long base = 2L * CHUNK + 12345;
    TestFiles.write(writer, path, v1, base, 0, n -> { });
    assertEquals(List.of(), fsyncDrive.injected());
    fsyncDrive.set(FaultFs.Fault.FSYNC_EIO, true);
    AtomicLong acked = new AtomicLong(base);
    IOException failure = append(writer.append(path), v2, base + 6L * CHUNK, acked);
    fsyncDrive.set(FaultFs.Fault.FSYNC_EIO, false);
    JsonNode array = DriveFailureTest.array(cluster, FSYNC_NODE);
    List<String> injected = fsyncDrive.injected();
    System.out.println("[test] the append with fsync EIO on node" + FSYNC_NODE + "'s drive 0: "
        + (failure == null ? "closed" : failure) + ", acknowledged " + acked.get() + "; "
        + injected.size() + " EIO answers; array " + array);
    assertFalse(injected.isEmpty(), "faultfs answered no fsync with EIO: the test tested nothing");
    if (acked.get() > base) {
      // an acknowledgement after the EIO: it must not count drive 0's shards
      assertEquals("FAILED", array.path("drives").get(0).path("state").asText(),
          "bytes acknowledged past an fsync that failed, yet drive 0 is not FAILED: " + array);
    }
    verifyAfter(path, v1, v2, base, failure, acked.get());
  }

  @Test
  void enospcOnTheManifestMidCommitFailsClearlyAndKeepsTheOldVersion() throws Exception {
    String path = "/manifest/f";
    String v1 = ExpectedBytes.key(path, "v1");
    String v2 = ExpectedBytes.key(path, "v2");
    long base = CHUNK + 4321;
    TestFiles.write(writer, path, v1, base, 0, n -> { });
    manifestDrive.set(FaultFs.Fault.MANIFEST_ENOSPC, true);
    AtomicLong acked = new AtomicLong(base);
    IOException failure = append(writer.append(path), v2, base + 3L * CHUNK, acked);
    List<String> injected = manifestDrive.injected();
    JsonNode array = DriveFailureTest.array(cluster, MANIFEST_NODE);
    System.out.println("[test] the append with ENOSPC on node" + MANIFEST_NODE
        + "'s drive 0 manifests: " + (failure == null ? "closed" : failure) + ", acknowledged "
        + acked.get() + "; injected " + injected + "; array " + array);
    assertFalse(injected.isEmpty(), "faultfs refused no manifest: the test tested nothing");
    if (failure != null) {
      assertTrue(failure.getMessage().toLowerCase().matches(".*(space|full|no_space).*"),
          "the error says the drive is full: " + failure);
    }
    verifyAfter(path, v1, v2, base, failure, acked.get());
    // the fault gone, the target takes a new file again
    manifestDrive.set(FaultFs.Fault.MANIFEST_ENOSPC, false);
    String after = "/manifest/after";
    String key = ExpectedBytes.key(after, "w");
    TestFiles.write(writer, after, key, 2L * CHUNK + 7, HSYNC, n -> { });
    TestFiles.verify(cluster.root(), after, key, 2L * CHUNK + 7);
  }
}
