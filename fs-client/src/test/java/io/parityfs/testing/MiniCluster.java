package io.parityfs.testing;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.StorageNode;
import io.parityfs.node.config.NodeConfig;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.net.NettyNodeServer;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.testing.TestNodeConfig;
import io.parityfs.node.tls.CertificateAuthority;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.node.tls.TlsRole;
import io.parityfs.testkit.Eventually;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.curator.test.TestingServer;

/**
 * A whole cluster in this JVM, for tests: one embedded ZooKeeper server (its namespace
 * formatted first, as {@code parityfs format} does) and {@code n} storage nodes, each serving
 * one RAID target over {@code drives} folders with the real wire-protocol server on a free
 * loopback port. Clients connect with {@link #client}.
 */
public final class MiniCluster implements Closeable {
  private final Path dir;
  private final TestingServer zk;
  private final List<StorageNode> nodes = new ArrayList<>();
  private final List<Properties> props = new ArrayList<>();
  private Path pki;

  private MiniCluster(Path dir) throws Exception {
    this.dir = dir;
    this.zk = new TestingServer(true);
  }

  /**
   * Starts a cluster of {@code nodeCount} nodes with one {@code geometry} target each (e.g.
   * {@code raid6:4+2} on 6 drive folders), and waits until every target is online.
   */
  public static MiniCluster start(Path dir, int nodeCount, String geometry, int drives)
      throws Exception {
    return start(new MiniCluster(dir), nodeCount, geometry, drives);
  }

  /**
   * As {@link #start}, with TLS on every node: a CA in {@code dir/pki}, a node certificate per
   * node (127.0.0.1 and localhost), and {@code client} and {@code admin} certificates there;
   * {@link #clientConfig()} uses the client's.
   */
  public static MiniCluster startWithTls(Path dir, int nodeCount, String geometry, int drives)
      throws Exception {
    MiniCluster c = new MiniCluster(dir);
    c.pki = dir.resolve("pki");
    CertificateAuthority ca = CertificateAuthority.init(c.pki, "mini");
    ca.issue(TlsRole.CLIENT, "client", Duration.ofDays(1), List.of(), c.pki);
    ca.issue(TlsRole.ADMIN, "admin", Duration.ofDays(1), List.of(), c.pki);
    return start(c, nodeCount, geometry, drives);
  }

  /** The CA's folder of a cluster started {@link #startWithTls with TLS}, else null. */
  public Path pki() {
    return pki;
  }

  /**
   * The CLI's options that reach this cluster's nodes as {@code who} ({@code client} or
   * {@code admin}): {@code --tls-key/--tls-cert/--tls-ca} of its certificate; none for a
   * cluster without TLS.
   */
  public List<String> tlsOptions(String who) {
    return pki == null ? List.of() : List.of("--tls-key", pki.resolve(who + ".key").toString(),
        "--tls-cert", pki.resolve(who + ".crt").toString(), "--tls-ca",
        pki.resolve("ca.crt").toString());
  }

  private static MiniCluster start(MiniCluster c, int nodeCount, String geometry, int drives)
      throws Exception {
    try {
      ParityClient.format(c.clientConfig().build()); // clients do not format: the cluster does
      for (int i = 0; i < nodeCount; i++) {
        c.addNode(geometry, drives);
      }
      c.awaitTargets(nodeCount);
      return c;
    } catch (Exception | Error e) {
      c.close();
      throw e;
    }
  }

  /** The ZooKeeper connect string. */
  public String connectString() {
    return zk.getConnectString();
  }

  public ZooKeeperSettings zooKeeper() {
    return ZooKeeperSettings.of(zk.getConnectString()).withSessionTimeout(Duration.ofSeconds(5));
  }

  public ClientConfig.Builder clientConfig() {
    ClientConfig.Builder b = ClientConfig.builder(zooKeeper());
    return pki == null ? b : b.nodes(NodeClientConfig.DEFAULT.toBuilder()
        .tls(TlsConfig.inDirectory(pki, "client")).build());
  }

  /** A client acting for {@code caller} with the default client settings. */
  public ParityClient client(Caller caller) throws IOException {
    return ParityClient.connect(clientConfig().build(), caller);
  }

