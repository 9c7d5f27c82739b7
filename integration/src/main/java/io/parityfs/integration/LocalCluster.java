package io.parityfs.integration;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.integration.ProcessSupervisor.Lock;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.Layout;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.ZooKeeperTls;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.tls.TlsConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * A ParityFS cluster on this machine, kept in one folder: a ZooKeeper server (or an ensemble of
 * three, {@link Shape#zooKeeperServers}) and {@code n} storage nodes, each a child JVM of its
 * own, each node serving one RAID target over {@code m} drive folders. It is what {@code
 * parityfs local} runs and what the crash tests kill pieces of.
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
 * object of this class holds no resources; {@link #stop} ends the supervisor.
 */
public final class LocalCluster {
  /** The target every node serves, named the same on each. */
  public static final String TARGET = "t";
  /** The ZooKeeper port a new cluster takes when it is free. */
  public static final int DEFAULT_ZOOKEEPER_PORT = 2181;
  private static final String NODE_MAIN = "io.parityfs.node.cli.NodeCommand";
  /** The process name (and log name) of the keeper (docs/across-nodes.md §5). */
  public static final String KEEPER = "keeper";
  /** Seconds between two rounds of the local cluster's keeper. */
  static final int KEEPER_INTERVAL_S = 10;

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
   * @param secure mutual TLS between every process and the nodes, and digest authentication
   *     with creator-only ACLs on ZooKeeper (docs/security.md): at creation a cluster CA and
   *     certificates for the nodes, the keeper, an admin CLI and a client are made in {@code
   *     tls/}, and a random digest in {@code zookeeper.digest}; false: plaintext and open ACLs
   *     on loopback (as every cluster made before this was)
   * @param zooKeeperTls (secure clusters only) TLS to ZooKeeper too: its servers listen for TLS
   *     only (ZooKeeper's own client TLS, a {@code zookeeper} certificate, client certificates
   *     required) and every process connects with its certificate; false: ZooKeeper's client
   *     port is plaintext on loopback, digest-authenticated
   */
  public record Shape(int nodes, int drives, String geometry, int zooKeeperPort,
      String nodeHeap, int zooKeeperServers, boolean secure, boolean zooKeeperTls) {
    public Shape {
      if (zooKeeperTls && !secure) {
        throw new IllegalArgumentException("TLS to ZooKeeper needs a secure cluster (its CA)");
      }
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

    /** A secure shape with a standalone ZooKeeper server. */
    public Shape(int nodes, int drives, String geometry, int zooKeeperPort, String nodeHeap) {
      this(nodes, drives, geometry, zooKeeperPort, nodeHeap, 1, true, false);
    }

    /** A secure shape. */
    public Shape(int nodes, int drives, String geometry, int zooKeeperPort, String nodeHeap,
        int zooKeeperServers) {
      this(nodes, drives, geometry, zooKeeperPort, nodeHeap, zooKeeperServers, true, false);
    }

    /** 3 nodes, each a RAID-6 4+2 target over 6 drives, secure. */
    public static Shape defaults() {
      return new Shape(3, 6, "raid6:4+2", 0, "2g");
    }

    public Shape withNodes(int n) {
      return new Shape(n, drives, geometry, zooKeeperPort, nodeHeap, zooKeeperServers, secure,
          zooKeeperTls);
    }

    public Shape withDrives(int d, String g) {
      return new Shape(nodes, d, g, zooKeeperPort, nodeHeap, zooKeeperServers, secure,
          zooKeeperTls);
    }

    public Shape withZooKeeperPort(int port) {
      return new Shape(nodes, drives, geometry, port, nodeHeap, zooKeeperServers, secure,
          zooKeeperTls);
    }

    /** This shape with a ZooKeeper ensemble of {@code servers} (1 or 3). */
    public Shape withZooKeeperServers(int servers) {
      return new Shape(nodes, drives, geometry, zooKeeperPort, nodeHeap, servers, secure,
          zooKeeperTls);
    }

    /** This shape secure (TLS and ZooKeeper digest) or not (plaintext, open ACLs). */
    public Shape withSecure(boolean on) {
      return new Shape(nodes, drives, geometry, zooKeeperPort, nodeHeap, zooKeeperServers, on,
          zooKeeperTls && on);
    }

    /** This shape with TLS to ZooKeeper or without (a secure shape). */
    public Shape withZooKeeperTls(boolean on) {
      return new Shape(nodes, drives, geometry, zooKeeperPort, nodeHeap, zooKeeperServers,
          secure, on);
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


  private final ClusterLayout layout;
  private final ProcessSupervisor supervisor;
  private final ZooKeeperServers zooKeeper;
  /** Extra environment of a node's JVM, by node index ({@link #setNodeEnvironment}). */
  private final Map<Integer, Map<String, String>> nodeEnvironment =
      new ConcurrentHashMap<>();
  /** Whether {@link #start} runs the keeper ({@link #withoutKeeper}). */
  private volatile boolean keeper = true;

  private LocalCluster(ClusterLayout layout) {
    this.layout = layout;
    this.supervisor = new ProcessSupervisor(layout);
    this.zooKeeper = new ZooKeeperServers(layout, supervisor);
  }

  /** Whether {@code dir} holds a cluster. */
  public static boolean exists(Path dir) {
    return ClusterLayout.exists(dir);
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
    return new LocalCluster(ClusterLayout.create(dir, shape));
  }

  /** The cluster in {@code dir}; IOException when there is none. */
  public static LocalCluster open(Path dir) throws IOException {
    return new LocalCluster(ClusterLayout.open(dir.toAbsolutePath().normalize()));
  }

  public Path dir() {
    return layout.dir();
  }

  public Shape shape() {
    return layout.shape();
  }

  /** The ZooKeeper connect string of the cluster (every server of an ensemble). */
  public String connectString() {
    return layout.connectString();
  }

  /** The client port of ZooKeeper server {@code s} (1-based; 1 for a standalone server). */
  public int zooKeeperClientPort(int s) {
    return layout.zooKeeperClientPort(s);
  }

  /**
   * The cluster's ZooKeeper settings: its servers, a 10 s session, its digest when secure, TLS
   * with the admin certificate when its ZooKeeper takes TLS only.
   */
  public ZooKeeperSettings zooKeeper() {
    return ZooKeeperSettings.of(connectString()).withSessionTimeout(Duration.ofSeconds(10))
        .withDigest(layout.digest()).withRoles(layout.roles())
        .withTls(layout.zooKeeperTls(ClusterLayout.ADMIN));
  }

  /** The file of the ZooKeeper digest ({@code user:password}, mode 0600); empty when open. */
  public Optional<Path> digestFile() {
    return layout.digestFile();
  }

  /**
   * The TLS files of holder {@code name}: {@code node<i>}, {@value #KEEPER}, {@value
   * ClusterLayout#ADMIN} (the CLI's), {@value ClusterLayout#CLIENT} (the mount's and Hadoop's);
   * {@link TlsConfig#OFF} for a plaintext cluster.
   */
  public TlsConfig tls(String name) {
    return layout.tls(name);
  }

  /** Storage-node client settings with the admin certificate (plaintext without TLS). */
  public NodeClientConfig.Builder nodeClientConfig() {
    return NodeClientConfig.builder().tls(tls(ClusterLayout.ADMIN));
  }

  /** Client settings for this cluster: its ZooKeeper and {@link #nodeClientConfig}. */
  public ClientConfig.Builder clientConfig() {
    return ClientConfig.builder(zooKeeper()).nodes(nodeClientConfig().build());
  }

  /** A client of the cluster acting for {@code caller} (with the admin certificate). */
  public ParityClient client(Caller caller) throws IOException {
    return ParityClient.connect(clientConfig().build(), caller);
  }

  /**
   * The {@code parityfs} global options that reach this cluster as holder {@code name}: {@code
   * --zookeeper} and, when secure, {@code --digest-file} and {@code
   * --tls-key/--tls-cert/--tls-ca/--tls-crl}.
   */
  public List<String> cliOptions(String name) {
    List<String> o = new ArrayList<>(List.of("--zookeeper", connectString()));
    (ClusterLayout.CLIENT.equals(name) ? layout.clientDigestFile() : digestFile())
        .ifPresent(f -> o.addAll(List.of("--digest-file", f.toString())));
    ZooKeeperTls zkTls = layout.zooKeeperTls(name);
    if (zkTls != null) {
      o.addAll(List.of("--zk-tls-truststore", zkTls.trustStore().toString(),
          "--zk-tls-keystore", zkTls.keyStore().toString()));
    }
    Map<String, String> tlsOptions = new LinkedHashMap<>();
    putTls(tlsOptions, "--tls-", tls(name), false);
    tlsOptions.forEach((option, file) -> o.addAll(List.of(option, file)));
    return o;
  }

  /** {@link #cliOptions} with the admin certificate: what an operator's CLI uses. */
  public List<String> cliOptions() {
    return cliOptions(ClusterLayout.ADMIN);
  }

  /**
   * The environment that points {@code parityfs} at this cluster with the admin certificate
   * ({@code parityfs local env}): {@code PARITYFS_ZOOKEEPER} and, when secure, {@code
   * PARITYFS_DIGEST_FILE}, {@code PARITYFS_TLS_KEY}, {@code _CERT}, {@code _CA}, {@code _CRL}.
   */
  public Map<String, String> cliEnvironment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PARITYFS_ZOOKEEPER", connectString());
    digestFile().ifPresent(f -> env.put("PARITYFS_DIGEST_FILE", f.toString()));
    ZooKeeperTls zkTls = layout.zooKeeperTls(ClusterLayout.ADMIN);
    if (zkTls != null) {
      env.put("PARITYFS_ZK_TLS_TRUSTSTORE", zkTls.trustStore().toString());
      env.put("PARITYFS_ZK_TLS_KEYSTORE", zkTls.keyStore().toString());
    }
    putTls(env, "PARITYFS_TLS_", tls(ClusterLayout.ADMIN), true);
    return env;
  }

  /**
   * The Hadoop keys ({@code core-site.xml}) of a {@code pfs://<cluster>/} client of this
   * cluster: its ZooKeeper and, when secure, the client identity's digest file and the client
   * certificate ({@code fs.pfs.tls.*}).
   */
  public Map<String, String> hadoopProperties(String cluster) {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("fs.pfs.cluster." + cluster + ".zookeeper", connectString());
    // the client identity (rights by role): it may read the registry, not write it
    layout.clientDigestFile().ifPresent(f -> conf.put("fs.pfs.cluster." + cluster
        + ".digest.file", f.toString()));
    ZooKeeperTls zkTls = layout.zooKeeperTls(ClusterLayout.CLIENT);
    if (zkTls != null) {
      conf.put("fs.pfs.zookeeper.tls.truststore", zkTls.trustStore().toString());
      conf.put("fs.pfs.zookeeper.tls.keystore", zkTls.keyStore().toString());
    }
    putTls(conf, "fs.pfs.tls.", tls(ClusterLayout.CLIENT), false);
    return conf;
  }

  /** {@code t}'s four files as {@code prefix} + key, cert, ca, crl (upper case: KEY, ...). */
  private static void putTls(Map<String, String> into, String prefix, TlsConfig t,
      boolean upper) {
    if (!t.enabled()) {
      return;
    }
    List<Path> files = List.of(t.key(), t.cert(), t.ca(), t.crl());
    List<String> names = List.of("key", "cert", "ca", "crl");
    for (int i = 0; i < files.size(); i++) {
      String n = names.get(i);
      into.put(prefix + (upper ? n.toUpperCase(java.util.Locale.ROOT) : n),
          files.get(i).toString());
    }
  }

  /** Node {@code i}'s configuration file. */
  public Path nodeConfig(int i) {
    return layout.nodeConfig(i);
  }

  /**
   * Sets keys of node {@code i}'s configuration (a null value removes the key), for its next
   * start: how tests route a node through a proxy ({@code node.listen.*}, {@code
   * node.advertise.host}, {@code zookeeper.connect}) or change its drives ({@code
   * target.t.drives}). The keys are those of {@code conf/storage-node.properties}.
   */
  public void updateNodeConfig(int i, Map<String, String> changes) throws IOException {
    layout.updateNodeConfig(i, changes);
  }

  /** Node {@code i}'s configuration as it is now on disk. */
  public Properties nodeProperties(int i) throws IOException {
    return layout.nodeProperties(i);
  }

  /** Drive folder {@code d} of node {@code i}. */
  public Path drive(int i, int d) {
    return layout.drive(i, d);
  }

  /** The name node {@code i} registers under. */
  public String nodeName(int i) {
    return layout.nodeName(i);
  }

  /** The ZooKeeper server (of an ensemble: server 1). */
  public ProcessState zooKeeperProcess() {
    return supervisor.state(zooKeeperName(1));
  }

  /** ZooKeeper server {@code s} (1-based). */
  public ProcessState zooKeeperProcess(int s) {
    return supervisor.state(zooKeeperName(layout.checkServer(s)));
  }

  /** The process name (and folder) of ZooKeeper server {@code s}. */
  public String zooKeeperName(int s) {
    return layout.zooKeeperName(s);
  }

  /**
   * The server that answers {@code srvr} with {@code Mode: leader} (of a standalone server:
   * 1 when it serves), or empty when none does now.
   */
  public Optional<Integer> zooKeeperLeader() {
    return zooKeeper.leader();
  }

  public ProcessState nodeProcess(int i) {
    return supervisor.state(nodeName(layout.checkNode(i)));
  }

  /** The keeper process (catch-up, re-protection, drains: docs/across-nodes.md §5). */
  public ProcessState keeperProcess() {
    return supervisor.state(KEEPER);
  }

  /**
   * This object's starts leave the keeper out (a test that runs catch-up or re-protection itself
   * and counts what it did); a keeper already running is stopped by {@link #stop} as ever.
   */
  public LocalCluster withoutKeeper() {
    keeper = false;
    return this;
  }

  /** Every process: ZooKeeper (each server of an ensemble), the nodes, then the keeper. */
  public List<ProcessState> processes() {
    List<ProcessState> all = new ArrayList<>();
    for (int s = 1; s <= shape().zooKeeperServers(); s++) {
      all.add(zooKeeperProcess(s));
    }
    for (int i = 0; i < shape().nodes(); i++) {
      all.add(nodeProcess(i));
    }
    if (keeper || keeperProcess().running()) {
      all.add(keeperProcess());
    }
    return all;
  }

  /**
   * Starts whatever is not running (ZooKeeper first, then the nodes and the keeper) and waits
   * until every node's target is online, or {@code timeout}. {@code progress} hears what happens.
   */
  public void start(Duration timeout, Consumer<String> progress) throws IOException {
    long end = System.nanoTime() + timeout.toNanos();
    try (Lock ignored = supervisor.lock()) {
      zooKeeper.start(end, progress);
      formatOnFirstStart(progress);
      for (int i = 0; i < shape().nodes(); i++) {
        if (!nodeProcess(i).running()) {
          progress.accept("starting storage node " + nodeName(i));
          spawnNode(i);
        }
      }
      if (keeper && !keeperProcess().running()) {
        progress.accept("starting the keeper (catch-up and re-protection across nodes)");
        supervisor.spawn(KEEPER, supervisor.javaCommand(KEEPER, "512m",
            List.of("--add-modules", "jdk.incubator.vector"),
            keeperCommand()));
      }
    }
    awaitTargetsOnline(shape().nodes(), end, progress);
    setRootLayout(progress);
  }

  /** The keeper's command line, with the keeper's certificate (role node) under TLS. */
  private List<String> keeperCommand() {
    List<String> cmd = new ArrayList<>(List.of(io.parityfs.cli.Main.class.getName()));
    cmd.addAll(cliOptions(KEEPER));
    cmd.addAll(List.of("--user", "root", "--groups", "supergroup", "keeper", "--interval",
        Integer.toString(KEEPER_INTERVAL_S)));
    return cmd;
  }

  /**
   * At the cluster's first start, before any node: formats its namespace (what {@code parityfs
   * format} does; clients never do). Later starts leave a missing namespace missing: ZooKeeper
   * lost its data, and clients say so instead of finding an empty file system over the nodes'
   * chunks. The file {@value ClusterLayout#FORMATTED_FILE} records that the first start
   * formatted it.
   */
  private void formatOnFirstStart(Consumer<String> progress) throws IOException {
    Path marker = dir().resolve(ClusterLayout.FORMATTED_FILE);
    if (Files.exists(marker)) {
      return;
    }
    boolean created = ParityClient.format(clientConfig().build());
    progress.accept(created ? "namespace formatted" : "namespace already formatted");
    closeZooKeeperRoot();
    Files.writeString(marker, "the namespace of this cluster was formatted at its first start;"
        + " `parityfs format` makes one again if ZooKeeper lost it\n");
  }

  /**
   * A secure cluster's ZooKeeper is its own: its root znode ({@code /}, outside the namespace's
   * chroot) stops taking creates from anonymous sessions (ZooKeeper's default ACL lets anyone
   * create there), readable by all, writable by the cluster's digest identity only. A shared
   * ensemble's root is the ensemble owner's business, so only the local cluster does this.
   */
  private void closeZooKeeperRoot() throws IOException {
    if (!layout.shape().secure()) {
      return;
    }
    List<ACL> acl = new ArrayList<>(zooKeeper().acl());
    acl.add(new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
    try (CuratorFramework zk = zooKeeper().withChroot("").newClient()) {
      zk.start();
      if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) {
        throw new IOException("cannot reach ZooKeeper at " + connectString());
      }
      zk.setACL().withACL(acl).forPath("/");
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("setting the ACL of ZooKeeper's root: " + e, e);
    }
  }

  /**
   * At the first start: the root's default layout (still the namespace's built-in one) becomes
   * one that stripes files over every node's target (at most {@link Layout#DEFAULT}'s count, at
   * least the policy's width) with the nodes' geometry inside each node and {@link
   * #defaultAcross} across them; every file inherits it. A layout set by hand is left alone.
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
      long nodes = c.registry().targets().stream().filter(t -> d.pool().equals(t.pool()))
          .map(TargetInfo::nodeId).distinct().count();
      Across across = defaultAcross((int) nodes);
      int stripe = (int) Math.max(across.width(), Math.min(d.stripeCount(), inPool));
      Layout l = new Layout(d.chunkSize(), stripe, List.of(), shape().geometry(), across,
          d.pool());
      c.namespace().setLayout("/", l);
      progress.accept("default layout of /: " + l.stripeCount() + " targets, "
          + (l.chunkSize() >> 20) + " MiB chunks, " + l.protection() + " inside each node, "
          + across + " across nodes");
      if (!across.isNone() && across.width() >= nodes) {
        progress.accept("note: " + across + " uses all " + nodes + " nodes: it survives one"
            + " node down, but after a node is lost for good no node is left to rebuild its"
            + " members on (reprotect says so) until one is added; `--nodes " + (nodes + 1)
            + "` gives a spare (docs/across-nodes.md §6)");
      }
    }
  }

  /**
   * The protection across nodes a new local cluster of {@code nodes} storage nodes gives its
   * root (docs/across-nodes.md §6): {@code ec:4+1} from 5 nodes on (1.25x across nodes), {@code
   * ec:(n-1)+1} with 3 or 4 (the default 3 nodes: {@code ec:2+1}, 1.5x), {@code mirror:2} with
   * 2, none with 1. Each survives one node lost; {@code parityfs setstripe --across} changes it.
   */
  public static Across defaultAcross(int nodes) {
    if (nodes >= 5) {
      return Across.ec(4, 1);
    }
    if (nodes >= 3) {
      return Across.ec(nodes - 1, 1);
    }
    return nodes == 2 ? Across.mirror(2) : Across.NONE;
  }

  /**
   * Starts the ZooKeeper servers that are not running and waits until they serve (an ensemble:
   * until every server is a leader or a follower).
   */
  public void startZooKeeper(Duration timeout) throws IOException {
    try (Lock ignored = supervisor.lock()) {
      zooKeeper.start(System.nanoTime() + timeout.toNanos(), m -> { });
    }
  }

  /**
   * Starts ZooKeeper server {@code s} of an ensemble if it is not running; waits until it
   * serves when {@code await} (it cannot while no quorum is up: start the others first).
   */
  public void startZooKeeper(int s, boolean await, Duration timeout) throws IOException {
    layout.checkServer(s);
    try (Lock ignored = supervisor.lock()) {
      if (!zooKeeperProcess(s).running()) {
        zooKeeper.spawn(s, m -> { });
      }
    }
    if (await) {
      zooKeeper.awaitServing(s, System.nanoTime() + timeout.toNanos());
    }
  }

  /**
   * Variables added to the environment of node {@code i}'s JVM from its next start on, e.g.
   * {@code LD_PRELOAD} and {@code FAKETIME} to skew its clock in a test; held by this object
   * only (not stored in the cluster's folder), so a node started by another process, or by
   * {@code parityfs local} later, runs without them. An empty map removes them.
   */
  public void setNodeEnvironment(int i, Map<String, String> env) {
    layout.checkNode(i);
    nodeEnvironment.put(i, Map.copyOf(env));
  }

  /** Starts node {@code i} if it is not running (does not wait for its target). */
  public void startNode(int i) throws IOException {
    try (Lock ignored = supervisor.lock()) {
      if (!nodeProcess(i).running()) {
        spawnNode(i);
      }
    }
  }

  private void spawnNode(int i) throws IOException {
    // the node's LogManager from the JVM's start (set in main, it comes too late: the JDK's
    // start-up already made one), so what a node logs while it stops on SIGTERM is kept
    List<String> cmd = supervisor.javaCommand(nodeName(i), shape().nodeHeap(),
        List.of("--add-modules", "jdk.incubator.vector",
            "-Djava.util.logging.manager=io.parityfs.node.NodeLogManager"),
        List.of(NODE_MAIN, "start", "--config", nodeConfig(i).toString()));
    supervisor.spawn(nodeName(i), cmd, nodeEnvironment.getOrDefault(i, Map.of()));
  }

  /**
   * Stops every process: the keeper and the nodes first (SIGTERM: they finish requests in progress, deregister
   * and close their arrays), then ZooKeeper; what has not exited after {@code timeout} is killed.
   */
  public void stop(Duration timeout, Consumer<String> progress) throws IOException {
    try (Lock ignored = supervisor.lock()) {
      supervisor.terminate(List.of(KEEPER), timeout, progress);
      List<String> nodes = new ArrayList<>();
      for (int i = 0; i < shape().nodes(); i++) {
        nodes.add(nodeName(i));
      }
      supervisor.terminate(nodes, timeout, progress);
      List<String> servers = new ArrayList<>();
      for (int s = 1; s <= shape().zooKeeperServers(); s++) {
        servers.add(zooKeeperName(s));
        // a stopped (SIGSTOP) process does not act on SIGTERM
        supervisor.resume(zooKeeperName(s));
      }
      for (int i = 0; i < shape().nodes(); i++) {
        supervisor.resume(nodeName(i));
      }
      supervisor.terminate(servers, timeout, progress);
    }
  }

  /** Stops node {@code i} gracefully (SIGTERM), killing it after {@code timeout}. */
  public void stopNode(int i, Duration timeout) throws IOException {
    supervisor.terminate(List.of(nodeName(layout.checkNode(i))), timeout, m -> { });
  }

  /** Kills node {@code i} with SIGKILL and waits until it is gone. */
  public void killNode(int i) throws IOException {
    supervisor.kill(nodeName(layout.checkNode(i)));
  }

  /** Kills the ZooKeeper server (every server of an ensemble) with SIGKILL, waiting for each. */
  public void killZooKeeper() throws IOException {
    for (int s = 1; s <= shape().zooKeeperServers(); s++) {
      supervisor.kill(zooKeeperName(s));
    }
  }

  /** Kills ZooKeeper server {@code s} with SIGKILL and waits until it is gone. */
  public void killZooKeeper(int s) throws IOException {
    supervisor.kill(zooKeeperName(layout.checkServer(s)));
  }

  /**
   * Freezes ({@code SIGSTOP}) or thaws ({@code SIGCONT}) ZooKeeper server {@code s}: a frozen
   * server keeps its sockets open and answers nothing, as a server cut off by a partition or
   * stalled by a long pause does.
   */
  public void freezeZooKeeper(int s, boolean frozen) throws IOException {
    supervisor.signal(zooKeeperName(layout.checkServer(s)), frozen ? "STOP" : "CONT");
  }

  /** {@link #freezeZooKeeper} for node {@code i}. */
  public void freezeNode(int i, boolean frozen) throws IOException {
    supervisor.signal(nodeName(layout.checkNode(i)), frozen ? "STOP" : "CONT");
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
        ProcessSupervisor.sleep(100);
      }
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
}
