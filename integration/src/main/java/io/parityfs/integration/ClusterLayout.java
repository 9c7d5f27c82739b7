package io.parityfs.integration;

import io.parityfs.integration.LocalCluster.Shape;
import io.parityfs.meta.ZkRoles;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.ZooKeeperTls;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeProperties;
import io.parityfs.node.tls.CertificateAuthority;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.node.tls.TlsContext;
import io.parityfs.node.tls.TlsRole;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;
import javax.net.SocketFactory;

/**
 * Where a {@link LocalCluster} keeps everything, and the files that describe it: the folder
 * layout its class comment lists, the shape file ({@value #SHAPE_FILE}), ZooKeeper's {@code
 * zoo.cfg} (standalone, or each ensemble server's with its {@code myid}), each node's {@code
 * node.properties} (written through {@link NodeConfigKeys}) and drive folders, and the loopback
 * ports chosen at creation. Immutable: shape and ports are fixed when the cluster is created.
 * Every file is written whole (a temporary file moved over it), the shape file last, so a folder
 * holding one is a complete cluster.
 */
final class ClusterLayout {
  static final String SHAPE_FILE = "cluster.properties";
  /** Written once the first start formatted the namespace ({@link LocalCluster#start}). */
  static final String FORMATTED_FILE = "namespace.formatted";
  private static final String ZOOKEEPER = "zookeeper";
  /** The folder of the cluster CA and every certificate of a cluster with TLS. */
  static final String TLS_DIR = "tls";
  /** The ZooKeeper digest of a secure cluster, {@code user:password}, mode 0600. */
  static final String DIGEST_FILE = "zookeeper.digest";
  /** The client identity's digest file of a secure cluster made since rights by role. */
  static final String CLIENT_DIGEST_FILE = "zookeeper-client.digest";
  /** The holder names of the certificates besides the nodes' ({@code node<i>}). */
  static final String ADMIN = "admin";
  static final String CLIENT = "client";
  /** The names every node's certificate holds: the addresses clients dial on this machine. */
  private static final List<String> NODE_HOSTS = List.of("127.0.0.1", "localhost");

  private final Path dir;
  private final Shape shape;
  /** Of an ensemble: per server (index s - 1) its client, quorum and election port; else empty. */
  private final List<int[]> ensemblePorts;

  private ClusterLayout(Path dir, Shape shape, List<int[]> ensemblePorts) {
    this.dir = dir;
    this.shape = shape;
    this.ensemblePorts = ensemblePorts;
  }

  /** Whether {@code dir} holds a cluster. */
  static boolean exists(Path dir) {
    return Files.isRegularFile(dir.resolve(SHAPE_FILE));
  }

  /**
   * Creates the folders and configuration of a new cluster of {@code shape} in {@code dir} (an
   * absolute path), choosing its ports (a ZooKeeper port of 0: 2181 when free, else any).
   */
  static ClusterLayout create(Path dir, Shape shape) throws IOException {
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
    ClusterLayout c = new ClusterLayout(dir, s, ensemble);
    if (s.secure()) {
      c.issueCertificates();
      c.writeDigest();
    }
    c.writeConfiguration();
    Properties p = new Properties();
    p.setProperty("nodes", Integer.toString(s.nodes()));
    p.setProperty("drives", Integer.toString(s.drives()));
    p.setProperty("geometry", s.geometry());
    p.setProperty("zookeeper.port", Integer.toString(s.zooKeeperPort()));
    p.setProperty("node.heap", s.nodeHeap());
    p.setProperty("secure", Boolean.toString(s.secure()));
    p.setProperty("zookeeper.tls", Boolean.toString(s.zooKeeperTls()));
    if (!ensemble.isEmpty()) {
      p.setProperty("zookeeper.servers", Integer.toString(s.zooKeeperServers()));
      p.setProperty("zookeeper.ensemble.ports", ensemble.stream()
          .map(e -> e[0] + ":" + e[1] + ":" + e[2]).collect(Collectors.joining(",")));
    }
    // written last: a folder with this file is a complete cluster
    writeProperties(dir.resolve(SHAPE_FILE), p, "ParityFS local cluster (parityfs local)");
    return c;
  }