  public List<StorageNode> nodes() {
    return nodes;
  }

  /** Adds and starts one more node. */
  public StorageNode addNode(String geometry, int drives) throws Exception {
    return addNode(geometry, drives, 0);
  }

  /** Adds and starts one more node serving on loopback port {@code port} (0: a free one). */
  public StorageNode addNode(String geometry, int drives, int port) throws Exception {
    int i = props.size();
    Path home = dir.resolve("node" + i);
    Properties p = TestNodeConfig.target(TestNodeConfig.node(home, "node" + i,
                zk.getConnectString())
            .set(NodeConfigKeys.LISTEN_PORT, port)
            .set(NodeConfigKeys.METRICS_HOST, "127.0.0.1")
            .set(NodeConfigKeys.METRICS_PORT, 0)
            .set(NodeConfigKeys.ZK_SESSION_TIMEOUT, Duration.ofSeconds(4))
            .set(NodeConfigKeys.ZK_CONNECTION_TIMEOUT, Duration.ofSeconds(5)),
            "t", geometry, TestNodeConfig.driveFolders(home, drives))
        .toProperties();
    if (pki != null) {
      CertificateAuthority.open(pki).issue(TlsRole.NODE, "node" + i, Duration.ofDays(1),
          List.of("127.0.0.1", "localhost"), pki);
      p.setProperty(NodeConfigKeys.SECURITY_TLS.name(), "true");
      p.setProperty(NodeConfigKeys.SECURITY_TLS_KEY.name(), pki.resolve("node" + i + ".key")
          .toString());
      p.setProperty(NodeConfigKeys.SECURITY_TLS_CERT.name(), pki.resolve("node" + i + ".crt")
          .toString());
      p.setProperty(NodeConfigKeys.SECURITY_TLS_CA.name(), pki.resolve("ca.crt").toString());
    }
    props.add(p);
    StorageNode node = startNode(p, home);
    nodes.add(node);
    return node;
  }

  private static StorageNode startNode(Properties p, Path home) throws Exception {
    Files.createDirectories(home);
    NodeConfig config = NodeConfigParser.parse(p, "mini-cluster", home);
    StorageNode node = new StorageNode(config, new NettyNodeServer(config.server()));
    node.start();
    return node;
  }

  /** Stops node {@code i} (its session ends: its target goes probably-offline, then offline). */
  public void stopNode(int i) throws IOException {
    nodes.get(i).close();
  }

  /** Restarts a stopped node on the same drives (its array reassembles). */
  public StorageNode restartNode(int i) throws Exception {
    StorageNode node = startNode(props.get(i), dir.resolve("node" + i));
    nodes.set(i, node);
    return node;
  }

  /** The index of the node serving {@code target}, as {@code c}'s registry sees it. */
  public int nodeOf(ParityClient c, String target) throws IOException {
    String node = c.registry().target(target).orElseThrow().nodeId();
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).nodeId().equals(node)) {
        return i;
      }
    }
    throw new IllegalStateException("no node of this cluster serves target " + target);
  }

  /** Every byte of {@code path}, read through {@code c}. */
  public static byte[] read(ParityClient c, String path) throws IOException {
    try (io.parityfs.client.PfsInputStream in = c.open(path)) {
      return in.readAllBytes();
    }
  }

  /** The wire-protocol address node {@code i} serves on (as it registers it). */
  public InetSocketAddress address(int i) {
    return nodes.get(i).address();
  }

  /** Waits until a fresh registry sees {@code count} online targets. */
  public void awaitTargets(int count) throws Exception {
    try (ParityClient c = client(Caller.of("root"))) {
      Eventually.passes(count + " targets online", Duration.ofSeconds(30), () -> {
        long online = c.registry().targets().stream()
            .filter(t -> t.reachability() == Reachability.ONLINE && t.freeBytes() > 0).count();
        if (online < count) {
          throw new IllegalStateException("only " + online + " of " + count
              + " targets online: " + c.registry().targets().stream().map(TargetInfo::toString)
                  .toList());
        }
      });
    }
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (StorageNode n : nodes) {
      try {
        n.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    zk.close();
    if (first != null) {
      throw first;
    }
  }
}
