package io.parityfs.integration;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.Consistency;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.function.BooleanSupplier;

/**
 * A {@link LocalCluster} of three nodes (RAID-6 4+2 over six drive folders each, 1 GiB heaps)
 * for one test class, on a ZooKeeper port of its own, with a root client and the helpers the
 * fault tests share: bounded waits whose failures carry the tails of every process's log, and
 * the node and target of each index.
 *
 * <p>Test files go under directories with {@link #LAYOUT}: 1 MiB chunks striped over all three
 * targets, so a few MiB touch every node and every drive.
 */
final class TestCluster implements AutoCloseable {
  static final int CHUNK = 1 << 20;
  static final Layout LAYOUT = new Layout(CHUNK, 3, List.of(), "raid6:4+2");
  static final Duration START = Duration.ofSeconds(120);

  private final LocalCluster local;
  private final String name;
  private ParityClient root;

  private TestCluster(LocalCluster local, String name) {
    this.local = local;
    this.name = name;
  }

  /**
   * Creates and starts a cluster in {@code dir} (which must not hold one yet); {@code test}
   * names the folder its logs are kept in.
   */
  static TestCluster start(Path dir, Class<?> test) throws IOException {
    return start(dir, test, 1);
  }

  /** {@link #start(Path, Class)} with {@code zooKeeperServers} (1, or 3: an ensemble). */
  static TestCluster start(Path dir, Class<?> test, int zooKeeperServers) throws IOException {
    return start(dir, test, zooKeeperServers, c -> { });
  }

  /** The configuration hook of {@link #start(Path, Class, int, Configure)}. */
  interface Configure {
    void apply(LocalCluster created) throws IOException;
  }

  /**
   * {@link #start(Path, Class, int)}, with {@code configure} run on the new cluster's
   * configuration before anything starts (proxies, node config changes).
   */
  static TestCluster start(Path dir, Class<?> test, int zooKeeperServers, Configure configure)
      throws IOException {
    return start(dir, test, zooKeeperServers, 3, configure);
  }

  /**
   * {@link #start(Path, Class, int, Configure)} with {@code nodes} storage nodes, in plaintext
   * with open ZooKeeper ACLs: most fault tests are about faults, not transport, and a secure
   * cluster's TLS start-up in every node JVM costs each of them seconds ({@link #startSecure}).
   */
  static TestCluster start(Path dir, Class<?> test, int zooKeeperServers, int nodes,
      Configure configure) throws IOException {
    return start(dir, test, zooKeeperServers, nodes, configure, false);
  }

  /**
   * A secure cluster, as {@code parityfs local start} makes one: mutual TLS to every node and a
   * ZooKeeper digest (the node-kill and contract tests run so).
   */
  static TestCluster startSecure(Path dir, Class<?> test, int nodes) throws IOException {
    return start(dir, test, 1, nodes, c -> { }, true, false);
  }

  /** {@link #startSecure} whose ZooKeeper servers take TLS only ({@code --zookeeper-tls}). */
  static TestCluster startZooKeeperTls(Path dir, Class<?> test, int zooKeeperServers, int nodes)
      throws IOException {
    return start(dir, test, zooKeeperServers, nodes, c -> { }, true, true);
  }

  private static TestCluster start(Path dir, Class<?> test, int zooKeeperServers, int nodes,
      Configure configure, boolean secure) throws IOException {
    return start(dir, test, zooKeeperServers, nodes, configure, secure, false);
  }

