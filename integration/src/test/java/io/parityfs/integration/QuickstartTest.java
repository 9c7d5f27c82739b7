package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.fuse.FuseAvailable;
import io.parityfs.fuse.PfsMount;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.meta.targets.Consistency;
import io.parityfs.meta.targets.Retirements;
import io.parityfs.meta.targets.Standing;
import io.parityfs.meta.targets.TargetInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main job and the local cluster as a user drives them: {@code parityfs local
 * start|status|stop} and {@code parityfs demo}, through the command line, on a cluster of child
 * JVMs (on a free ZooKeeper port when 2181 is taken).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QuickstartTest {
  @TempDir
  static Path tmp;

  /** What one command printed and returned. */
  record Run(int rc, String out, String err) {
    String all() {
      return out + err;
    }
  }

  static Run parityfs(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      rc = ParityFsMain.commandLine(o, e, false).execute(args);
    }
    return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static String[] concat(List<String> first, String... rest) {
    List<String> all = new ArrayList<>(first);
    all.addAll(List.of(rest));
    return all.toArray(String[]::new);
  }

  static Path dir() {
    return tmp.resolve("cluster");
  }

  @AfterAll
  static void stopEverything() throws Exception {
    if (LocalCluster.exists(dir())) {
      LocalCluster.open(dir()).stop(Duration.ofSeconds(20), m -> { });
    }
  }

  @Test
  @Order(1)
  void statusOfNoClusterSaysSo() {
    Run r = parityfs("local", "status", "--dir", tmp.resolve("none").toString());
    assertEquals(3, r.rc(), r.all());
    assertTrue(r.err().contains("no local cluster in"), r.all());
  }

  @Test
  @Order(2)
  void startPrintsHowToReachItAndDataSurvivesARestart() throws Exception {
    Run start = parityfs("local", "start", "--dir", dir().toString());
    assertEquals(0, start.rc(), start.all());
    LocalCluster c = LocalCluster.open(dir());
    assertTrue(start.out().contains("3 of 3 targets online"), start.out());
    assertTrue(start.out().contains("fs.pfs.cluster.local.zookeeper</name><value>"
        + c.connectString()), start.out());
    assertTrue(start.out().contains("default layout of /: 3 targets"), start.out());
    assertTrue(start.out().contains("mutual TLS (certificates in " + dir().resolve("tls")),
        start.out());
    assertTrue(start.out().contains("eval \"$(bin/parityfs local env --dir " + dir() + ")\""),
        start.out());
    assertTrue(start.out().contains("<name>fs.pfs.tls.cert</name><value>"
        + dir().resolve("tls").resolve("client.crt")), start.out());
    Run env = parityfs("local", "env", "--dir", dir().toString());
    assertEquals(0, env.rc(), env.all());
    assertEquals(List.of("export PARITYFS_ZOOKEEPER=" + c.connectString(),
        "export PARITYFS_DIGEST_FILE=" + dir().resolve("zookeeper.digest"),
        "export PARITYFS_TLS_KEY=" + dir().resolve("tls").resolve("admin.key"),
        "export PARITYFS_TLS_CERT=" + dir().resolve("tls").resolve("admin.crt"),
        "export PARITYFS_TLS_CA=" + dir().resolve("tls").resolve("ca.crt"),
        "export PARITYFS_TLS_CRL=" + dir().resolve("tls").resolve("ca.crl")),
        env.out().lines().toList());

    Run status = parityfs("local", "status", "--dir", dir().toString());
    assertEquals(0, status.rc(), status.all());
    assertEquals(5, status.out().lines().filter(l -> l.contains(" running ")).count(),
        status.out());
    assertEquals(3, status.out().lines().filter(l -> l.contains(" ONLINE ")).count(),
        status.out());

    byte[] data = new byte[3 << 20];
    new Random(7).nextBytes(data);
    try (ParityClient client = c.client(Caller.of("root"))) {
      try (PfsOutputStream out = client.create("/kept", CreateOptions.file())) {
        out.write(data);
      }
    }

    // ZooKeeper's znodes are creator-only: without the digest nothing is read or written
    try (CuratorFramework open = ZooKeeperSettings.of(c.connectString()).newClient()) {
      open.start();
      assertTrue(open.blockUntilConnected(20, TimeUnit.SECONDS));
      assertThrows(KeeperException.NoAuthException.class,
          () -> open.getChildren().forPath("/parityfs/ns"));
      assertThrows(KeeperException.NoAuthException.class,
          () -> open.create().forPath("/parityfs/ns/intruder"));
      // nor is a rogue node registered for clients to write to
      assertThrows(KeeperException.NoAuthException.class,
          () -> open.getChildren().forPath(ZkPaths.TARGETS));
      assertThrows(KeeperException.NoAuthException.class,
          () -> open.create().forPath(ZkPaths.node("rogue")));
    }
    // nor does an anonymous session create znodes at ZooKeeper's root, outside the chroot
    try (CuratorFramework anonymous = ZooKeeperSettings.of(c.connectString()).withChroot("")
        .newClient()) {
      anonymous.start();
      assertTrue(anonymous.blockUntilConnected(20, TimeUnit.SECONDS));
      assertThrows(KeeperException.NoAuthException.class,
          () -> anonymous.create().forPath("/intruder"));
      assertTrue(anonymous.getChildren().forPath("/").contains("parityfs"),
          "the root stays readable");
    }
    Run noDigest = parityfs("--zookeeper", c.connectString(), "ls", "/");
    assertEquals(5, noDigest.rc(), noDigest.all());
    assertTrue(noDigest.err().contains("NOAUTH"), noDigest.all());
    // the nodes speak TLS only: a client without the cluster's certificates stores nothing
    try (ParityClient plain = ParityClient.connect(ClientConfig.builder(c.zooKeeper()).build(),
        Caller.of("root"))) {
      assertThrows(IOException.class, () -> {
        try (PfsOutputStream out = plain.create("/plaintext", CreateOptions.file())) {
          out.write(data, 0, 1 << 20);
        }
      });
    }
    // the CLI with the options of `local env` reaches them, the admin opcodes included
    String target;
    try (ParityClient client = c.client(Caller.of("root"))) {
      target = client.registry().targets().get(0).id();
    }
    Run drives = parityfs(concat(c.cliOptions(), "drives", target));
    assertEquals(0, drives.rc(), drives.all());
    assertTrue(drives.out().contains("ONLINE"), drives.out());
    // rights by role: the client identity (the core-site's digest) reads the registry and
    // writes the namespace, and cannot take a node out of service or register one
    List<String> asClient = c.cliOptions(ClusterLayout.CLIENT);
    assertTrue(start.out().contains("<name>fs.pfs.cluster.local.digest.file</name><value>"
        + dir().resolve(ClusterLayout.CLIENT_DIGEST_FILE)), start.out());
    assertEquals(0, parityfs(concat(asClient, "mkdir", "-p", "/byclient")).rc());
    Run nodes = parityfs(concat(asClient, "nodes"));
    assertEquals(0, nodes.rc(), nodes.all());
    String nodeId;
    try (ParityClient client = c.client(Caller.of("root"))) {
      nodeId = client.registry().targets().get(0).nodeId();
    }
    Run drain = parityfs(concat(asClient, "node", "drain", nodeId));
    assertEquals(5, drain.rc(), drain.all());
    assertTrue(drain.err().contains("NOAUTH"), drain.all());
    try (ParityClient client = c.client(Caller.of("root"))) {
      assertTrue(client.registry().targets().stream().allMatch(t -> t.placeable()),
          "no target was marked by the refused drain");
      // a mark the admin made, which the client identity cannot take away either
      Retirements marks = new Retirements(client.registry());
      marks.retire(target, Standing.DRAINING, "quickstart: rights by role");
      Run reinstate = parityfs(concat(asClient, "node", "reinstate", nodeId));
      assertEquals(5, reinstate.rc(), reinstate.all());
      assertTrue(marks.reinstate(target), "the mark was still there for the admin");
    }
    try (CuratorFramework byClient = c.zooKeeper().withDigestFile(
        dir().resolve(ClusterLayout.CLIENT_DIGEST_FILE)).newClient()) {
      byClient.start();
      assertTrue(byClient.blockUntilConnected(20, TimeUnit.SECONDS));
      assertThrows(KeeperException.NoAuthException.class,
          () -> byClient.create().forPath(ZkPaths.node("rogue")));
      assertThrows(KeeperException.NoAuthException.class,
          () -> byClient.setData().forPath(ZkPaths.target(target), new byte[0]));
    }

    Run stop = parityfs("local", "stop", "--dir", dir().toString());
    assertEquals(0, stop.rc(), stop.all());
    Run stopped = parityfs("local", "status", "--dir", dir().toString());
    assertEquals(6, stopped.rc(), stopped.all());
    assertEquals(5, stopped.out().lines().filter(l -> l.contains(" stopped ")).count(),
        stopped.out());
    assertFalse(c.processes().stream().anyMatch(LocalCluster.ProcessState::running));

    Run again = parityfs("local", "start", "--dir", dir().toString());
    assertEquals(0, again.rc(), again.all());
    assertTrue(again.out().contains("the local cluster in"), again.out());
    try (ParityClient client = c.client(Caller.of("root"));
        PfsInputStream in = client.open("/kept")) {
      byte[] back = in.readAllBytes();
      assertTrue(Arrays.equals(data, back), "the file read back after the restart differs");
    }
  }

  /**
   * The mount as docs/fuse.md shows it on the local cluster (secure by default): {@code
   * parityfs mount} in a child JVM with the environment {@code parityfs local env} exports,
   * data written and read back through it, and the same bytes through the client.
   */
  @Test
  @Order(3)
  void theMountMovesDataOnTheSecureLocalCluster() throws Exception {
    FuseAvailable.assume();
    LocalCluster c = LocalCluster.open(dir());
    Path mnt = Files.createDirectories(tmp.resolve("mnt"));
    Path log = tmp.resolve("mount.log");
    ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-Xmx512m", "-cp", System.getProperty("java.class.path"),
        ParityFsMain.class.getName(), "mount", mnt.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(c.cliEnvironment()); // eval "$(bin/parityfs local env)"
    Process mount = pb.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!PfsMount.isMounted(mnt)) {
        assertTrue(mount.isAlive(), "the mount exited: " + Files.readString(log));
        assertTrue(System.nanoTime() < deadline, "no mount in 60 s: " + Files.readString(log));
        Thread.sleep(50);
      }
      byte[] data = new byte[5 << 20];
      new Random(39).nextBytes(data);
      Path dirInMount = Files.createDirectories(mnt.resolve("mounted"));
      Files.write(dirInMount.resolve("data.bin"), data);
      Files.writeString(dirInMount.resolve("hello.txt"), "hello\n");
      assertArrayEquals(data, Files.readAllBytes(dirInMount.resolve("data.bin")));
      try (ParityClient client = c.client(Caller.of("root"));
          PfsInputStream in = client.open("/mounted/data.bin")) {
        assertArrayEquals(data, in.readAllBytes(), "the client reads what the mount wrote");
        assertEquals(6, client.namespace().getStatus("/mounted/hello.txt").length());
      }
      Run umount = parityfs("umount", mnt.toString());
      assertEquals(0, umount.rc(), umount.all());
      assertTrue(mount.waitFor(60, TimeUnit.SECONDS), "the mount did not exit after umount");
      assertEquals(0, mount.exitValue(), Files.readString(log));
    } finally {
      mount.destroy();
      if (!mount.waitFor(30, TimeUnit.SECONDS)) {
        mount.destroyForcibly();
      }
      if (PfsMount.isMounted(mnt)) {
        PfsMount.unmount(mnt);
      }
    }
  }

  @Test
  @Order(4)
  void demoRunsEveryStepAndVerifies() throws Exception {
    Run demo = parityfs("demo", "--dir", dir().toString(), "--writers", "3", "--size", "6M");
    assertEquals(0, demo.rc(), demo.all());
    String out = demo.out();
    for (String expected : new String[] {"== 1/7", "== 2/7", "== 3/7", "== 4/7", "== 5/7",
        "== 6/7", "== 7/7 storage node node2 is killed (SIGKILL) during the restore: the"
        + " checkpoint is ec:2+1 across nodes", "3 of 3 targets online",
        "failed; array DEGRADED", "rebuild slot 2: DONE",
        "restore (a drive failed: degraded): 18.0 MiB", "restore (after the rebuild): 18.0 MiB",
        "The local cluster stays up.", "the keeper caught node2 up",
        "every byte of it read back and compared"}) {
      assertTrue(out.contains(expected), "no '" + expected + "' in:\n" + out);
    }
    // the catch-up stored what the file written with node2 down left out there: not 0
    assertTrue(out.lines().anyMatch(l -> l.matches(".*its repair record names [1-9][0-9]*"
        + " members left out on node2")), out);
    assertTrue(out.lines().anyMatch(l -> l.matches(".*(the keeper caught node2 up .* [1-9][0-9]*"
        + " members stored again|parityfs repair did: [1-9][0-9]* members).*")), out);
    // the last restore ran with node2 killed (mid-way, or the whole restore again): all 18 MiB
    assertTrue(out.contains("restore (a storage node killed): 18.0 MiB")
        || out.contains("restore (a storage node down): 18.0 MiB"), out);
    // after the rebuild every target is GOOD again, and the checkpoint is gone
    try (ParityClient client = LocalCluster.open(dir()).client(Caller.of("root"))) {
      assertEquals(List.of(Consistency.GOOD, Consistency.GOOD, Consistency.GOOD),
          client.registry().targets().stream().map(TargetInfo::consistency).toList());
      assertEquals(List.of(), client.namespace().listAll("/demo"));
    }
  }

  @Test
  @Order(5)
  void demoRejectsABadSize() {
    Run r = parityfs("demo", "--dir", dir().toString(), "--size", "lots");
    assertEquals(2, r.rc(), r.all());
    assertTrue(r.err().contains("parityfs: demo:"), r.all());
  }

  @Test
  @Order(6)
  void stopLeavesNoProcess() throws Exception {
    Run stop = parityfs("local", "stop", "--dir", dir().toString());
    assertEquals(0, stop.rc(), stop.all());
    for (LocalCluster.ProcessState p : LocalCluster.open(dir()).processes()) {
      assertFalse(p.running(), p.name() + " still runs");
    }
    assertTrue(Files.exists(dir().resolve("node0").resolve("node.id")));
  }

  /**
   * {@code local start --zookeeper-port}: a second local cluster on the port asked for, beside
   * whatever holds 2181 (before, the global {@code --zookeeper HOST:PORT} was taken and ignored,
   * so two local clusters on one machine needed code).
   */
  @Test
  @Order(7)
  void aSecondClusterTakesTheZooKeeperPortAskedFor() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path second = tmp.resolve("second");
    Run start = parityfs("local", "start", "--dir", second.toString(), "--nodes", "1",
        "--drives", "3", "--geometry", "raid5:2+1", "--zookeeper-port", Integer.toString(port));
    try {
      assertEquals(0, start.rc(), start.all());
      assertEquals("127.0.0.1:" + port, LocalCluster.open(second).connectString());
      assertTrue(start.out().contains("1 of 1 targets online"), start.out());
    } finally {
      if (LocalCluster.exists(second)) {
        LocalCluster.open(second).stop(Duration.ofSeconds(20), m -> { });
      }
    }
    Run bad = parityfs("local", "start", "--dir", tmp.resolve("third").toString(),
        "--zookeeper-port", "70000");
    assertEquals(2, bad.rc(), bad.all());
  }
}
