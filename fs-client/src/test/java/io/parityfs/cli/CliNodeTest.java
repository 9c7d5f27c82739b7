package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.registry.MoveProgress;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.targets.Retirements;
import io.parityfs.testing.MiniCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node lifecycle from the CLI on four nodes, ec:2+1 across them (docs/across-nodes.md §5):
 * {@code targets} shows a target that missed a write as needs-resync until a round of {@code
 * keeper} catches it up; {@code node drain} copies a live node's members off it (the target shows
 * draining, {@code reprotect --watch} shows the finished pass); {@code node remove} refuses the
 * node while it runs, and once it is stopped takes its target out of the registry; the node
 * returning is known as bad until {@code node reinstate}, after which {@code rebalance} moves
 * members back onto it. Content is keyed per file.
 */
class CliNodeTest {
  @TempDir
  static Path dir;
  static MiniCluster cluster;
  static CliRunner cli;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.start(dir.resolve("cluster"), 4, "raid6:4+2", 6);
    cli = new CliRunner(cluster.connectString());
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] put(String path, int n) throws Exception {
    byte[] data = new byte[n];
    new Random(path.hashCode()).nextBytes(data);
    Path local = Files.write(dir.resolve(path.replace('/', '_')), data);
    cli.ok("put", local.toString(), path);
    return data;
  }

  private static JsonNode target(String id) {
    for (JsonNode t : cli.ok("targets", "--json").json()) {
      if (t.get("id").asText().equals(id)) {
        return t;
      }
    }
    return null;
  }

  private static int nodeIndex(String target) {
    String node = target(target).get("nodeId").asText();
    for (int i = 0; i < cluster.nodes().size(); i++) {
      if (cluster.nodes().get(i).nodeId().equals(node)) {
        return i;
      }
    }
    throw new AssertionError("no node serves " + target);
  }

  private static List<String> layout(String path) {
    List<String> out = new ArrayList<>();
    cli.ok("stat", "--json", path).json().get("layout").get("targets")
        .forEach(t -> out.add(t.asText()));
    return out;
  }

  @Test
  void aNodeIsResyncedDrainedRemovedAndReinstated() throws Exception {
    List<String> ids = new ArrayList<>();
    cli.ok("targets", "--json").json().forEach(t -> ids.add(t.get("id").asText()));
    cli.ok("mkdir", "/p", "/e");
    cli.ok("setstripe", "--chunk-size", "256K", "--stripe-count", "3", "--across", "ec:2+1",
        "--targets", String.join(",", ids.subList(0, 3)), "/p");
    cli.ok("setstripe", "--chunk-size", "256K", "--stripe-count", "3", "--across", "ec:2+1",
        "/e");
    for (JsonNode t : cli.ok("targets", "--json").json()) {
      assertEquals("good", t.get("across").asText(), t.toString());
    }

    // needs-resync: a write that left a member out while its node was down
    String missed = ids.get(2);
    int missedNode = nodeIndex(missed);
    cluster.stopNode(missedNode);
    byte[] p;
    try {
      p = put("/p/x", 1_300_000);
      JsonNode t = target(missed);
      assertEquals("needs-resync", t.get("across").asText(), t.toString());
      assertEquals(1, t.get("filesToResync").asInt());
      assertTrue(cli.ok("targets").out().contains("needs-resync (1 file)"));
      // fsck: the groups missing a member are under-protected (exit 6), none torn or lost
      CliRunner.Run fsck = cli.fails(6, "fsck", "/p");
      assertTrue(fsck.out().contains("/p/x: group 0 UNDER_PROTECTED: "), fsck.out());
      assertTrue(fsck.out().contains(" 0 torn, 0 unavailable, 0 unrecoverable"), fsck.out());
      JsonNode checked = cli.fails(6, "fsck", "--json", "/p").json();
      // groups 0 and 1 each had a member there; group 2 (one data chunk) has none on it
      assertEquals(2, checked.get("underProtected").asLong(), checked.toString());
      assertEquals(1, checked.get("protected").asLong(), checked.toString());
    } finally {
      cluster.restartNode(missedNode);
      cluster.awaitTargets(4);
    }
    JsonNode round = cli.ok("keeper", "--once", "--json").json();
    assertEquals(1, round.get("filesCaughtUp").asInt(), round.toString());
    assertEquals("good", target(missed).get("across").asText());
    CliRunner.Run healthy = cli.ok("fsck");
    assertTrue(healthy.out().matches("(?s)checked \\d+ files? \\(1 with a policy across nodes\\),"
        + " 3 groups: 3 protected, 0 tail, 0 under-protected, 0 torn, 0 unavailable, 0 unrecoverable\\s*"),
        healthy.out());
    // a symbolic link has no data: fsck and the keeper walk past it (its ec layout is only its
    // directory's default, with no group behind it)
    cli.ok("ln", "-s", "x", "/p/x-link");
    assertEquals(healthy.out(), cli.ok("fsck").out());
    assertEquals(0, cli.ok("keeper", "--once", "--json").json().get("filesCaughtUp").asInt());
    // a member lost behind everyone's back (no record names it): fsck finds it, --repair
    // hands it to catch-up, which stores it again
    try (ParityClient c = cluster.client(Caller.of("root"))) {
      io.parityfs.meta.FileStatus x = c.namespace().getStatus("/p/x");
      io.parityfs.meta.ChunkMap map = io.parityfs.meta.ChunkMap.of(x.layout());
      String t = x.layout().targets().get(map.memberPosition(0, 2)); // group 0's parity
      assertTrue(c.nodes().delete(c.registry().target(t).orElseThrow().socketAddress(),
          io.parityfs.node.protocol.TargetId.of(t),
          new io.parityfs.node.protocol.ChunkId(x.id(), map.memberIndex(0, 2)),
          x.generation()));
    }
    CliRunner.Run lost = cli.fails(6, "fsck", "/p");
    assertTrue(lost.out().contains("/p/x: group 0 UNDER_PROTECTED: ") && lost.out().contains(
        ": missing"), lost.out());
    CliRunner.Run healed = cli.ok("fsck", "--repair", "/p");
    assertTrue(healed.out().contains("/p/x: 1 members handed to catch-up, 1 stored again")
        && healed.out().contains(" 3 protected, 0 tail, 0 under-protected"), healed.out());
    cli.ok("fsck", "/p");

    byte[] e = put("/e/y", 2_100_000);
    String drained = layout("/e/y").get(1);
    int drainedNode = nodeIndex(drained);
    String node = cluster.nodes().get(drainedNode).nodeId();
    CliRunner.Run drain = cli.ok("node", "drain", node.substring(0, 8));
    assertTrue(drain.out().contains("node " + node.substring(0, 8) + " drained"), drain.out());
    if (ids.subList(0, 3).contains(drained)) {
      assertTrue(drain.err().contains("/p: its layout names"), drain.err());
    }
    assertEquals("draining", target(drained).get("across").asText());
    assertFalse(layout("/e/y").contains(drained));
    assertFalse(layout("/p/x").contains(drained));
    CliRunner.Run watched = cli.ok("reprotect", "--watch", "--node", node);
    assertTrue(watched.out().contains(drained + ": drain done") && watched.out().contains(
        " left, "), watched.out());

    CliRunner.Run online = cli.fails(7, "node", "remove", node);
    assertTrue(online.err().contains("ONLINE"), online.err());
    cluster.stopNode(drainedNode);
    CliRunner.Run removed = cli.ok("node", "remove", node);
    assertTrue(removed.out().contains("1 targets out of the registry"), removed.out());
    assertEquals(null, target(drained), "out of the registry");
    assertArrayEquals(e, cli.ok("cat", "/e/y").outBytes());
    assertArrayEquals(p, cli.ok("cat", "/p/x").outBytes());

    // the node comes back: known as bad until reinstated
    cluster.restartNode(drainedNode);
    cluster.awaitTargets(3);
    io.parityfs.testkit.Eventually.passes("the returned target registers",
        java.time.Duration.ofSeconds(30), () -> {
          if (target(drained) == null) {
            throw new IllegalStateException("not yet");
          }
        });
    assertEquals("bad", target(drained).get("across").asText());
    assertTrue(cli.ok("node", "reinstate", node).out().contains("1 targets back in service"));
    assertEquals("good", target(drained).get("across").asText());

    // the reinstated target is empty: rebalance spreads the files back onto it
    JsonNode plan = cli.ok("rebalance", "--dry-run", "--json").json();
    assertTrue(plan.get("moves").asInt() > 0 && plan.get("dryRun").asBoolean(), plan.toString());
    CliRunner.Run balanced = cli.ok("rebalance");
    assertTrue(balanced.out().contains("rebalance: 4 targets") && balanced.out().contains(
        " -> " + drained), balanced.out());
    assertTrue(layout("/e/y").contains(drained) || layout("/p/x").contains(drained));
    assertArrayEquals(e, cli.ok("cat", "/e/y").outBytes());
    assertArrayEquals(p, cli.ok("cat", "/p/x").outBytes());
  }

  /** {@code keeper --metrics-port}: the endpoint tells whether it leads and counts its rounds. */
  @Test
  void theKeepersMetricsCountItsRounds() throws Exception {
    try (io.parityfs.client.ParityClient c = cluster.client(io.parityfs.meta.Caller.of("root"));
        io.parityfs.keeper.AcrossKeeper keeper = new io.parityfs.keeper.AcrossKeeper(c,
            java.time.Duration.ofMillis(100), 0).checkEvery(java.time.Duration.ofHours(1));
        KeeperMetrics metrics = KeeperMetrics.start("127.0.0.1", 0, keeper)) {
      keeper.start();
      io.parityfs.testkit.Eventually.passes("two rounds as leader", java.time.Duration
          .ofSeconds(30), () -> {
            if (keeper.status().rounds() < 2 || keeper.status().groups().isEmpty()) {
              throw new IllegalStateException(keeper.status().toString());
            }
          });
      java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
              + metrics.port() + "/metrics")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
      assertTrue(r.body().contains("parityfs_keeper_leading 1.0"), r.body());
      assertTrue(r.body().lines().anyMatch(l -> l.startsWith("parityfs_keeper_rounds_total ")
          && Double.parseDouble(l.split(" ")[1]) >= 2), r.body());
      assertTrue(r.body().contains("parityfs_keeper_members_caught_up_total"), r.body());
      // the check of every group, once an hour: every state counted, none unseen
      assertTrue(r.body().lines().anyMatch(l -> l.startsWith(
          "parityfs_keeper_groups{state=\"protected\"} ")), r.body());
      assertTrue(r.body().contains("parityfs_keeper_groups{state=\"torn\"} 0.0"), r.body());
      assertEquals(keeper.status().groups().get(io.parityfs.keeper.GroupCheck.State.PROTECTED),
          keeper.status().groups().values().stream().mapToLong(Long::longValue).sum(),
          keeper.status().groups().toString());
    }
  }

  /**
   * {@code reprotect --watch} over a pass it first sees running and then done with files left:
   * the final line is printed and the exit is 6 (before, a target seen running was skipped once
   * done: no final line, exit 0). The pass is flipped to done only after the watcher printed
   * its running line, so the order is the same every run.
   */
  @Test
  void reprotectWatchPrintsTheFinalLineAndFailsWithFilesLeft() throws Exception {
    String t = "watched-target";
    CountDownLatch sawRunning = new CountDownLatch(1);
    ByteArrayOutputStream out = new ByteArrayOutputStream() {
      @Override
      public synchronized void write(byte[] b, int off, int len) {
        super.write(b, off, len);
        if (toString(StandardCharsets.UTF_8).contains(t + ": reprotect running")) {
          sawRunning.countDown();
        }
      }
    };
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (ParityClient c = cluster.client(Caller.of("root"))) {
      Retirements r = new Retirements(c.registry());
      long now = System.currentTimeMillis();
      r.recordProgress(new MoveProgress(RegistryCodec.SCHEMA, t, "test", "reprotect", 1, 3, 2,
          4096, now, now, false));
      Thread finisher = new Thread(() -> {
        try {
          if (sawRunning.await(60, TimeUnit.SECONDS)) {
            r.recordProgress(new MoveProgress(RegistryCodec.SCHEMA, t, "test", "reprotect", 2, 2,
                4, 8192, now, now + 1000, true));
          }
        } catch (InterruptedException | NamespaceException e) {
          throw new IllegalStateException(e);
        }
      });
      finisher.start();
      int rc;
      try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
          PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
        rc = Main.run(new String[] {"--zookeeper", cluster.connectString(), "--user", "root",
            "reprotect", "--watch", "--interval", "0.1", "--target", t},
            new ByteArrayInputStream(new byte[0]), o, e, false);
      }
      finisher.join(60_000);
      String printed = out.toString(StandardCharsets.UTF_8);
      String why = err.toString(StandardCharsets.UTF_8);
      assertTrue(printed.contains(t + ": reprotect done: 2 files moved, 2 left"), printed);
      assertEquals(6, rc, printed + why);
      assertTrue(why.contains("2 files were left unprotected"), why);
    }
  }
}
