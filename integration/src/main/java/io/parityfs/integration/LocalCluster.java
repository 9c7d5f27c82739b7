package io.parityfs.integration;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.Layout;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeProperties;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A ParityFS cluster on this machine, kept in one folder: a ZooKeeper server (or an ensemble of
 * three, {@link Shape#zooKeeperServers}) and {@code n} storage nodes, each a child JVM of its own, each node serving one RAID target over {@code m}
 * drive folders. It is what {@code parityfs local} runs and what the crash tests kill pieces of.
 *
 * <p>Everything lives under the cluster's folder, so the cluster survives restarts of its
 * processes and of the machine: {@code cluster.properties} (the shape chosen at creation),
 * {@code zookeeper/} (its configuration and data; {@code zookeeper<s>/} for server s of an
 * ensemble, with its {@code myid}), {@code node<i>/} (a node's configuration,
 * its id file and its drive folders {@code drive<d>}), {@code logs/} (every process's output),
 * {@code run/} (the pid files of the processes now running) and {@code namespace.formatted}
 * (the first start formatted the namespace; later ones never do).
 *
 * <p>The processes are started detached ({@code setsid} where present): they outlive the JVM
 * that started them, and Ctrl-C in the terminal that started them does not reach them. An
 * object of this class holds no resources; {@link #stop} ends the processes.
 */
public final class LocalCluster {
  /** The target every node serves, named the same on each. */
  public static final String TARGET = "t";
  /** The ZooKeeper port a new cluster takes when it is free. */
  public static final int DEFAULT_ZOOKEEPER_PORT = 2181;

  private static final String SHAPE_FILE = "cluster.properties";
  /** Written once the first start formatted the namespace ({@link #start}). */
  private static final String FORMATTED_FILE = "namespace.formatted";
  private static final String NODE_MAIN = "io.parityfs.node.cli.NodeCommand";
  private static final String ZOOKEEPER_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain";
  private static final String QUORUM_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
  private static final String ZOOKEEPER = "zookeeper";

  /**
   * The shape of a cluster, fixed at creation.
   *
   * @param nodes storage nodes (1..16)
   * @param drives drive folders per node
   * @param geometry each node's RAID geometry, e.g. {@code raid6:4+2}
   * @param zooKeeperPort the ZooKeeper server's port on 127.0.0.1 (0 at creation: 2181 when free,
   *     else any free port)
   * @param nodeHeap the {@code -Xmx} of a node's JVM, e.g. {@code 2g}
   * @param zooKeeperServers 1 (a standalone server, the default) or 3 (an ensemble, each server
   *     a child JVM with its own {@code zoo.cfg}, {@code myid} and loopback ports; server 1
   *     takes {@code zooKeeperPort}, the others and the quorum and election ports are chosen
   *     free at creation)
   */
  public record Shape(int nodes, int drives, String geometry, int zooKeeperPort,
      String nodeHeap, int zooKeeperServers) {
    public Shape {
      if (zooKeeperServers != 1 && zooKeeperServers != 3) {
        throw new IllegalArgumentException("ZooKeeper servers must be 1 or 3: "
            + zooKeeperServers);
      }
      if (nodes < 1 || nodes > 16) {
        throw new IllegalArgumentException("nodes must be 1..16: " + nodes);
      }
      if (drives < 2 || drives > 64) {
        throw new IllegalArgumentException("drives must be 2..64: " + drives);
      }
      if (zooKeeperPort < 0 || zooKeeperPort > 65535) {
        throw new IllegalArgumentException("bad ZooKeeper port " + zooKeeperPort);
      }
    }

    /** A shape with a standalone ZooKeeper server. */
    public Shape(int nodes, int drives, String geometry, int zooKeeperPort, String nodeHeap) {
      this(nodes, drives, geometry, zooKeeperPort, nodeHeap, 1);
    }

    /** 3 nodes, each a RAID-6 4+2 target over 6 drives. */
    public static Shape defaults() {
      return new Shape(3, 6, "raid6:4+2", 0, "2g");
    }

    public Shape withNodes(int n) {
      return new Shape(n, drives, geometry, zooKeeperPort, nodeHeap, zooKeeperServers);
    }

    public Shape withDrives(int d, String g) {
      return new Shape(nodes, d, g, zooKeeperPort, nodeHeap, zooKeeperServers);
    }

    public Shape withZooKeeperPort(int port) {
      return new Shape(nodes, drives, geometry, port, nodeHeap, zooKeeperServers);
    }

    /** This shape with a ZooKeeper ensemble of {@code servers} (1 or 3). */
    public Shape withZooKeeperServers(int servers) {
      return new Shape(nodes, drives, geometry, zooKeeperPort, nodeHeap, servers);
    }
  }

  /**
   * One process of the cluster as this moment sees it.
   *
   * @param name {@code zookeeper} (of an ensemble: {@code zookeeper<s>}, s from 1) or {@code
   *     node<i>}
   * @param pid its pid while running, else -1
   * @param log where its output goes
   */
  public record ProcessState(String name, long pid, Path log) {
    public boolean running() {
      return pid > 0;
    }
  }

  private final Path dir;
  private final Shape shape;
  /** Of an ensemble: per server (index s - 1) its client, quorum and election port; else empty. */
  private final List<int[]> ensemblePorts;
  /** Extra environment of a node's JVM, by node index ({@link #setNodeEnvironment}). */
  private final Map<Integer, Map<String, String>> nodeEnvironment =
      new ConcurrentHashMap<>();

  private LocalCluster(Path dir, Shape shape, List<int[]> ensemblePorts) {
    this.dir = dir;
    this.shape = shape;
    this.ensemblePorts = ensemblePorts;
  }

  /** Whether {@code dir} holds a cluster. */
  public static boolean exists(Path dir) {
    return Files.isRegularFile(dir.resolve(SHAPE_FILE));
  }

  /**
   * The cluster in {@code dir}; creates its folders and configuration first when there is none
   * (then {@code shape} applies; an existing cluster keeps the shape it was created with).
   */
  public static LocalCluster createOrOpen(Path dir, Shape shape) throws IOException {
    dir = dir.toAbsolutePath().normalize();
    if (exists(dir)) {
      return open(dir);
    }
    Files.createDirectories(dir);
    int port = shape.zooKeeperPort() != 0 ? shape.zooKeeperPort() : choosePort();
    Shape s = shape.withZooKeeperPort(port);
    List<int[]> ensemble = new ArrayList<>();
    if (s.zooKeeperServers() > 1) {
      List<Integer> free = freePorts(3 * s.zooKeeperServers() - 1, port);
      ensemble.add(new int[] {port, free.get(0), free.get(1)});
      for (int k = 1; k < s.zooKeeperServers(); k++) {
        ensemble.add(new int[] {free.get(3 * k - 1), free.get(3 * k), free.get(3 * k + 1)});
      }
    }
    LocalCluster c = new LocalCluster(dir, s, ensemble);
    c.writeConfiguration();
    Properties p = new Properties();
    p.setProperty("nodes", Integer.toString(s.nodes()));
    p.setProperty("drives", Integer.toString(s.drives()));
    p.setProperty("geometry", s.geometry());
    p.setProperty("zookeeper.port", Integer.toString(s.zooKeeperPort()));
    p.setProperty("node.heap", s.nodeHeap());
    if (!ensemble.isEmpty()) {
      p.setProperty("zookeeper.servers", Integer.toString(s.zooKeeperServers()));
      p.setProperty("zookeeper.ensemble.ports", ensemble.stream()
          .map(e -> e[0] + ":" + e[1] + ":" + e[2]).collect(java.util.stream.Collectors.joining(",")));
    }
    // written last: a folder with this file is a complete cluster
    writeProperties(dir.resolve(SHAPE_FILE), p, "ParityFS local cluster (parityfs local)");
    return c;
  }

  /** The cluster in {@code dir}; IOException when there is none. */
  public static LocalCluster open(Path dir) throws IOException {
    dir = dir.toAbsolutePath().normalize();
    Path f = dir.resolve(SHAPE_FILE);
    if (!Files.isRegularFile(f)) {
      throw new IOException("no local cluster in " + dir + " (parityfs local start creates one)");
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(f)) {
      p.load(in);
    }
    try {
      Shape s = new Shape(Integer.parseInt(p.getProperty("nodes")),
          Integer.parseInt(p.getProperty("drives")), p.getProperty("geometry"),
          Integer.parseInt(p.getProperty("zookeeper.port")), p.getProperty("node.heap", "2g"),
          Integer.parseInt(p.getProperty("zookeeper.servers", "1")));
      List<int[]> ensemble = new ArrayList<>();
      if (s.zooKeeperServers() > 1) {
        for (String e : p.getProperty("zookeeper.ensemble.ports").split(",")) {
          String[] ports = e.split(":");
          ensemble.add(new int[] {Integer.parseInt(ports[0]), Integer.parseInt(ports[1]),
              Integer.parseInt(ports[2])});
        }
        if (ensemble.size() != s.zooKeeperServers()) {
          throw new IllegalArgumentException("zookeeper.ensemble.ports lists " + ensemble.size()
              + " servers, not " + s.zooKeeperServers());
        }
      }
      return new LocalCluster(dir, s, ensemble);
    } catch (RuntimeException e) {
      throw new IOException(f + " is damaged: " + e.getMessage(), e);
    }
  }

  public Path dir() {
    return dir;
  }

  public Shape shape() {
    return shape;
  }

  /** The ZooKeeper connect string of the cluster (every server of an ensemble). */
  public String connectString() {
    if (ensemblePorts.isEmpty()) {
      return "127.0.0.1:" + shape.zooKeeperPort();
    }
    return ensemblePorts.stream().map(e -> "127.0.0.1:" + e[0])
        .collect(java.util.stream.Collectors.joining(","));
  }

  /** The client port of ZooKeeper server {@code s} (1-based; 1 for a standalone server). */
  public int zooKeeperClientPort(int s) {
    checkServer(s);
    return ensemblePorts.isEmpty() ? shape.zooKeeperPort() : ensemblePorts.get(s - 1)[0];
  }

  public ZooKeeperSettings zooKeeper() {
    return ZooKeeperSettings.of(connectString()).withSessionTimeout(Duration.ofSeconds(10));
  }

  /** A client of the cluster acting for {@code caller}. */
  public ParityClient client(Caller caller) throws IOException {
    return ParityClient.connect(ClientConfig.builder(zooKeeper()).build(), caller);
  }

  /** Node {@code i}'s configuration file. */
  public Path nodeConfig(int i) {
    return nodeDir(i).resolve("node.properties");
  }

  /**
   * Sets keys of node {@code i}'s configuration (a null value removes the key), for its next
   * start: how tests route a node through a proxy ({@code node.listen.*}, {@code
   * node.advertise.host}, {@code zookeeper.connect}) or change its drives ({@code
   * target.t.drives}). The keys are those of {@code conf/storage-node.properties}.
   */
  public void updateNodeConfig(int i, Map<String, String> changes) throws IOException {
    Properties p = nodeProperties(i);
    changes.forEach((k, v) -> {
      if (v == null) {
        p.remove(k);
      } else {
        p.setProperty(k, v);
      }
    });
    writeProperties(nodeConfig(i), p, "storage node " + nodeName(i)
        + " of the ParityFS local cluster (keys: conf/storage-node.properties)");
  }

  /** Node {@code i}'s configuration as it is now on disk. */
  public Properties nodeProperties(int i) throws IOException {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(nodeConfig(i))) {
      p.load(in);
    }
    return p;
  }

  /** Drive folder {@code d} of node {@code i}. */
  public Path drive(int i, int d) {
    return nodeDir(i).resolve("drive" + d);
  }

  /** The name node {@code i} registers under. */
  public String nodeName(int i) {
    return "node" + i;
  }

  /** The ZooKeeper server (of an ensemble: server 1). */
  public ProcessState zooKeeperProcess() {
    return state(zooKeeperName(1));
  }

  /** ZooKeeper server {@code s} (1-based). */
  public ProcessState zooKeeperProcess(int s) {
    return state(zooKeeperName(checkServer(s)));
  }

  /** The process name (and folder) of ZooKeeper server {@code s}. */
  public String zooKeeperName(int s) {
    return shape.zooKeeperServers() == 1 ? ZOOKEEPER : ZOOKEEPER + s;
  }

  private int checkServer(int s) {
    if (s < 1 || s > shape.zooKeeperServers()) {
      throw new IllegalArgumentException("no ZooKeeper server " + s + " (the cluster has "
          + shape.zooKeeperServers() + ")");
    }
    return s;
  }

  /**
   * The server that answers {@code srvr} with {@code Mode: leader} (of a standalone server:
   * 1 when it serves), or empty when none does now.
   */
  public Optional<Integer> zooKeeperLeader() {
    for (int s = 1; s <= shape.zooKeeperServers(); s++) {
      String mode = zooKeeperMode(zooKeeperClientPort(s));
      if (mode.equals("leader") || mode.equals("standalone")) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  public ProcessState nodeProcess(int i) {
    return state(nodeName(checkNode(i)));
  }

  /** Every process: ZooKeeper (each server of an ensemble), then the nodes. */
  public List<ProcessState> processes() {
    List<ProcessState> all = new ArrayList<>();
    for (int s = 1; s <= shape.zooKeeperServers(); s++) {
      all.add(zooKeeperProcess(s));
    }
    for (int i = 0; i < shape.nodes(); i++) {
      all.add(nodeProcess(i));
    }
    return all;
  }

  /**
   * Starts whatever is not running (ZooKeeper first, then the nodes) and waits until every
   * node's target is online, or {@code timeout}. {@code progress} hears what happens.
   */
  public void start(Duration timeout, Consumer<String> progress) throws IOException {
    long end = System.nanoTime() + timeout.toNanos();
    try (Lock ignored = lock()) {
      startZooKeeper(end, progress);
      formatOnFirstStart(progress);
      for (int i = 0; i < shape.nodes(); i++) {
        if (!nodeProcess(i).running()) {
          progress.accept("starting storage node " + nodeName(i));
          spawn(nodeName(i), nodeCommand(i), nodeEnvironment.getOrDefault(i, Map.of()));
        }
      }
    }
    awaitTargetsOnline(shape.nodes(), end, progress);
    setRootLayout(progress);
  }

  /**
   * At the cluster's first start, before any node: formats its namespace (what {@code parityfs
   * format} does; clients never do). Later starts leave a missing namespace missing: ZooKeeper
   * lost its data, and clients say so instead of finding an empty file system over the nodes'
   * chunks. The file {@value #FORMATTED_FILE} records that the first start formatted it.
   */
  private void formatOnFirstStart(Consumer<String> progress) throws IOException {
    Path marker = dir.resolve(FORMATTED_FILE);
    if (Files.exists(marker)) {
      return;
    }
    boolean created = ParityClient.format(ClientConfig.builder(zooKeeper()).build());
    progress.accept(created ? "namespace formatted" : "namespace already formatted");
    Files.writeString(marker, "the namespace of this cluster was formatted at its first start;"
        + " `parityfs format` makes one again if ZooKeeper lost it\n");
  }

  /**
   * At the first start: the root's default layout (still the namespace's built-in one) becomes
   * one that stripes files over every node's target (at most {@link Layout#DEFAULT}'s count) with
   * the nodes' geometry; every file inherits it. A layout set by hand is left alone.
   */
  private void setRootLayout(Consumer<String> progress) throws IOException {
    try (ParityClient c = client(Caller.of("root"))) {
      Layout d = Layout.DEFAULT;
      if (!d.equals(c.namespace().getStatus("/").layout())) {
        return;
      }
      // over the targets of the root's pool: a node's config may put its target in another one
      long inPool = c.registry().targets().stream().filter(t -> d.pool().equals(t.pool()))
          .count();
      if (inPool == 0) {
        progress.accept("default layout of / left as it is: no target in pool '" + d.pool() + "'");
        return;
      }
      Layout l = new Layout(d.chunkSize(), (int) Math.min(d.stripeCount(), inPool), List.of(),
          shape.geometry(), d.mirrorCount(), d.pool());
      c.namespace().setLayout("/", l);
      progress.accept("default layout of /: " + l.stripeCount() + " targets, "
          + (l.chunkSize() >> 20) + " MiB chunks, " + l.protection());
    }
  }

  /**
   * Starts the ZooKeeper servers that are not running and waits until they serve (an ensemble:
   * until every server is a leader or a follower).
   */
  public void startZooKeeper(Duration timeout) throws IOException {
    try (Lock ignored = lock()) {
      startZooKeeper(System.nanoTime() + timeout.toNanos(), m -> { });
    }
  }

  /**
   * Starts ZooKeeper server {@code s} of an ensemble if it is not running; waits until it
   * serves when {@code await} (it cannot while no quorum is up: start the others first).
   */
  public void startZooKeeper(int s, boolean await, Duration timeout) throws IOException {
    checkServer(s);
    try (Lock ignored = lock()) {
      if (!zooKeeperProcess(s).running()) {
        spawnZooKeeper(s, m -> { });
      }
    }
    if (await) {
      awaitServing(s, System.nanoTime() + timeout.toNanos());
    }
  }

  /**
   * Variables added to the environment of node {@code i}'s JVM from its next start on, e.g.
   * {@code LD_PRELOAD} and {@code FAKETIME} to skew its clock in a test; held by this object
   * only (not stored in the cluster's folder), so a node started by another process, or by
   * {@code parityfs local} later, runs without them. An empty map removes them.
   */
  public void setNodeEnvironment(int i, Map<String, String> env) {
    checkNode(i);
    nodeEnvironment.put(i, Map.copyOf(env));
  }

  /** Starts node {@code i} if it is not running (does not wait for its target). */
  public void startNode(int i) throws IOException {
    try (Lock ignored = lock()) {
      if (!nodeProcess(i).running()) {
        spawn(nodeName(i), nodeCommand(i), nodeEnvironment.getOrDefault(i, Map.of()));
      }
    }
  }

  /**
   * Stops every process: the nodes first (SIGTERM: they finish requests in progress, deregister
   * and close their arrays), then ZooKeeper; what has not exited after {@code timeout} is killed.
   */
  public void stop(Duration timeout, Consumer<String> progress) throws IOException {
    try (Lock ignored = lock()) {
      List<String> nodes = new ArrayList<>();
      for (int i = 0; i < shape.nodes(); i++) {
        nodes.add(nodeName(i));
      }
      terminate(nodes, timeout, progress);
      List<String> servers = new ArrayList<>();
      for (int s = 1; s <= shape.zooKeeperServers(); s++) {
        servers.add(zooKeeperName(s));
        resume(zooKeeperName(s)); // a stopped (SIGSTOP) process does not act on SIGTERM
      }
      for (int i = 0; i < shape.nodes(); i++) {
        resume(nodeName(i));
      }
      terminate(servers, timeout, progress);
    }
  }

  /** Stops node {@code i} gracefully (SIGTERM), killing it after {@code timeout}. */
  public void stopNode(int i, Duration timeout) throws IOException {
    terminate(List.of(nodeName(checkNode(i))), timeout, m -> { });
  }

  /** Kills node {@code i} with SIGKILL and waits until it is gone. */
  public void killNode(int i) throws IOException {
    kill(nodeName(checkNode(i)));
  }

  /** Kills the ZooKeeper server (every server of an ensemble) with SIGKILL, waiting for each. */
  public void killZooKeeper() throws IOException {
    for (int s = 1; s <= shape.zooKeeperServers(); s++) {
      kill(zooKeeperName(s));
    }
  }

  /** Kills ZooKeeper server {@code s} with SIGKILL and waits until it is gone. */
  public void killZooKeeper(int s) throws IOException {
    kill(zooKeeperName(checkServer(s)));
  }

  /**
   * Freezes ({@code SIGSTOP}) or thaws ({@code SIGCONT}) ZooKeeper server {@code s}: a frozen
   * server keeps its sockets open and answers nothing, as a server cut off by a partition or
   * stalled by a long pause does.
   */
  public void freezeZooKeeper(int s, boolean frozen) throws IOException {
    signal(zooKeeperName(checkServer(s)), frozen ? "STOP" : "CONT");
  }

  /** {@link #freezeZooKeeper} for node {@code i}. */
  public void freezeNode(int i, boolean frozen) throws IOException {
    signal(nodeName(checkNode(i)), frozen ? "STOP" : "CONT");
  }

  /**
   * Waits until at least {@code count} targets are online with free space, or the deadline
   * ({@link System#nanoTime}); IOException naming the states seen, with the tails of the logs
   * of processes that died.
   */
  public void awaitTargetsOnline(int count, long deadlineNanos, Consumer<String> progress)
      throws IOException {
    try (ParityClient c = client(Caller.of("root"))) {
      long online = -1;
      while (true) {
        List<TargetInfo> targets = c.registry().targets();
        long now = targets.stream().filter(t -> t.reachability() == Reachability.ONLINE
            && t.freeBytes() > 0).count();
        if (now != online) {
          online = now;
          progress.accept(online + " of " + count + " targets online");
        }
        if (online >= count) {
          return;
        }
        for (ProcessState p : processes()) {
          if (!p.running()) {
            throw new IOException(p.name() + " is not running" + tail(p.log()));
          }
        }
        if (System.nanoTime() > deadlineNanos) {
          throw new IOException("only " + online + " of " + count + " targets online: "
              + targets.stream().map(t -> t.name() + "@" + t.nodeId() + " " + t.reachability())
                  .toList());
        }
        sleep(100);
      }
    }
  }

  // ---------------------------------------------------------------- configuration

  private Path nodeDir(int i) {
    return dir.resolve(nodeName(checkNode(i)));
  }

  private int checkNode(int i) {
    if (i < 0 || i >= shape.nodes()) {
      throw new IllegalArgumentException("no node " + i + " (the cluster has " + shape.nodes()
          + ")");
    }
    return i;
  }

  private void writeConfiguration() throws IOException {
    Files.createDirectories(dir.resolve("logs"));
    Files.createDirectories(dir.resolve("run"));
    if (shape.zooKeeperServers() == 1) {
      writeStandaloneZooKeeper();
    } else {
      for (int s = 1; s <= shape.zooKeeperServers(); s++) {
        writeEnsembleServer(s);
      }
    }
    writeNodes();
  }

  /**
   * Server {@code s} of an ensemble: its {@code zoo.cfg} lists every server on loopback, and
   * ticks are short (500 ms; sessions 1..10 s; a follower cut off for 5 s leaves the quorum) so
   * that elections and a lost quorum show within a test's time.
   */
  private void writeEnsembleServer(int s) throws IOException {
    Path zk = dir.resolve(zooKeeperName(s));
    Files.createDirectories(zk.resolve("data"));
    Files.writeString(zk.resolve("data").resolve("myid"), s + "\n", StandardCharsets.US_ASCII);
    Properties z = new Properties();
    z.setProperty("tickTime", "500");
    z.setProperty("initLimit", "20");
    z.setProperty("syncLimit", "10");
    z.setProperty("maxSessionTimeout", "30000");
    z.setProperty("dataDir", zk.resolve("data").toString());
    z.setProperty("clientPort", Integer.toString(ensemblePorts.get(s - 1)[0]));
    z.setProperty("clientPortAddress", "127.0.0.1");
    z.setProperty("maxClientCnxns", "0");
    z.setProperty("admin.enableServer", "false");
    z.setProperty("4lw.commands.whitelist", "ruok,srvr");
    z.setProperty("autopurge.snapRetainCount", "3");
    z.setProperty("autopurge.purgeInterval", "1");
    z.setProperty("standaloneEnabled", "false");
    z.setProperty("reconfigEnabled", "false");
    for (int k = 1; k <= shape.zooKeeperServers(); k++) {
      int[] e = ensemblePorts.get(k - 1);
      z.setProperty("server." + k, "127.0.0.1:" + e[1] + ":" + e[2]);
    }
    writeProperties(zk.resolve("zoo.cfg"), z, "ZooKeeper server " + s
        + " of the ensemble of the ParityFS local cluster");
  }

  private void writeStandaloneZooKeeper() throws IOException {
    Path zk = dir.resolve(ZOOKEEPER);
    Files.createDirectories(zk.resolve("data"));
    Properties z = new Properties();
    z.setProperty("tickTime", "2000");
    z.setProperty("dataDir", zk.resolve("data").toString());
    z.setProperty("clientPort", Integer.toString(shape.zooKeeperPort()));
    z.setProperty("clientPortAddress", "127.0.0.1");
    z.setProperty("maxClientCnxns", "0");
    z.setProperty("admin.enableServer", "false");
    z.setProperty("4lw.commands.whitelist", "ruok,srvr");
    z.setProperty("autopurge.snapRetainCount", "3");
    z.setProperty("autopurge.purgeInterval", "1");
    writeProperties(zk.resolve("zoo.cfg"), z, "ZooKeeper of the ParityFS local cluster");
  }

  private void writeNodes() throws IOException {
    for (int i = 0; i < shape.nodes(); i++) {
      Path home = nodeDir(i);
      List<String> drives = new ArrayList<>();
      for (int d = 0; d < shape.drives(); d++) {
        Files.createDirectories(drive(i, d));
        drives.add(drive(i, d).toString());
      }
      // only what differs from the node's defaults (NodeConfigKeys), loopback and any port
      Properties p = NodeProperties.create()
          .set(NodeConfigKeys.NODE_NAME, nodeName(i))
          .set(NodeConfigKeys.NODE_ID_FILE, home.resolve("node.id"))
          .set(NodeConfigKeys.LISTEN_HOST, "127.0.0.1")
          .set(NodeConfigKeys.LISTEN_PORT, 0)
          .set(NodeConfigKeys.METRICS_HOST, "127.0.0.1")
          .set(NodeConfigKeys.METRICS_PORT, 0)
          .set(NodeConfigKeys.ZK_CONNECT, connectString())
          .set(NodeConfigKeys.ZK_SESSION_TIMEOUT, Duration.ofSeconds(10))
          .set(NodeConfigKeys.ZK_CONNECTION_TIMEOUT, Duration.ofSeconds(30))
          .set(TARGET, NodeConfigKeys.DRIVES, drives)
          .set(TARGET, NodeConfigKeys.CREATE, true)
          .setText(TARGET, NodeConfigKeys.GEOMETRY, shape.geometry())
          .toProperties();
      writeProperties(nodeConfig(i), p, "storage node " + nodeName(i)
          + " of the ParityFS local cluster (keys: conf/storage-node.properties)");
    }
  }

  private static void writeProperties(Path file, Properties p, String comment)
      throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    java.io.StringWriter text = new java.io.StringWriter();
    p.store(text, comment);
    // the comment lines first, then the keys sorted, so the file reads well
    List<String> lines = text.toString().lines().toList();
    List<String> keys = new ArrayList<>(lines.stream().filter(l -> !l.startsWith("#")).toList());
    keys.sort(null);
    List<String> out = new ArrayList<>(lines.stream().filter(l -> l.startsWith("#")).toList());
    out.addAll(keys);
    Files.write(tmp, out, StandardCharsets.ISO_8859_1);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  /** {@code n} distinct free loopback ports, none of them {@code except}. */
  private static List<Integer> freePorts(int n, int except) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      while (ports.size() < n) {
        ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        held.add(s);
        if (s.getLocalPort() != except) {
          ports.add(s.getLocalPort());
        }
      }
      return ports;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }

  /** 2181 when nothing listens there, else a free port. */
  private static int choosePort() throws IOException {
    if (free(DEFAULT_ZOOKEEPER_PORT)) {
      return DEFAULT_ZOOKEEPER_PORT;
    }
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  // ---------------------------------------------------------------- processes

  private List<String> javaCommand(String name, String heap, List<String> flags,
      List<String> mainAndArgs) {
    List<String> cmd = new ArrayList<>();
    Path setsid = Path.of("/usr/bin/setsid");
    if (Files.isExecutable(setsid)) {
      cmd.add(setsid.toString());
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // marks the process as this cluster's, so a reused pid is never taken for it
    cmd.add("-Dparityfs.local=" + marker(name));
    cmd.add("-Xmx" + heap);
    cmd.add("-XX:+ExitOnOutOfMemoryError");
    cmd.add("-Dslf4j.internal.verbosity=ERROR");
    cmd.addAll(flags);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.addAll(mainAndArgs);
    return cmd;
  }

  private List<String> nodeCommand(int i) {
    // the node's LogManager from the JVM's start (set in main, it comes too late: the JDK's
    // start-up already made one), so what a node logs while it stops on SIGTERM is kept
    return javaCommand(nodeName(i), shape.nodeHeap(),
        List.of("--add-modules", "jdk.incubator.vector",
            "-Djava.util.logging.manager=io.parityfs.node.NodeLogManager"),
        List.of(NODE_MAIN, "start", "--config", nodeConfig(i).toString()));
  }

  private void startZooKeeper(long deadlineNanos, Consumer<String> progress) throws IOException {
    if (shape.zooKeeperServers() > 1) {
      for (int s = 1; s <= shape.zooKeeperServers(); s++) {
        if (!zooKeeperProcess(s).running()) {
          spawnZooKeeper(s, progress);
        }
      }
      for (int s = 1; s <= shape.zooKeeperServers(); s++) {
        awaitServing(s, deadlineNanos);
      }
      return;
    }
    int port = shape.zooKeeperPort();
    if (!zooKeeperProcess().running()) {
      if (!free(port)) {
        throw new IOException("port " + port + " on 127.0.0.1 is taken by another process; stop"
            + " it (a ZooKeeper of another cluster?) or create this cluster elsewhere");
      }
      progress.accept("starting ZooKeeper on " + connectString());
      spawn(ZOOKEEPER, javaCommand(ZOOKEEPER, "512m",
          List.of("-Dzookeeper.admin.enableServer=false"),
          List.of(ZOOKEEPER_MAIN, dir.resolve(ZOOKEEPER).resolve("zoo.cfg").toString())));
    }
    while (true) {
      if (zooKeeperAnswers(port)) {
        return;
      }
      ProcessState p = zooKeeperProcess();
      if (!p.running()) {
        throw new IOException("ZooKeeper exited at start" + tail(p.log()));
      }
      if (System.nanoTime() > deadlineNanos) {
        throw new IOException("ZooKeeper does not answer on " + connectString() + tail(p.log()));
      }
      sleep(100);
    }
  }

  /** Starts server {@code s} of the ensemble (QuorumPeerMain on its zoo.cfg). */
  private void spawnZooKeeper(int s, Consumer<String> progress) throws IOException {
    int port = zooKeeperClientPort(s);
    if (!free(port)) {
      throw new IOException("port " + port + " on 127.0.0.1 is taken by another process");
    }
    progress.accept("starting ZooKeeper server " + s + " on 127.0.0.1:" + port);
    spawn(zooKeeperName(s), javaCommand(zooKeeperName(s), "512m",
        List.of("-Dzookeeper.admin.enableServer=false"),
        List.of(QUORUM_MAIN, dir.resolve(zooKeeperName(s)).resolve("zoo.cfg").toString())));
  }

  /** Waits until server {@code s} of the ensemble is a leader or a follower. */
  private void awaitServing(int s, long deadlineNanos) throws IOException {
    while (true) {
      String mode = zooKeeperMode(zooKeeperClientPort(s));
      if (mode.equals("leader") || mode.equals("follower")) {
        return;
      }
      ProcessState p = zooKeeperProcess(s);
      if (!p.running()) {
        throw new IOException(p.name() + " exited at start" + tail(p.log()));
      }
      if (System.nanoTime() > deadlineNanos) {
        throw new IOException(p.name() + " does not serve on 127.0.0.1:"
            + zooKeeperClientPort(s) + " (mode: " + mode + ")" + tail(p.log()));
      }
      sleep(100);
    }
  }

  /**
   * The {@code Mode:} that the server on {@code port} reports to {@code srvr} (leader, follower,
   * standalone), or {@code none} when it does not answer or does not serve.
   */
  static String zooKeeperMode(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      s.setSoTimeout(2000);
      s.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
      s.shutdownOutput();
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      for (String line : answer.split("\n")) {
        if (line.startsWith("Mode: ")) {
          return line.substring(6).trim();
        }
      }
      return "none";
    } catch (IOException e) {
      return "none";
    }
  }

  /** Whether the server on {@code port} answers ZooKeeper's {@code ruok} with {@code imok}. */
  private static boolean zooKeeperAnswers(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      s.setSoTimeout(2000);
      s.getOutputStream().write("ruok".getBytes(StandardCharsets.US_ASCII));
      s.shutdownOutput();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)
          .equals("imok");
    } catch (IOException e) {
      return false;
    }
  }

  private void spawn(String name, List<String> cmd) throws IOException {
    spawn(name, cmd, Map.of());
  }

  private void spawn(String name, List<String> cmd, Map<String, String> env)
      throws IOException {
    Path log = logFile(name);
    Files.createDirectories(log.getParent());
    Files.writeString(log, "---- " + java.time.Instant.now() + " " + (env.isEmpty() ? ""
        : new TreeMap<>(env) + " ") + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().putAll(env);
    Process p = pb.start();
    Path pidFile = pidFile(name);
    Files.createDirectories(pidFile.getParent());
    Files.writeString(pidFile, Long.toString(p.pid()) + "\n");
  }

  private ProcessState state(String name) {
    return new ProcessState(name, handle(name).map(ProcessHandle::pid).orElse(-1L),
        logFile(name));
  }

  /** The running process of {@code name}, checked to be this cluster's by its marker. */
  private Optional<ProcessHandle> handle(String name) {
    Path f = pidFile(name);
    long pid;
    try {
      pid = Long.parseLong(Files.readString(f).trim());
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
        .filter(h -> h.info().arguments().map(a -> List.of(a)
            .contains("-Dparityfs.local=" + marker(name))).orElse(true));
  }

  private String marker(String name) {
    return dir.resolve(name).toString();
  }

  private void terminate(List<String> names, Duration timeout, Consumer<String> progress)
      throws IOException {
    List<ProcessHandle> running = new ArrayList<>();
    for (String n : names) {
      Optional<ProcessHandle> h = handle(n);
      if (h.isPresent()) {
        progress.accept("stopping " + n + " (pid " + h.get().pid() + ")");
        h.get().destroy();
        running.add(h.get());
      }
    }
    long end = System.nanoTime() + timeout.toNanos();
    for (ProcessHandle h : running) {
      if (!awaitExit(h, end)) {
        progress.accept("pid " + h.pid() + " did not stop in " + timeout.toSeconds()
            + " s: killed");
        h.destroyForcibly();
        awaitExit(h, System.nanoTime() + Duration.ofSeconds(10).toNanos());
      }
    }
    for (String n : names) {
      Files.deleteIfExists(pidFile(n));
    }
  }

  private void kill(String name) throws IOException {
    Optional<ProcessHandle> h = handle(name);
    if (h.isEmpty()) {
      throw new IOException(name + " is not running");
    }
    h.get().destroyForcibly();
    if (!awaitExit(h.get(), System.nanoTime() + Duration.ofSeconds(10).toNanos())) {
      throw new IOException(name + " (pid " + h.get().pid() + ") survived SIGKILL");
    }
    Files.deleteIfExists(pidFile(name));
  }

  private static boolean awaitExit(ProcessHandle h, long deadlineNanos) {
    while (h.isAlive()) {
      if (System.nanoTime() > deadlineNanos) {
        return false;
      }
      sleep(50);
    }
    return true;
  }

  /** Sends {@code SIG<sig>} to {@code name}'s process (kill -s). */
  private void signal(String name, String sig) throws IOException {
    Optional<ProcessHandle> h = handle(name);
    if (h.isEmpty()) {
      throw new IOException(name + " is not running");
    }
    try {
      Process k = new ProcessBuilder("kill", "-s", sig, Long.toString(h.get().pid()))
          .redirectErrorStream(true).start();
      String out = new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (k.waitFor() != 0) {
        throw new IOException("kill -s " + sig + " " + h.get().pid() + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted signalling " + name, e);
    }
  }

  /** Thaws {@code name} if it runs (a no-op on a process that is not stopped). */
  private void resume(String name) throws IOException {
    if (handle(name).isPresent()) {
      signal(name, "CONT");
    }
  }

  private Path pidFile(String name) {
    return dir.resolve("run").resolve(name + ".pid");
  }

  private Path logFile(String name) {
    return dir.resolve("logs").resolve(name + ".log");
  }

  /** Held while a start or stop runs; closing it releases the lock. */
  private interface Lock extends AutoCloseable {
    @Override
    void close() throws IOException;
  }

  /** Serializes starts and stops of this cluster between processes (two `local start`s). */
  private Lock lock() throws IOException {
    Path f = dir.resolve("run").resolve("lock");
    Files.createDirectories(f.getParent());
    FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      ch.lock();
      return ch::close;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** The last lines of a log, for an error message. */
  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return "; the end of " + log + ":\n  "
          + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return " (no log at " + log + ")";
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
