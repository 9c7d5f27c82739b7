package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.cli.Main;
import io.parityfs.client.ParityClient;
import io.parityfs.meta.Across;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.Standing;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mover killed with SIGKILL in the middle of its pass (docs/across-nodes.md §5), on four
 * child-process nodes with ec:2+1 files of three targets: {@code node drain} killed while it
 * copies a file, then {@code node remove} of a stopped node killed while it rebuilds one. After
 * each kill every file reads every byte, each layout is the old or the new one (three distinct
 * nodes, never a mix), and running the command again finishes the work; then the files read
 * with the node that was moved off down and another one down too. Content is keyed by path.
 */
class MoveKillTest {
  private static final int FILES = 8;
  private static final long SIZE = 6L << 20;

  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), MoveKillTest.class, 1, 4, c -> { });
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** {@code parityfs ARGS} in a child JVM, its output lines collected into {@code output}. */
  private static Process cli(List<String> output, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dparityfs.local=" + dir.resolve("cluster").resolve("mover"), "-Xmx512m",
        "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"),
        Main.class.getName()));
    cmd.addAll(cluster.local().cliOptions());
    cmd.addAll(List.of("--user", "root", "--groups", "supergroup",
        "--session-timeout", "5")); // a killed mover's lock goes in 5 s, not 30
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          synchronized (output) {
            output.add(line);
          }
        }
      } catch (IOException e) {
        // the process died: its output ends
      }
    }, "mover output");
    reader.setDaemon(true);
    reader.start();
    return p;
  }

  private static boolean printed(List<String> output, String what) {
    synchronized (output) {
      return output.stream().anyMatch(l -> l.contains(what));
    }
  }

  /** Runs {@code args} until it has moved two files, then kills it (SIGKILL). */
  private static void killMidway(String... args) throws Exception {
    List<String> out = new ArrayList<>();
    Process p = cli(out, args);
    cluster.await(String.join(" ", args) + " moving its second file", Duration.ofSeconds(90),
        () -> printed(out, "[2/" + FILES + "]") || !p.isAlive());
    p.destroyForcibly();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertFalse(printed(out, "[" + FILES + "/" + FILES + "]"), "killed before the end: " + out);
    System.out.println("[test] killed " + String.join(" ", args) + " after: " + out);
  }

  /** Runs {@code args} to its end and expects exit 0. */
  private static void finish(String... args) throws Exception {
    List<String> out = new ArrayList<>();
    Process p = cli(out, args);
    assertTrue(p.waitFor(180, TimeUnit.SECONDS), String.join(" ", args) + " hangs: " + out);
    assertEquals(0, p.exitValue(), String.join(" ", args) + ": " + out);
  }

  /** Every file reads every byte; its layout is on three distinct nodes. */
  private static int verifyAll(String when, String movedOff) throws IOException {
    int still = 0;
    try (ParityClient c = cluster.client()) {
      for (int i = 0; i < FILES; i++) {
        String path = "/k/f" + i;
        TestFiles.verify(c, path, path, SIZE);
        List<String> targets = c.namespace().getStatus(path).layout().targets();
        Set<String> nodes = new HashSet<>();
        for (String t : targets) {
          nodes.add(c.registry().target(t).orElseThrow().nodeId());
        }
        assertEquals(3, nodes.size(), path + " " + when + ": " + targets);
        still += targets.contains(movedOff) ? 1 : 0;
      }
    }
    return still;
  }

  @Test
  void killedMoversLeaveEveryFileWholeAndResume() throws Exception {
    ParityClient root = cluster.root();
    List<String> three = List.of(cluster.target(0).id(), cluster.target(1).id(),
        cluster.target(2).id());
    root.namespace().mkdirs("/k", CreateOptions.directory().withLayout(
        new Layout(1 << 20, 3, three, "raid6:4+2").withAcross(Across.ec(2, 1))));
    for (int i = 0; i < FILES; i++) {
      TestFiles.write(root, "/k/f" + i, "/k/f" + i, SIZE, 0, n -> { });
    }
    root.namespace().setLayout("/k", TestCluster.LAYOUT.withAcross(Across.ec(2, 1)));

    // a drain of node 1 killed mid-way: files moved or not, none half-moved
    String drained = three.get(1);
    killMidway("node", "drain", cluster.nodeId(1), "--rate", "4M");
    int left = verifyAll("after the killed drain", drained);
    assertTrue(left > 0 && left < FILES, left + " of " + FILES + " files still on it");
    assertEquals(Standing.DRAINING, root.registry().target(drained).orElseThrow().standing());
    finish("node", "drain", cluster.nodeId(1));
    assertEquals(0, verifyAll("after the drain", drained));
    cluster.local().stopNode(1, Duration.ofSeconds(30));
    cluster.local().killNode(0);
    try {
      verifyAll("with the drained node and node 0 down", drained);
    } finally {
      startAll(0, 1);
    }

    // node 2 lost: node remove killed while it rebuilds, run again
    String lost = cluster.target(2).id();
    finish("node", "reinstate", cluster.nodeId(1));
    cluster.local().killNode(2);
    cluster.await("node 2's target offline", Duration.ofSeconds(60), () -> root.registry()
        .target(lost).map(t -> t.reachability() != Reachability.ONLINE).orElse(false));
    killMidway("node", "remove", cluster.nodeId(2), "--rate", "4M");
    left = verifyAll("after the killed remove", lost);
    assertTrue(left > 0 && left < FILES, left + " of " + FILES + " files still on it");
    finish("node", "remove", cluster.nodeId(2));
    assertTrue(root.registry().target(lost).isEmpty(), "out of the registry");
    cluster.local().killNode(3);
    try {
      verifyAll("with node 2 removed and node 3 down", lost);
    } finally {
      startAll(3, 2);
    }
  }

  /** Starts the nodes given and waits until every node's target is online again. */
  private static void startAll(int... nodes) throws IOException {
    for (int i : nodes) {
      cluster.local().startNode(i);
    }
    cluster.awaitHealthy(false, TestCluster.START);
  }
}
