package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import io.parityfs.testing.MiniCluster;
import io.parityfs.testing.ShardDamage;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39: a scrub that finds a stripe beyond repair says so. Three bad cells in one stripe of
 * a RAID-6 4+2 chunk: {@code scrub --watch} ends with the counts and the object's id and exits
 * 1, {@code --status} and {@code --json} show them, and the target's consistency is DAMAGED. On
 * a cluster of its own (one node, six folders), since it damages data.
 */
class CliScrubReportTest {
  private static final int CELL = 65536; // the mini cluster's cell size

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
  void threeBadCellsOfARaid6StripeFailTheScrubAndDamageTheTarget() throws Exception {
    cli.ok("setstripe", "--stripe-count", "1", "--chunk-size", "256K", "/");
    byte[] data = new byte[200_000]; // one chunk: one object
    new Random(39).nextBytes(data);
    cli.ok("put", Files.write(dir.resolve("data.bin"), data).toString(), "/data.bin");

    CliRunner.Run clean = cli.ok("scrub", "--watch", "--interval", "0.1", target);
    assertTrue(lastLine(clean.out()).matches("scrub: DONE  100\\.0%.* - checked \\d+ objects,"
        + " repaired 0, unrecoverable 0"), clean.out());

    String lost = corruptThreeCellsOfOneStripe();
    CliRunner.Run failed = cli.fails(1, "scrub", "--watch", "--interval", "0.1", target);
    assertTrue(lastLine(failed.out()).matches("scrub: DONE  100\\.0%.* - checked \\d+ objects,"
        + " repaired 0, unrecoverable 1 \\(objects: " + lost + "\\)"), failed.out());
    assertTrue(failed.err().startsWith("parityfs: scrub: " + target + ": DATA_LOST: the scrub"
        + " found 1 unrecoverable objects (" + lost + ")"), failed.err());

    JsonNode task = cli.ok("scrub", "--status", "--json", target).json().get("tasks").get(0);
    JsonNode result = task.get("result");
    assertEquals("DONE", task.get("state").asText());
    assertEquals(1, result.get("unrecoverableObjects").asLong(), result.toString());
    assertEquals(lost, result.get("unrecoverableIds").get(0).asText());
    assertEquals(3, result.get("crcErrors").asLong(), result.toString());
    assertEquals(0, result.get("repaired").asLong());
    assertTrue(cli.ok("scrub", "--status", target).out()
        .contains("unrecoverable 1 (objects: " + lost + ")"));
    // --json: one document per poll, the last one the finished scrub's
    String polls = cli.fails(1, "scrub", "--watch", "--json", "--interval", "0.1", target).out();
    JsonNode watched = null;
    try (MappingIterator<JsonNode> docs = Json.MAPPER.readerFor(JsonNode.class)
        .readValues(polls)) {
      while (docs.hasNext()) {
        watched = docs.next();
      }
    }
    assertEquals(1, watched.get("tasks").get(0).get("result").get("unrecoverableObjects")
        .asLong(), polls);

    assertEquals(1, cluster.nodes().get(0).targets().get(0).lostObjects());
    Eventually.until("the registry says DAMAGED", () -> cli.ok("targets", "--json").json()
        .get(0).get("consistency").asText().equals("DAMAGED"));
    JsonNode listed = cli.ok("targets", "--json").json().get(0);
    assertEquals(1, listed.get("lostObjects").asLong(), listed.toString());
    assertEquals(lost, listed.get("lostObjectIds").get(0).asText(), listed.toString());
  }

  /** Flips a bit in cell 0 of three shards of one chunk's object; returns its id (16 hex). */
  private static String corruptThreeCellsOfOneStripe() throws IOException {
    Map<String, List<Path>> shards = ShardDamage.shards(dir.resolve("cluster"));
    assertEquals(1, shards.size(), shards.toString());
    Map.Entry<String, List<Path>> object = shards.entrySet().iterator().next();
    assertEquals(6, object.getValue().size(), object.toString());
    for (Path shard : object.getValue().subList(0, 3)) {
      ShardDamage.flipBit(shard, CELL, 0);
    }
    return object.getKey();
  }

  private static String lastLine(String out) {
    List<String> lines = out.lines().toList();
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }
}
