package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/parityfs} as the docs show it: {@code node start} goes to the storage node's own
 * command, every other {@code node} command (drain, remove, reinstate; docs/cli.md) to the
 * CLI. Before, every {@code node ...} went to the storage node and failed with its usage.
 */
class LauncherTest {
  /** The repository's root (surefire runs in the module's folder). */
  private static Path root() {
    return Path.of("").toAbsolutePath().getParent();
  }

  private static String launch(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", root().resolve("bin/parityfs").toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "bin/parityfs " + String.join(" ", args));
    String text = new String(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), text);
    return text;
  }

  @Test
  void nodeCommandsReachTheCliAndNodeStartTheStorageNode() throws Exception {
    assertTrue(Files.isRegularFile(root().resolve("bin/parityfs")), root().toString());
    String drain = launch("node", "drain", "--help");
    assertTrue(drain.contains("Usage: parityfs node drain"), drain);
    String remove = launch("node", "remove", "--help");
    assertTrue(remove.contains("Usage: parityfs node remove"), remove);
    String reinstate = launch("node", "reinstate", "--help");
    assertTrue(reinstate.contains("Usage: parityfs node reinstate"), reinstate);
    String start = launch("node", "start", "--help");
    assertTrue(start.contains("--config"), start);
  }

  /**
   * A name that is not UTF-8 is refused before any command runs (the JVM would have turned
   * {@code \xff\xfe} and {@code \xfe\xff} both into U+FFFD: one name for two files); a real
   * U+FFFD, typed as UTF-8, is still a name. No cluster is needed: the check comes first.
   */
  @Test
  void argumentsThatAreNotUtf8AreRefusedBeforeTheCommandRuns() throws Exception {
    String[] bad = inShell("mkdir /d/$'\\xff\\xfe'a");
    assertEquals("2", bad[0], bad[1]);
    assertTrue(bad[1].contains("argument 6 (/d/\\xff\\xfea) is not valid UTF-8"), bad[1]);
    String[] ok = inShell("mkdir /d/$'\\xef\\xbf\\xbd'a");
    assertEquals("6", ok[0], "U+FFFD itself is valid: it goes on to ZooKeeper: " + ok[1]);
  }

  /**
   * {@code bin/parityfs} against a ZooKeeper that is not there, with {@code args} as bash reads
   * them (its {@code $'...'} quoting makes bytes Java strings cannot); its exit code and output.
   */
  private static String[] inShell(String args) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("bash", "-c", "\"$0\" --zookeeper 127.0.0.1:1"
        + " --connect-timeout 1 " + args, root().resolve("bin/parityfs").toString())
        .redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), args);
    return new String[] {Integer.toString(p.exitValue()), out};
  }
}
