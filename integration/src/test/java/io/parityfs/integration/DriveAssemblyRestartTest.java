package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * A node restarted with its drives changed under it, as after a reboot: a drive pulled (its
 * folder gone), two drives whose paths swapped (device names that moved), and an old drive put
 * back after the array went on without it. Assembly is by the drives' labels, never by their
 * order in the node's configuration: a missing drive leaves the target DEGRADED, swapped drives
 * leave it OPTIMAL with each label in its own slot, and a stale drive is refused (STALE_DRIVE,
 * logged) and its slot stays FAILED; every byte of every file reads back right throughout.
 */
class DriveAssemblyRestartTest {
  @TempDir
  static Path dir;
  static TestCluster cluster;
  private static final Map<String, Long> files = new LinkedHashMap<>();

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), DriveAssemblyRestartTest.class);
    cluster.mkdirs("/asm");
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void write(String path, long size) throws IOException {
    TestFiles.write(cluster.root(), path, ExpectedBytes.key(path, "w"), size, 1 << 20, n -> { });
    files.put(path, size);
  }

  private static void verifyAll(String when) throws IOException {
    for (Map.Entry<String, Long> f : files.entrySet()) {
      try {
        TestFiles.verify(cluster.root(), f.getKey(), ExpectedBytes.key(f.getKey(), "w"),
            f.getValue());
      } catch (AssertionError | IOException e) {
        throw new AssertionError(when + ": " + e.getMessage() + cluster.logTails(), e);
      }
    }
  }

  private static void restart(int node, IoAction whileStopped) throws IOException {
    cluster.local().stopNode(node, Duration.ofSeconds(30));
    whileStopped.run();
    cluster.restartNode(node);
    // its target is registered before the node finished starting (admin requests are refused
    // ILLEGAL_STATE "node is STARTING" meanwhile)
    cluster.await("node" + node + " answers ARRAY_STATUS", Duration.ofSeconds(60), () -> {
      try {
        array(node);
        return true;
      } catch (IOException e) {
        return false;
      }
    });
  }

  private interface IoAction {
    void run() throws IOException;
  }

  private static JsonNode array(int node) throws IOException {
    return DriveFailureTest.array(cluster, node);
  }

  private static String slotState(JsonNode a, int slot) {
    return a.path("drives").get(slot).path("state").asText();
  }

  /** The lines of node {@code i}'s log that name {@code text}. */
  private static List<String> logLines(int node, String text) throws IOException {
    return Files.readAllLines(cluster.local().nodeProcess(node).log(), StandardCharsets.UTF_8)
        .stream().filter(l -> l.contains(text)).toList();
  }

  @Test
  void aPulledDriveLeavesTheTargetDegradedAndPutBackStaleItIsRefused() throws Exception {
    int node = 0;
    int slot = 2;
    for (int i = 0; i < 3; i++) {
      write("/asm/pull-before" + i, (3L << 20) + i * 4099);
    }
    Path drive = cluster.local().drive(node, slot);
    Path pulled = drive.resolveSibling(drive.getFileName() + ".pulled");
    restart(node, () -> Files.move(drive, pulled));
    JsonNode a = array(node);
    assertEquals("DEGRADED", a.path("state").asText(), a.toString());
    assertEquals("FAILED", slotState(a, slot), a.toString());
    verifyAll("with a drive pulled");
    // the array goes on without it: these files' shards of slot 2 exist nowhere
    for (int i = 0; i < 2; i++) {
      write("/asm/pull-during" + i, (2L << 20) + i * 777);
    }
    verifyAll("written degraded");
    int staleLinesBefore = logLines(node, "STALE_DRIVE").size();
    restart(node, () -> Files.move(pulled, drive)); // the old drive put back
    a = array(node);
    System.out.println("[test] node" + node + " with the stale drive back: " + a);
    assertEquals("DEGRADED", a.path("state").asText(), "the stale drive was taken: " + a);
    assertEquals("FAILED", slotState(a, slot), a.toString());
    List<String> stale = logLines(node, "STALE_DRIVE");
    assertTrue(stale.size() > staleLinesBefore && stale.get(stale.size() - 1)
        .contains(drive.toString()), "the refusal of " + drive + " is not logged: " + stale);
    verifyAll("with the stale drive put back");
    write("/asm/pull-after", 3L << 20);
    verifyAll("after the stale drive was refused");
  }

  @Test
  void twoDrivesSwappedAreAssembledByTheirLabels() throws Exception {
    int node = 1;
    for (int i = 0; i < 3; i++) {
      write("/asm/swap-before" + i, (3L << 20) + i * 65537);
    }
    Path one = cluster.local().drive(node, 1);
    Path four = cluster.local().drive(node, 4);
    Path tmp = one.resolveSibling("swapping");
    restart(node, () -> {
      Files.move(one, tmp);
      Files.move(four, one);
      Files.move(tmp, four);
    });
    cluster.await("node" + node + " OPTIMAL after the swap", Duration.ofSeconds(30),
        () -> DriveFailureTest.optimal(cluster, node));
    JsonNode a = array(node);
    System.out.println("[test] node" + node + " after the swap: " + a);
    assertEquals(four.toString(), a.path("drives").get(1).path("path").asText(),
        "slot 1's label is in the folder named drive4 now: " + a);
    assertEquals(one.toString(), a.path("drives").get(4).path("path").asText(), a.toString());
    verifyAll("with two drives swapped");
    write("/asm/swap-after", 3L << 20);
    verifyAll("after writing to the swapped array");
  }
}
