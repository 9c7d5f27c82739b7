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
 * The drive commands on a cluster of its own (one node, RAID-6 4+2 over six folders), since they
 * degrade an array: fail-drive, drives showing the failed slot, replace-drive with a new empty
 * folder, rebuild --watch to the end, the data read back exact.
 */
class CliAdminTest {
  @TempDir
  static Path dir;
  static MiniCluster cluster;
  static CliRunner cli;
  static String target;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.start(dir.resolve("cluster"), 1, "raid6:4+2", 6);
    cli = new CliRunner(cluster.connectString());
    target = cli.ok("targets", "--json").json().get(0).get("id").asText();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void failReplaceRebuild() throws Exception {
    // one target: files stripe over one
    cli.ok("setstripe", "--stripe-count", "1", "--chunk-size", "256K", "/");
    byte[] data = new byte[6_000_000]; // 23 chunks: a rebuild of some length
    new Random(11).nextBytes(data);
    Path f = Files.write(dir.resolve("data.bin"), data);
    cli.ok("put", f.toString(), "/data.bin");

    // an empty prefix is every target's: refused, naming the candidates, nothing failed
    CliRunner.Run empty = cli.fails(2, "fail-drive", "", "1");
    assertTrue(empty.err().contains("empty target prefix") && empty.err().contains(target),
        empty.err());
    assertEquals("OPTIMAL", cli.ok("drives", "--json", target).json().get("state").asText());

    CliRunner.Run failed = cli.ok("fail-drive", target, "2");
    assertTrue(failed.out().startsWith("slot 2 of target " + target + " failed; array DEGRADED"),
        failed.out());
    JsonNode drives = cli.ok("drives", "--json", target).json();
    assertEquals("DEGRADED", drives.get("state").asText());
    assertEquals("FAILED", drives.get("drives").get(2).get("state").asText());
    assertEquals("ONLINE", drives.get("drives").get(1).get("state").asText());
    String table = cli.ok("drives", target).out();
    assertTrue(table.lines().anyMatch(l -> l.matches("\\s*2\\s+FAILED\\s+.*")), table);
    // degraded reads are exact
    assertArrayEquals(data, cli.ok("cat", "/data.bin").outBytes());

    // errors: a failed slot again (state), a slot out of range (usage), an unknown target
    CliRunner.Run again = cli.fails(7, "fail-drive", target, "2");
    assertTrue(again.err().startsWith("parityfs: fail-drive: " + target + ": ILLEGAL_STATE"),
        again.err());
    cli.fails(2, "fail-drive", target, "99");
    cli.fails(3, "fail-drive", "00000000-dead-beef-0000-000000000000", "1");
    cli.fails(7, "replace-drive", target, "1", dir.resolve("unused").toString()); // online slot

    Path fresh = Files.createDirectories(dir.resolve("new-drive"));
    CliRunner.Run replaced = cli.ok("replace-drive", target, "2", fresh.toString(), "--watch",
        "--interval", "0.1");
    assertTrue(replaced.out().contains("replaced by " + fresh), replaced.out());
    // periodic lines (not a terminal), then the end
    assertTrue(replaced.out().lines().anyMatch(l -> l.startsWith("rebuild slot 2: DONE")),
        replaced.out());

    JsonNode after = awaitOptimal();
    assertEquals(fresh.toString(), after.get("drives").get(2).get("path").asText());
    assertArrayEquals(data, cli.ok("cat", "/data.bin").outBytes());
    JsonNode t = cli.ok("targets", "--json").json().get(0);
    assertEquals("ONLINE", t.get("reachability").asText());

    // nothing running now: rebuild shows what ended (or nothing) and exits 0
    CliRunner.Run idle = cli.ok("rebuild", "--json", target);
    for (JsonNode task : idle.json().get("tasks")) {
      assertEquals("DONE", task.get("state").asText());
    }
    CliRunner.Run none = cli.ok("rebuild", "--watch", "--interval", "0.2", target);
    assertTrue(none.out().contains("no rebuild running on target " + target + "; array OPTIMAL"),
        none.out());
    // stopping what is not running is no error
    cli.ok("rebuild", "--stop", target);
    JsonNode stopped = cli.ok("scrub", "--stop", "--json", target).json();
    assertEquals(target, stopped.get("target").asText());
  }

  /** The array goes OPTIMAL when the rebuild has finished the slot. */
  private static JsonNode awaitOptimal() throws InterruptedException {
    long end = System.nanoTime() + 20_000_000_000L;
    while (true) {
      JsonNode d = cli.ok("drives", "--json", target).json();
      if (d.get("state").asText().equals("OPTIMAL") || System.nanoTime() > end) {
        assertEquals("OPTIMAL", d.get("state").asText(), d.toString());
        return d;
      }
      Thread.sleep(100);
    }
  }
}