  /** The cluster in {@code dir} (an absolute path); IOException when there is none. */
  static ClusterLayout open(Path dir) throws IOException {
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
          Integer.parseInt(p.getProperty("zookeeper.servers", "1")),
          // a cluster made before security was has no key: it stays plaintext and open
          Boolean.parseBoolean(p.getProperty("secure", "false")),
          Boolean.parseBoolean(p.getProperty("zookeeper.tls", "false")));
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
      return new ClusterLayout(dir, s, ensemble);
    } catch (RuntimeException e) {
      throw new IOException(f + " is damaged: " + e.getMessage(), e);
    }
  }

  Path dir() {
    return dir;
  }

  Shape shape() {
    return shape;
  }

  /** {@link LocalCluster#connectString}. */
  String connectString() {
    if (ensemblePorts.isEmpty()) {
      return "127.0.0.1:" + shape.zooKeeperPort();
    }
    return ensemblePorts.stream().map(e -> "127.0.0.1:" + e[0])
        .collect(Collectors.joining(","));
  }

  /** The client port of ZooKeeper server {@code s} (1-based; 1 for a standalone server). */
  int zooKeeperClientPort(int s) {
    checkServer(s);
    return ensemblePorts.isEmpty() ? shape.zooKeeperPort() : ensemblePorts.get(s - 1)[0];
  }

  // ---------------------------------------------------------------- names and paths

  /** The name node {@code i} registers under, and its folder's. */
  String nodeName(int i) {
    return "node" + i;
  }

  /** The process name (and folder) of ZooKeeper server {@code s}. */
  String zooKeeperName(int s) {
    return shape.zooKeeperServers() == 1 ? ZOOKEEPER : ZOOKEEPER + s;
  }

  int checkNode(int i) {
    if (i < 0 || i >= shape.nodes()) {
      throw new IllegalArgumentException("no node " + i + " (the cluster has " + shape.nodes()
          + ")");
    }
    return i;
  }

  int checkServer(int s) {
    if (s < 1 || s > shape.zooKeeperServers()) {
      throw new IllegalArgumentException("no ZooKeeper server " + s + " (the cluster has "
          + shape.zooKeeperServers() + ")");
    }
    return s;
  }

  Path nodeDir(int i) {
    return dir.resolve(nodeName(checkNode(i)));
  }

  /** Node {@code i}'s configuration file. */
  Path nodeConfig(int i) {
    return nodeDir(i).resolve("node.properties");
  }

  /** Drive folder {@code d} of node {@code i}. */
  Path drive(int i, int d) {
    return nodeDir(i).resolve("drive" + d);
  }

  /**
   * The TLS files of holder {@code name} ({@code node<i>}, {@link LocalCluster#KEEPER}, {@link
   * #ADMIN}, {@link #CLIENT}), with the CA's revocation list; {@link TlsConfig#OFF} when the
   * cluster is plaintext.
   */
  TlsConfig tls(String name) {
    return shape.secure() ? TlsConfig.inDirectory(dir.resolve(TLS_DIR), name) : TlsConfig.OFF;
  }

  /**
   * TLS to ZooKeeper as holder {@code name}: the CA's certificate and the holder's {@code
   * name.pem} (key and certificate); {@code null} when ZooKeeper's port is plaintext.
   */
  ZooKeeperTls zooKeeperTls(String name) {
    if (!shape.zooKeeperTls()) {
      return null;
    }
    Path tls = dir.resolve(TLS_DIR);
    return new ZooKeeperTls(tls.resolve(CertificateAuthority.CA_CERT), tls.resolve(name + ".pem"));
  }

  /**
   * How to open a connection to a ZooKeeper server of the cluster for its four-letter words: a
   * plain socket, or TLS with the admin certificate when ZooKeeper listens for TLS only.
   */
  SocketFactory zooKeeperSockets() throws IOException {
    return shape.zooKeeperTls()
        ? TlsContext.jdkClientContext(tls(ADMIN)).getSocketFactory() : SocketFactory.getDefault();
  }

  /** {@link LocalCluster#digestFile}. */
  Optional<Path> digestFile() {
    return shape.secure() ? Optional.of(dir.resolve(DIGEST_FILE)) : Optional.empty();
  }

  /**
   * The client identity's digest file (the core-site's): {@value #CLIENT_DIGEST_FILE} where the
   * cluster has one (made since rights by role), else the cluster's own.
   */
  Optional<Path> clientDigestFile() {
    Optional<Path> client = shape.secure() ? Optional.of(dir.resolve(CLIENT_DIGEST_FILE))
        : Optional.empty();
    return client.isPresent() && Files.exists(client.get()) ? client : digestFile();
  }

  /** The cluster identity's roles ({@link ZkRoles}) of a secure cluster, or null. */
  ZkRoles roles() {
    Optional<Path> f = digestFile();
    if (f.isEmpty()) {
      return null;
    }
    try {
      return ZkRoles.read(f.get());
    } catch (IOException e) {
      throw new UncheckedIOException("the cluster's ZooKeeper digest is unreadable", e);
    }
  }

  /** The digest {@code user:password} of a secure cluster, else "". */
  String digest() {
    Optional<Path> f = digestFile();
    if (f.isEmpty()) {
      return "";
    }
    try {
      return ZooKeeperSettings.readDigestFile(f.get());
    } catch (IOException e) {
      throw new UncheckedIOException("the cluster's ZooKeeper digest is unreadable", e);
    }
  }

  /** The {@code zoo.cfg} of ZooKeeper server {@code s}. */
  Path zooKeeperConfig(int s) {
    return dir.resolve(zooKeeperName(s)).resolve("zoo.cfg");
  }

  /** The pid file of process {@code name} while it runs. */
  Path pidFile(String name) {
    return dir.resolve("run").resolve(name + ".pid");
  }

  /** Where process {@code name}'s output goes. */
  Path logFile(String name) {
    return dir.resolve("logs").resolve(name + ".log");
  }

  /** The file whose lock serializes starts and stops between processes. */
  Path lockFile() {
    return dir.resolve("run").resolve("lock");
  }

  // ---------------------------------------------------------------- node configuration

  /** {@link LocalCluster#nodeProperties}. */
  Properties nodeProperties(int i) throws IOException {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(nodeConfig(i))) {
      p.load(in);
    }
    return p;
  }

  /** {@link LocalCluster#updateNodeConfig}. */
  void updateNodeConfig(int i, Map<String, String> changes) throws IOException {
    Properties p = nodeProperties(i);
    changes.forEach((k, v) -> {
      if (v == null) {
        p.remove(k);
      } else {
        p.setProperty(k, v);
      }
    });
    writeNodeConfig(i, p);
  }

  private void writeNodeConfig(int i, Properties p) throws IOException {
    writeProperties(nodeConfig(i), p, "storage node " + nodeName(i)
        + " of the ParityFS local cluster (keys: conf/storage-node.properties)");
  }

  // ---------------------------------------------------------------- creation

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
    clientPort(z, ensemblePorts.get(s - 1)[0]);
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

  /**
   * The cluster CA (its key stays in the cluster's folder: this is a cluster for one machine)
   * and a certificate for every node ({@code node<i>}, role node, for 127.0.0.1 and localhost),
   * the keeper (role node), the CLI ({@link #ADMIN}) and the mount and Hadoop clients ({@link
   * #CLIENT}), each valid ten years, all in {@value #TLS_DIR}/.
   */
  private void issueCertificates() throws IOException {
    Path tls = dir.resolve(TLS_DIR);
    CertificateAuthority ca = CertificateAuthority.init(tls, "local");
    Duration validity = CertificateAuthority.CA_VALIDITY.minusDays(1);
    for (int i = 0; i < shape.nodes(); i++) {
      ca.issue(TlsRole.NODE, nodeName(i), validity, NODE_HOSTS, tls);
    }
    ca.issue(TlsRole.NODE, LocalCluster.KEEPER, validity, List.of(), tls);
    ca.issue(TlsRole.ADMIN, ADMIN, validity, List.of(), tls);
    ca.issue(TlsRole.CLIENT, CLIENT, validity, List.of(), tls);
    if (shape.zooKeeperTls()) {
      ca.issue(TlsRole.NODE, ZOOKEEPER, validity, NODE_HOSTS, tls);
    }
  }

  /**
   * The client port of ZooKeeper server {@code s}'s {@code zoo.cfg}: plaintext, or TLS only
   * (ZooKeeper's Netty connection factory, the {@code zookeeper} certificate, client
   * certificates of the cluster CA required; the server's own host name check of clients is
   * off, as client certificates name no host). An ensemble's quorum and election traffic stays
   * plaintext on loopback.
   */
  private void clientPort(Properties z, int port) {
    if (!shape.zooKeeperTls()) {
      z.setProperty("clientPort", Integer.toString(port));
      z.setProperty("clientPortAddress", "127.0.0.1");
      return;
    }
    Path tls = dir.resolve(TLS_DIR);
    z.setProperty("secureClientPort", Integer.toString(port));
    z.setProperty("secureClientPortAddress", "127.0.0.1");
    z.setProperty("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
    z.setProperty("ssl.keyStore.location", tls.resolve(ZOOKEEPER + ".pem").toString());
    z.setProperty("ssl.keyStore.type", "PEM");
    z.setProperty("ssl.trustStore.location", tls.resolve(CertificateAuthority.CA_CERT)
        .toString());
    z.setProperty("ssl.trustStore.type", "PEM");
    z.setProperty("ssl.clientAuth", "need");
    z.setProperty("ssl.protocol", "TLSv1.3");
    z.setProperty("ssl.enabledProtocols", "TLSv1.3");
    z.setProperty("ssl.clientHostnameVerification", "false");
  }

  /**
   * The cluster's two random digest identities ({@code parityfs:} or {@code client:} and 24
   * random bytes, base64url), each in a file readable by its owner only with the public ids of
   * both ({@link ZkRoles}): {@value #DIGEST_FILE} for the nodes, the keeper and the admin CLI,
   * {@value #CLIENT_DIGEST_FILE} for Hadoop clients (the core-site lines), which may read the
   * registry but not write it.
   */
  private void writeDigest() throws IOException {
    String cluster = "parityfs:" + secret();
    String client = "client:" + secret();
    ZkRoles roles = new ZkRoles(ZkRoles.idOf(cluster), ZkRoles.idOf(client));
    writeSecret(dir.resolve(DIGEST_FILE), cluster + "\n" + roles.fileLines());
    writeSecret(dir.resolve(CLIENT_DIGEST_FILE), client + "\n" + roles.fileLines());
  }

  private static String secret() {
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }

  private static void writeSecret(Path f, String text) throws IOException {
    Files.deleteIfExists(f);
    Files.createFile(f, PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
    Files.writeString(f, text, StandardCharsets.US_ASCII);
  }

  private void writeStandaloneZooKeeper() throws IOException {
    Path zk = dir.resolve(ZOOKEEPER);
    Files.createDirectories(zk.resolve("data"));
    Properties z = new Properties();
    z.setProperty("tickTime", "2000");
    z.setProperty("dataDir", zk.resolve("data").toString());
    clientPort(z, shape.zooKeeperPort());
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
      NodeProperties n = NodeProperties.create();
      TlsConfig tls = tls(nodeName(i));
      if (tls.enabled()) {
        n.set(NodeConfigKeys.SECURITY_TLS, true)
            .set(NodeConfigKeys.SECURITY_TLS_KEY, tls.key().toString())
            .set(NodeConfigKeys.SECURITY_TLS_CERT, tls.cert().toString())
            .set(NodeConfigKeys.SECURITY_TLS_CA, tls.ca().toString())
            .set(NodeConfigKeys.SECURITY_TLS_CRL, tls.crl().toString());
      }
      digestFile().ifPresent(f -> n.set(NodeConfigKeys.ZK_DIGEST_FILE, f.toString()));
      ZooKeeperTls zkTls = zooKeeperTls(nodeName(i));
      if (zkTls != null) {
        n.set(NodeConfigKeys.ZK_TLS_TRUST_STORE, zkTls.trustStore().toString())
            .set(NodeConfigKeys.ZK_TLS_KEY_STORE, zkTls.keyStore().toString());
      }
      Properties p = n
          .set(NodeConfigKeys.NODE_NAME, nodeName(i))
          .set(NodeConfigKeys.NODE_ID_FILE, home.resolve("node.id"))
          .set(NodeConfigKeys.LISTEN_HOST, "127.0.0.1")
          .set(NodeConfigKeys.LISTEN_PORT, 0)
          .set(NodeConfigKeys.METRICS_HOST, "127.0.0.1")
          .set(NodeConfigKeys.METRICS_PORT, 0)
          .set(NodeConfigKeys.ZK_CONNECT, connectString())
          .set(NodeConfigKeys.ZK_SESSION_TIMEOUT, Duration.ofSeconds(10))
          .set(NodeConfigKeys.ZK_CONNECTION_TIMEOUT, Duration.ofSeconds(30))
          .set(LocalCluster.TARGET, NodeConfigKeys.DRIVES, drives)
          .set(LocalCluster.TARGET, NodeConfigKeys.CREATE, true)
          .setText(LocalCluster.TARGET, NodeConfigKeys.GEOMETRY, shape.geometry())
          .toProperties();
      writeNodeConfig(i, p);
    }
  }

  private static void writeProperties(Path file, Properties p, String comment)
      throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    StringWriter text = new StringWriter();
    p.store(text, comment);
    // the comment lines first, then the keys sorted, so the file reads well
    List<String> lines = text.toString().lines().toList();
    List<String> keys = new ArrayList<>(lines.stream().filter(l -> !l.startsWith("#")).toList());
    keys.sort(null);
    List<String> out = new ArrayList<>(lines.stream().filter(l -> l.startsWith("#")).toList());
    out.addAll(keys);
    Files.write(tmp, out, StandardCharsets.ISO_8859_1);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  // ---------------------------------------------------------------- ports

  /** {@code n} distinct free loopback ports, none of them {@code except}. */
  private static List<Integer> freePorts(int n, int except) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      while (ports.size() < n) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
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
    if (free(LocalCluster.DEFAULT_ZOOKEEPER_PORT)) {
      return LocalCluster.DEFAULT_ZOOKEEPER_PORT;
    }
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Whether {@code port} on the loopback address can be bound (nothing listens there). */
  static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
