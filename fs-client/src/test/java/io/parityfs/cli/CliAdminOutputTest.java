package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parityfs.testing.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exact output of the commands that show a node's admin replies (drives, fail-drive, rebuild,
 * scrub, nodes), both {@code --json} (a documented interface: byte for byte, field order
 * included) and the human form, on a cluster of its own (one node, RAID-6 4+2 over six
 * folders). What differs from run to run (ids, folders, addresses, the codec chosen, capacity,
 * rates, times) is replaced by a placeholder before the comparison; the rest is pinned, in
 * {@code admin-output.golden} beside this class.
 */
class CliAdminOutputTest {
  @TempDir
  static Path dir;
  static MiniCluster cluster;
  static CliRunner cli;
  static String target;
  static String node;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.start(dir.resolve("cluster"), 1, "raid6:4+2", 6);
    cli = new CliRunner(cluster.connectString());
    var t = cli.ok("targets", "--json").json().get(0);
    target = t.get("id").asText();
    node = t.get("nodeId").asText();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void adminCommandsPrintWhatTheyPrinted() throws Exception {
    cli.ok("setstripe", "--stripe-count", "1", "--chunk-size", "256K", "/");
    byte[] data = new byte[1_000_000];
    new Random(5).nextBytes(data);
    cli.ok("put", Files.write(dir.resolve("data.bin"), data).toString(), "/data.bin");

    check("drives-json", cli.ok("drives", "--json", target));
    check("drives", cli.ok("drives", target));
    check("rebuild-json", cli.ok("rebuild", "--json", target));
    check("rebuild", cli.ok("rebuild", target));
    check("scrub-status-json", cli.ok("scrub", "--status", "--json", target));
    check("scrub-status", cli.ok("scrub", "--status", target));
    check("nodes-json", cli.ok("nodes", "--json"));
    check("nodes", cli.ok("nodes"));

    cli.ok("scrub", "--watch", "--interval", "0.1", target);
    check("scrub-done-json", cli.ok("scrub", "--status", "--json", target));
    check("scrub-done", cli.ok("scrub", "--status", target));
    check("drives-scrubbed-json", cli.ok("drives", "--json", target));
    check("drives-scrubbed", cli.ok("drives", target));
    check("scrub-stop-json", cli.ok("scrub", "--stop", "--json", target));
    check("scrub-stop", cli.ok("scrub", "--stop", target));

    check("fail-drive-json", cli.ok("fail-drive", "--json", target, "2"));
    check("fail-drive", cli.ok("fail-drive", target, "3"));
    check("drives-failed", cli.ok("drives", target));
    check("rebuild-stop-json", cli.ok("rebuild", "--stop", "--json", target));
    check("rebuild-stop", cli.ok("rebuild", "--stop", target));
  }

  /** Compares one command's output with its section of {@code admin-output.golden}. */
  private static void check(String name, CliRunner.Run run) {
    String got = normalise(run.out());
    if (name.equals("nodes")) {
      got = got.replaceAll(" {2,}", " "); // the columns' widths follow the address's length
    }
    assertEquals(golden().get(name), got, name);
  }

  /** The sections of the golden file: {@code ==== name} lines, each followed by its output. */
  private static Map<String, String> golden() {
    try (InputStream in = CliAdminOutputTest.class.getResourceAsStream("admin-output.golden")) {
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      Map<String, String> m = new HashMap<>();
      for (String section : all.split("(?m)^==== ")) {
        if (!section.isEmpty()) {
          int nl = section.indexOf('\n');
          m.put(section.substring(0, nl), section.substring(nl + 1));
        }
      }
      return m;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The output with what varies between runs replaced by placeholders. */
  static String normalise(String out) {
    return out.replace(target, "<target>").replace(node, "<node>")
        .replace(dir.toString(), "<dir>")
        .replaceAll("127\\.0\\.0\\.1:\\d+|localhost:\\d+", "<address>")
        .replaceAll("\"codec\":\"[^\"]*\"", "\"codec\":\"<codec>\"")
        .replaceAll("(?m)codec \\S+$", "codec <codec>")
        .replaceAll("\"(capacityBytes|freeBytes)\":\\d+", "\"$1\":<n>")
        .replaceAll("capacity [^,]+, free .+", "capacity <n>, free <n>")
        .replaceAll("\"bytesPerSecond\":[-0-9.E]+", "\"bytesPerSecond\":<rate>")
        .replaceAll("\"etaSeconds\":[-0-9.E]+", "\"etaSeconds\":<eta>")
        .replaceAll("\"(started|ended)\":\"[^\"]*\"", "\"$1\":<time>")
        .replaceAll("\"elapsedSeconds\":[-0-9.E]+", "\"elapsedSeconds\":<elapsed>")
        .replaceAll("\\d+(\\.\\d)? [KMGTPE]?i?B/s", "<rate>")
        .replaceAll("ETA \\S+", "ETA <eta>");
  }
}
