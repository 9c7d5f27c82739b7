package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parityfs.testing.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code repair} on three nodes with ec:2+1 across them: a file put while a node is down is
 * placed degraded from birth and recorded ({@code stat} shows the record); repair waits (exit 6)
 * while the node is down, catches the file up once it is back (exit 0), and the file then reads
 * with another node down.
 */
class CliRepairTest {
  @TempDir
  static Path dir;
  static MiniCluster cluster;
  static CliRunner cli;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.start(dir.resolve("cluster"), 3, "raid6:4+2", 6);
    cli = new CliRunner(cluster.connectString());
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aFileWrittenWithANodeDownIsCaughtUpOnceItReturns() throws Exception {
    cli.ok("mkdir", "/e");
    cli.ok("setstripe", "--chunk-size", "256K", "--stripe-count", "3", "--across", "ec:2+1",
        "/e");
    byte[] data = new byte[3_000_000];
    new Random(17).nextBytes(data);
    Path local = Files.write(dir.resolve("data.bin"), data);
    cluster.stopNode(2);
    try {
      cli.ok("put", local.toString(), "/e/f");
      JsonNode st = cli.ok("stat", "--json", "/e/f").json();
      assertEquals(1, st.get("repairs").size(), st.toString());
      String stale = st.get("repairs").get(0).get("target").asText();
      assertTrue(cli.ok("stat", "/e/f").out().contains("repairs:     "), "stat shows it");
      CliRunner.Run waiting = cli.fails(6, "repair", "-r", "/");
      assertTrue(waiting.out().contains("0 members caught up") && waiting.err().contains(
          "wait for their targets"), waiting.out() + waiting.err());
      assertEquals(stale, cli.ok("stat", "--json", "/e/f").json().get("repairs").get(0)
          .get("target").asText(), "still recorded");
      assertArrayEquals(data, cli.ok("cat", "/e/f").outBytes(), "read degraded");
    } finally {
      cluster.restartNode(2);
      cluster.awaitTargets(3);
    }
    CliRunner.Run dirOnly = cli.fails(1, "repair", "/e");
    assertTrue(dirOnly.err().contains("IS_A_DIRECTORY"), dirOnly.err());
    // the node's target is suspect to nobody here: each command is a new client
    CliRunner.Run done = cli.ok("repair", "-r", "/");
    assertTrue(done.out().contains("/e/f: 6 members caught up, 0 waiting"), done.out());
    assertEquals(0, cli.ok("stat", "--json", "/e/f").json().get("repairs").size());
    JsonNode again = cli.ok("repair", "--json", "-r", "/e").json();
    assertEquals(0, again.get("repaired").asLong(), again.toString());
    assertEquals(1, again.get("files").asLong());
    cluster.stopNode(0);
    try {
      assertArrayEquals(data, cli.ok("cat", "/e/f").outBytes(), "read with the repaired members");
    } finally {
      cluster.restartNode(0);
      cluster.awaitTargets(3);
    }
  }

  private static int nodeIndex(String target) throws Exception {
    String node = null;
    for (JsonNode t : cli.ok("targets", "--json").json()) {
      if (t.get("id").asText().equals(target)) {
        node = t.get("nodeId").asText();
      }
    }
    for (int i = 0; i < cluster.nodes().size(); i++) {
      if (cluster.nodes().get(i).nodeId().equals(node)) {
        return i;
      }
    }
    throw new AssertionError("no node serves " + target);
  }

  /**
   * {@code reprotect}: a mirror:2 file on two of the three nodes, one lost for good; its copies
   * are rebuilt on the third node and the layout switched, so the file then reads with its other
   * original node down too. A target still online is refused.
   */
  @Test
  void reprotectRebuildsALostTargetsCopiesOnTheThirdNode() throws Exception {
    cli.ok("mkdir", "/m");
    cli.ok("setstripe", "--chunk-size", "256K", "--stripe-count", "2", "--across", "mirror:2",
        "/m");
    byte[] data = new byte[1_500_000];
    new Random(19).nextBytes(data);
    cli.ok("put", Files.write(dir.resolve("m.bin"), data).toString(), "/m/f");
    JsonNode layout = cli.ok("stat", "--json", "/m/f").json().get("layout");
    String lost = layout.get("targets").get(0).asText();
    String kept = layout.get("targets").get(1).asText();
    CliRunner.Run online = cli.fails(7, "reprotect", "--target", lost);
    assertTrue(online.err().contains("ONLINE"), online.err());
    cli.ok("mkdir", "/m3");
    cli.ok("setstripe", "--chunk-size", "256K", "--stripe-count", "3", "--across", "mirror:3",
        "/m3");
    cli.ok("put", dir.resolve("m.bin").toString(), "/m3/f");
    int lostNode = nodeIndex(lost);
    int keptNode = nodeIndex(kept);
    cluster.stopNode(lostNode);
    try {
      // mirror:3 on 3 nodes: no fourth failure domain can take the lost copies; say so
      CliRunner.Run none = cli.fails(6, "reprotect", "--target", lost, "/m3");
      assertTrue(none.err().contains("1 files have no target that can take their members")
          && none.err().contains("add a node"), none.err());
      assertTrue(!none.err().contains("once they are closed"), none.err());
      CliRunner.Run r = cli.ok("reprotect", "--target", lost, "/m"); // /e has no 4th node
      assertTrue(r.out().contains("1 moved") && r.out().contains("/m/f: 6 members rebuilt"),
          r.out());
      JsonNode after = cli.ok("stat", "--json", "/m/f").json().get("layout").get("targets");
      assertEquals(kept, after.get(1).asText(), "the surviving copy stays in place");
      assertTrue(!after.get(0).asText().equals(lost), after.toString());
      JsonNode again = cli.ok("reprotect", "--json", "--target", lost, "/m").json();
      assertEquals(0, again.get("files").asLong(), "nothing left on the lost target");
      cluster.stopNode(keptNode);
      try {
        assertArrayEquals(data, cli.ok("cat", "/m/f").outBytes(), "from the rebuilt copies");
      } finally {
        cluster.restartNode(keptNode);
      }
    } finally {
      cluster.restartNode(lostNode);
      cluster.awaitTargets(3);
    }
  }
}
