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
}