  private static TestCluster start(Path dir, Class<?> test, int zooKeeperServers, int nodes,
      Configure configure, boolean secure, boolean zooKeeperTls) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    LocalCluster c = LocalCluster.createOrOpen(dir,
        new LocalCluster.Shape(nodes, 6, "raid6:4+2", port, "1g", zooKeeperServers, secure,
            zooKeeperTls))
        .withoutKeeper(); // the tests run catch-up themselves and count what it did
    configure.apply(c);
    TestCluster t = new TestCluster(c, test.getSimpleName());
    long begin = System.nanoTime();
    try {
      c.start(START, m -> System.out.printf("[cluster] %.1f s: %s%n",
          (System.nanoTime() - begin) / 1e9, m));
      t.root = c.client(Caller.of("root"));
    } catch (IOException | RuntimeException e) {
      t.close();
      throw new IOException(e.getMessage() + t.logTails(), e);
    }
    return t;
  }

  LocalCluster local() {
    return local;
  }

  /** The root client, connected for the cluster's lifetime (reconnected by {@link #restart}). */
  ParityClient root() {
    return root;
  }

  ParityClient client() throws IOException {
    return local.client(Caller.of("root"));
  }

  /** Makes {@code path} (and parents) with {@link #LAYOUT}. */
  void mkdirs(String path) throws IOException {
    root.namespace().mkdirs(path, CreateOptions.directory().withLayout(LAYOUT)
        .withCreateParents(true));
  }

  /** The id node {@code i} registers with (its id file; written at its first start). */
  String nodeId(int i) throws IOException {
    Properties p = new Properties();
    p.load(Files.newBufferedReader(local.dir().resolve(local.nodeName(i)).resolve("node.id"),
        StandardCharsets.UTF_8));
    return p.getProperty("nodeId");
  }

  /** The target node {@code i} serves, as the registry sees it now. */
  TargetInfo target(int i) throws IOException {
    String node = nodeId(i);
    return root.registry().targets().stream().filter(t -> t.nodeId().equals(node)).findFirst()
        .orElseThrow(() -> new AssertionError("node" + i + " (" + node + ") serves no target: "
            + root.registry().targets() + logTails()));
  }

  /** The index of the node serving target {@code targetId}. */
  int nodeOf(String targetId) throws IOException {
    Optional<TargetInfo> t = root.registry().target(targetId);
    for (int i = 0; i < local.shape().nodes(); i++) {
      if (t.isPresent() && t.get().nodeId().equals(nodeId(i))) {
        return i;
      }
    }
    throw new AssertionError("no node serves target " + targetId + ": " + t);
  }

  /** The ARRAY_STATUS JSON of node {@code i}'s target, from the node. */
  String arrayStatus(int i) throws IOException {
    TargetInfo t = target(i);
    return root.nodes().admin().arrayStatus(t.socketAddress(), TargetId.of(t.id()));
  }

  /**
   * Waits until every node's target is ONLINE, answers a ping at the address the registry
   * gives (so a record left by a killed node does not count) and, when {@code good}, is GOOD.
   */
  void awaitHealthy(boolean good, Duration timeout) throws IOException {
    await("all targets online" + (good ? " and GOOD" : ""), timeout, () -> {
      for (int i = 0; i < local.shape().nodes(); i++) {
        if (!healthy(i, good)) {
          return false;
        }
      }
      return true;
    });
  }

  private boolean healthy(int i, boolean good) {
    try {
      TargetInfo t = target(i);
      if (t.reachability() != Reachability.ONLINE || (good && t.consistency() != Consistency.GOOD)) {
        return false;
      }
      root.nodes().ping(t.socketAddress());
      return true;
    } catch (IOException | AssertionError e) {
      return false;
    }
  }

  /**
   * Waits for {@code condition} ({@link Eventually}); AssertionError naming {@code what}, with
   * the registry's targets and the logs' tails, after {@code timeout} (scaled by {@link
   * io.parityfs.testkit.Timing}).
   */
  void await(String what, Duration timeout, BooleanSupplier condition) {
    long begin = System.nanoTime();
    try {
      Eventually.until(what, timeout, condition);
    } catch (AssertionError e) {
      String targets;
      try {
        targets = root.registry().targets().toString();
      } catch (RuntimeException r) {
        targets = r.toString();
      }
      throw new AssertionError(e.getMessage() + "; targets " + targets + logTails(), e);
    }
    System.out.printf("[test] %s: %.1f s%n", what, (System.nanoTime() - begin) / 1e9);
  }

  /** Restarts node {@code i} (if it is not running) and waits until the cluster is healthy. */
  void restartNode(int i) throws IOException {
    local.startNode(i);
    awaitHealthy(false, START);
  }

  /**
   * Restarts the whole cluster: a clean stop (SIGTERM), or with {@code crash} SIGKILL of every
   * node and of ZooKeeper at once; then a start, a fresh root client (the old one's session
   * died with its server) and a wait until every target is reachable.
   */
  void restart(boolean crash) throws IOException {
    root.close();
    root = null;
    if (crash) {
      for (int i = 0; i < local.shape().nodes(); i++) {
        local.killNode(i);
      }
      local.killZooKeeper();
    } else {
      local.stop(Duration.ofSeconds(30), m -> System.out.println("[cluster] " + m));
    }
    long begin = System.nanoTime();
    local.start(START, m -> System.out.printf("[cluster] %.1f s: %s%n",
        (System.nanoTime() - begin) / 1e9, m));
    root = local.client(Caller.of("root"));
    awaitHealthy(false, START);
  }

  /**
   * The cluster-manager lines ("elected leader", "stopped acting", "closed") that node {@code
   * i}'s current process logged: those after the log's last start line. Only a running node's
   * lines say whether it acts (a process killed with SIGKILL logs nothing more).
   */
  List<String> managerLines(int i) {
    try {
      List<String> all = Files.readAllLines(local.nodeProcess(i).log(), StandardCharsets.UTF_8);
      int start = 0;
      for (int k = 0; k < all.size(); k++) {
        if (all.get(k).startsWith("---- ")) {
          start = k;
        }
      }
      return all.subList(start, all.size()).stream().filter(l -> l.contains("cluster manager ")
          && (l.contains("elected leader") || l.contains("stopped acting")
              || l.contains(": closed"))).toList();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * The lines node {@code i}'s previous process logged: those between the log's last two start
   * lines (empty when it started once).
   */
  List<String> previousProcessLines(int i) {
    try {
      List<String> all = Files.readAllLines(local.nodeProcess(i).log(), StandardCharsets.UTF_8);
      List<Integer> starts = new ArrayList<>();
      for (int k = 0; k < all.size(); k++) {
        if (all.get(k).startsWith("---- ")) {
          starts.add(k);
        }
      }
      return starts.size() < 2 ? List.of()
          : all.subList(starts.get(starts.size() - 2), starts.get(starts.size() - 1));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** The running nodes whose current process's last cluster-manager line says it acts. */
  List<Integer> actingManagers() {
    List<Integer> acting = new ArrayList<>();
    for (int i = 0; i < local.shape().nodes(); i++) {
      List<String> l = managerLines(i);
      if (local.nodeProcess(i).running() && !l.isEmpty()
          && l.get(l.size() - 1).contains("elected leader")) {
        acting.add(i);
      }
    }
    return acting;
  }

  /** The end of every process's log, for a failure message. */
  String logTails() {
    StringBuilder b = new StringBuilder();
    for (LocalCluster.ProcessState p : local.processes()) {
      b.append("\n[").append(p.name()).append(p.running() ? " running" : " not running")
          .append(']').append(LocalCluster.tail(p.log()));
    }
    return b.toString();
  }

  /**
   * Copies the processes' logs to {@code target/cluster-logs/<test class>-<UTC time>/} (the
   * cluster's folder is a temporary one that JUnit deletes), for the post-mortem of a failed run.
   * Each cluster gets its own folder, so a later cluster of the same class, or another run
   * into the same target folder, never overwrites the logs of an earlier one.
   */
  private void keepLogs() throws IOException {
    String stamp = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss.SSS")
        .withZone(java.time.ZoneOffset.UTC).format(java.time.Instant.now());
    Path to = Path.of("target", "cluster-logs", name + "-" + stamp);
    for (int n = 2; Files.exists(to); n++) {
      to = Path.of("target", "cluster-logs", name + "-" + stamp + "-" + n);
    }
    Files.createDirectories(to);
    try (var logs = Files.list(local.dir().resolve("logs"))) {
      for (Path log : logs.toList()) {
        Files.copy(log, to.resolve(log.getFileName()));
      }
    }
  }

  @Override
  public void close() throws IOException {
    if (root != null) {
      root.close();
      root = null;
    }
    long begin = System.nanoTime();
    try {
      local.stop(Duration.ofSeconds(20), m -> System.out.println("[cluster] " + m));
      System.out.printf("[cluster] stopped in %.1f s%n", (System.nanoTime() - begin) / 1e9);
    } finally {
      keepLogs();
    }
  }
}
