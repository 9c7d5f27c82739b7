package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parityfs.testing.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    // periodic lines (not a terminal), then the end: the rebuild's result, not the last poll
    // (issue 39 item 5: "DONE - 0 B / 0 B" after a rebuild faster than the first poll)
    List<String> lines = replaced.out().lines().toList();
    assertResult(lines.get(lines.size() - 1), replaced.out());

    JsonNode after = awaitOptimal();
    assertEquals(fresh.toString(), after.get("drives").get(2).get("path").asText());
    assertArrayEquals(data, cli.ok("cat", "/data.bin").outBytes());
    JsonNode t = cli.ok("targets", "--json").json().get(0);
    assertEquals("ONLINE", t.get("reachability").asText());

    // nothing running now: rebuild shows what ended, with its result, and exits 0; so does
    // a watch whose first poll comes after the end
    JsonNode idle = cli.ok("rebuild", "--json", target).json().get("tasks");
    assertEquals(1, idle.size(), idle.toString());
    JsonNode done = idle.get(0);
    assertEquals("DONE", done.get("state").asText());
    assertEquals(2, done.get("slot").asInt());
    assertTrue(done.get("bytesDone").asLong() > 0, done.toString());
    assertEquals(done.get("bytesTotal").asLong(), done.get("bytesDone").asLong());
    assertTrue(done.get("objectsDone").asLong() > 0, done.toString());
    assertEquals(done.get("objectsTotal").asLong(), done.get("objectsDone").asLong());
    assertEquals(0, done.get("objectsLost").asLong());
    assertTrue(done.get("elapsedSeconds").asDouble() > 0, done.toString());
    String human = cli.ok("rebuild", target).out();
    assertResult(human.strip(), human);
    assertTrue(human.contains(" " + done.get("objectsDone").asLong() + "/"), human);
    CliRunner.Run none = cli.ok("rebuild", "--watch", "--interval", "0.2", target);
    List<String> watched = none.out().lines().toList();
    assertResult(watched.get(0), none.out());
    assertEquals("no rebuild running on target " + target + "; array OPTIMAL", watched.get(1),
        none.out());
    // stopping what is not running is no error
    cli.ok("rebuild", "--stop", target);
    JsonNode stopped = cli.ok("scrub", "--stop", "--json", target).json();
    assertEquals(target, stopped.get("target").asText());
  }

  /** A rebuild's final line: what it rebuilt (not nothing), how many objects, in how long. */
  private static void assertResult(String line, String all) {
    Matcher m = Pattern.compile("rebuild slot 2: DONE  (.+) / (.+)"
        + " rebuilt, (\\d+)/(\\d+) objects, in \\d+\\.\\ds \\(.+/s\\)").matcher(line);
    assertTrue(m.matches(), line + " in\n" + all);
    assertEquals(m.group(2), m.group(1), all);
    assertNotEquals("0 B", m.group(1), all);
    assertEquals(m.group(4), m.group(3), all);
    assertTrue(Long.parseLong(m.group(3)) > 0, all);
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
