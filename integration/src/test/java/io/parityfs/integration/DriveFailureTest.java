package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.TargetId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives failing under load, through the admin API (what {@code parityfs fail-drive} and {@code
 * replace-drive} send): with up to m = 2 drives failed per RAID-6 array, reads and writes go on
 * without a single error and every byte read is right; after replace-drive onto fresh, empty
 * folders the arrays rebuild to OPTIMAL (targets GOOD). Then two other drives of an array are
 * failed, so that its reads must reconstruct from the rebuilt drives, and every byte is read
 * again.
 */
class DriveFailureTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), DriveFailureTest.class);
    cluster.mkdirs("/drives");
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The ARRAY_STATUS entry of node {@code i}'s target. */
  static JsonNode array(TestCluster cluster, int i) throws IOException {
    JsonNode all = JSON.readTree(cluster.arrayStatus(i));
    return all.path("targets").get(0);
  }

  static void failDrive(TestCluster cluster, int node, int slot) throws IOException {
    System.out.println("[test] " + java.time.Instant.now() + " fail-drive node" + node + " slot "
        + slot);
    TargetInfo t = cluster.target(node);
    JsonNode e = JSON.readTree(cluster.root().nodes().admin().failDrive(t.socketAddress(),
        TargetId.of(t.id()), slot));
    assertEquals("FAILED", e.path("drives").get(slot).path("state").asText(), e.toString());
  }

  /** Replaces {@code slot} of node {@code i} with a new empty folder next to its drives. */
  static void replaceDrive(TestCluster cluster, int node, int slot, String name)
      throws IOException {
    System.out.println("[test] " + java.time.Instant.now() + " replace-drive node" + node
        + " slot " + slot + " " + name);
    Path fresh = cluster.local().dir().resolve(cluster.local().nodeName(node)).resolve(name);
    Files.createDirectories(fresh);
    TargetInfo t = cluster.target(node);
    JsonNode e = JSON.readTree(cluster.root().nodes().admin().replaceDrive(t.socketAddress(),
        TargetId.of(t.id()), slot, fresh.toString(), 0));
    assertEquals(fresh.toString(), e.path("drives").get(slot).path("path").asText(),
        e.toString());
  }

  static boolean optimal(TestCluster cluster, int node) {
    try {
      JsonNode a = array(cluster, node);
      if (!a.path("state").asText().equals("OPTIMAL")) {
        return false;
      }
      for (JsonNode d : a.path("drives")) {
        if (!d.path("state").asText().equals("ONLINE")) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Writers and readers running until stopped, every failure recorded. */
  private static final class Load implements AutoCloseable {
    final ParityClient client;
    final AtomicBoolean stop = new AtomicBoolean();
    final Map<String, Long> written = new ConcurrentHashMap<>();
    final AtomicInteger ops = new AtomicInteger();
    final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    final List<Thread> threads = new ArrayList<>();

    Load(ParityClient client, Map<String, Long> existing) {
      this.client = client;
      written.putAll(existing);
      for (int w = 0; w < 2; w++) {
        int me = w;
        threads.add(new Thread(() -> {
          for (int n = 0; !stop.get(); n++) {
            String path = "/drives/load" + me + "-" + n;
            long size = (3L << 20) + ThreadLocalRandom.current().nextInt(1 << 20);
            try {
              TestFiles.write(client, path, path, size, 1 << 20, x -> ops.incrementAndGet());
              written.put(path, size);
              System.out.println("[test] " + java.time.Instant.now() + " wrote " + path + " id "
                  + client.namespace().getStatus(path).id());
            } catch (Throwable e) {
              errors.add(e);
              return;
            }
          }
        }, "writer " + w));
      }
      for (int r = 0; r < 2; r++) {
        threads.add(new Thread(() -> {
          while (!stop.get()) {
            List<String> paths = new ArrayList<>(written.keySet());
            String path = paths.get(ThreadLocalRandom.current().nextInt(paths.size()));
            try (PfsInputStream in = client.open(path)) {
              assertEquals((long) written.get(path), TestFiles.check(in, path, path));
              TestFiles.preadRandom(in, path, path, written.get(path));
              ops.incrementAndGet();
            } catch (Throwable e) {
              errors.add(e);
              return;
            }
          }
        }, "reader " + r));
      }
      threads.forEach(Thread::start);
    }

    /** Waits until the load did {@code n} more operations, failing on any error. */
    void progress(int n, String phase) {
      int until = ops.get() + n;
      cluster.await(n + " reads and hsyncs " + phase, Duration.ofSeconds(120),
          () -> ops.get() >= until || !errors.isEmpty());
      check();
    }

    void check() {
      if (!errors.isEmpty()) {
        AssertionError e = new AssertionError("the load failed: " + errors.peek()
            + cluster.logTails(), errors.peek());
        errors.forEach(e::addSuppressed);
        throw e;
      }
    }

    @Override
    public void close() {
      stop.set(true);
      for (Thread t : threads) {
        try {
          t.join(120_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted stopping the load", e);
        }
        assertTrue(!t.isAlive(), t.getName() + " hangs");
      }
    }
  }

  @Test
  void degradedArraysServeEveryByteAndRebuildToGood() throws Exception {
    Map<String, Long> base = new ConcurrentHashMap<>();
    for (int i = 0; i < 4; i++) {
      String path = "/drives/base" + i;
      long size = (4L << 20) + i * 65537;
      TestFiles.write(cluster.root(), path, path, size, 0, n -> { });
      base.put(path, size);
    }
    int[][] failed = {{1}, {0, 5}, {2, 3}};
    Map<String, Long> all;
    try (ParityClient c = cluster.client(); Load load = new Load(c, base)) {
      load.progress(10, "before any failure");
      for (int node = 0; node < 3; node++) {
        for (int slot : failed[node]) {
          failDrive(cluster, node, slot);
          load.progress(6, "after failing slot " + slot + " of node" + node);
        }
      }
      for (int node = 0; node < 3; node++) {
        assertEquals("DEGRADED", array(cluster, node).path("state").asText(), "node" + node);
      }
      load.progress(20, "with every array degraded");
      for (int node = 0; node < 3; node++) {
        for (int slot : failed[node]) {
          replaceDrive(cluster, node, slot, "new" + slot);
        }
      }
      load.progress(10, "while rebuilding");
      cluster.await("every array rebuilt to OPTIMAL", Duration.ofSeconds(120),
          () -> optimal(cluster, 0) && optimal(cluster, 1) && optimal(cluster, 2)
              || !load.errors.isEmpty());
      load.check();
      load.progress(10, "after the rebuild");
      load.close();
      load.check();
      all = Map.copyOf(load.written);
    }
    cluster.awaitHealthy(true, Duration.ofSeconds(60));
    verifyAll(all, "after the rebuild");
    // node1's data must now come from its rebuilt slots 0 and 5 (with 3 and 4)
    failDrive(cluster, 1, 1);
    failDrive(cluster, 1, 2);
    verifyAll(all, "with node1 reading from its rebuilt drives");
    replaceDrive(cluster, 1, 1, "newer1");
    replaceDrive(cluster, 1, 2, "newer2");
    cluster.await("node1 rebuilt again", Duration.ofSeconds(120), () -> optimal(cluster, 1));
    cluster.awaitHealthy(true, Duration.ofSeconds(60));
    verifyAll(all, "after the second rebuild");
    System.out.println("[test] files verified: " + all.size());
  }

  private static void verifyAll(Map<String, Long> files, String when) throws IOException {
    for (Map.Entry<String, Long> f : files.entrySet()) {
      try {
        TestFiles.verify(cluster.root(), f.getKey(), f.getKey(), f.getValue());
      } catch (AssertionError | IOException e) {
        throw new AssertionError(when + ": " + e.getMessage() + cluster.logTails(), e);
      }
    }
  }
}
