package io.parityfs.node.config;

import static io.parityfs.node.config.NodeConfigKeys.ADVERTISE_HOST;
import static io.parityfs.node.config.NodeConfigKeys.CELL_SIZE;
import static io.parityfs.node.config.NodeConfigKeys.CLUSTER_DEAD_AFTER;
import static io.parityfs.node.config.NodeConfigKeys.CLUSTER_MANAGER;
import static io.parityfs.node.config.NodeConfigKeys.CODEC;
import static io.parityfs.node.config.NodeConfigKeys.CREATE;
import static io.parityfs.node.config.NodeConfigKeys.DRIVES;
import static io.parityfs.node.config.NodeConfigKeys.GC_INTERVAL;
import static io.parityfs.node.config.NodeConfigKeys.GEOMETRY;
import static io.parityfs.node.config.NodeConfigKeys.HOT_SPARES;
import static io.parityfs.node.config.NodeConfigKeys.LISTEN_HOST;
import static io.parityfs.node.config.NodeConfigKeys.LISTEN_PORT;
import static io.parityfs.node.config.NodeConfigKeys.MAX_CHUNK_SIZE;
import static io.parityfs.node.config.NodeConfigKeys.METRICS_BASIC_AUTH_FILE;
import static io.parityfs.node.config.NodeConfigKeys.METRICS_HOST;
import static io.parityfs.node.config.NodeConfigKeys.METRICS_PORT;
import static io.parityfs.node.config.NodeConfigKeys.METRICS_TLS;
import static io.parityfs.node.config.NodeConfigKeys.NODE_ID_FILE;
import static io.parityfs.node.config.NodeConfigKeys.SECURITY_TLS;
import static io.parityfs.node.config.NodeConfigKeys.SECURITY_TLS_CA;
import static io.parityfs.node.config.NodeConfigKeys.SECURITY_TLS_CERT;
import static io.parityfs.node.config.NodeConfigKeys.SECURITY_TLS_CRL;
import static io.parityfs.node.config.NodeConfigKeys.SECURITY_TLS_KEY;
import static io.parityfs.node.config.NodeConfigKeys.NODE_DOMAIN;
import static io.parityfs.node.config.NodeConfigKeys.NODE_NAME;
import static io.parityfs.node.config.NodeConfigKeys.POOL;
import static io.parityfs.node.config.NodeConfigKeys.REBUILD_BUSY_RATE;
import static io.parityfs.node.config.NodeConfigKeys.REBUILD_IDLE_RATE;
import static io.parityfs.node.config.NodeConfigKeys.REGISTRY_REFRESH;
import static io.parityfs.node.config.NodeConfigKeys.SCRUB_INTERVAL;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_DRAIN_TIMEOUT;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_IDLE_TIMEOUT;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_MAX_BYTES_PER_CONNECTION;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_MAX_BYTES_PER_NODE;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_MAX_CONNECTIONS;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_MAX_CONNECTIONS_PER_PEER;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_LIST_WAIT;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_MAX_LISTS_IN_PROGRESS;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_MAX_PARTIAL_FRAME_BYTES;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_MAX_REQUESTS_PER_CONNECTION;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_MAX_REQUESTS_PER_NODE;
import static io.parityfs.node.config.NodeConfigKeys.SERVER_WORKER_THREADS;
import static io.parityfs.node.config.NodeConfigKeys.TARGETS;
import static io.parityfs.node.config.NodeConfigKeys.TARGET_CODEC;
import static io.parityfs.node.config.NodeConfigKeys.ZK_CHROOT;
import static io.parityfs.node.config.NodeConfigKeys.ZK_CONNECT;
import static io.parityfs.node.config.NodeConfigKeys.ZK_CONNECTION_TIMEOUT;
import static io.parityfs.node.config.NodeConfigKeys.ZK_DIGEST_FILE;
import static io.parityfs.node.config.NodeConfigKeys.ZK_SESSION_TIMEOUT;
import static io.parityfs.node.config.NodeConfigKeys.ZK_TLS_KEY_STORE;
import static io.parityfs.node.config.NodeConfigKeys.ZK_TLS_TRUST_STORE;

import io.parityfs.meta.Layout;
import io.parityfs.meta.ZkRoles;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.ZooKeeperTls;
import io.parityfs.node.config.NodeConfigKeys.Key;
import io.parityfs.node.config.NodeConfigKeys.Scope;
import io.parityfs.node.metrics.MetricsAccess;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.codec.select.CodecBackend;
import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a storage node's properties file into a {@link NodeConfig}. The keys, their types and
 * defaults are declared once in {@link NodeConfigKeys}; an unknown key (a typo) is an error, as
 * is any bad value, and all problems are reported together in one {@link ConfigException}
 * naming the file and each key. Relative paths are resolved against the file's folder.
 */
public final class NodeConfigParser {
  private final String source;
  private final Path base;
  private final Properties props;
  private final List<String> problems = new ArrayList<>();

  private NodeConfigParser(String source, Path base, Properties props) {
    this.source = source;
    this.base = base;
    this.props = props;
  }

  /**
   * Parses {@code file}.
   *
   * @throws ConfigException naming the file and every bad or unknown key
   * @throws IOException when the file cannot be read
   */
  public static NodeConfig parse(Path file) throws IOException, ConfigException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    Path dir = file.toAbsolutePath().getParent();
    return new NodeConfigParser(file.toString(), dir, p).parse();
  }

  /** The {@code security.tls*} keys: every file named when TLS is on. */
  private TlsConfig tls() {
    if (!get(SECURITY_TLS, null)) {
      return TlsConfig.OFF;
    }
    List<Path> files = new ArrayList<>();
    for (Key<String> k : List.of(SECURITY_TLS_KEY, SECURITY_TLS_CERT, SECURITY_TLS_CA)) {
      String v = get(k, null);
      if (v.isEmpty()) {
        problem(k.name(), "must name a PEM file when security.tls is true (parityfs ca issue"
            + " --role node makes them)");
      }
      files.add(base.resolve(v));
    }
    String crl = get(SECURITY_TLS_CRL, null);
    return new TlsConfig(true, files.get(0), files.get(1), files.get(2),
        crl.isEmpty() ? null : base.resolve(crl));
  }

  /** The {@code zookeeper.tls.*} keys: TLS to ZooKeeper when a trust store is named. */
  private ZooKeeperTls zooKeeperTls() {
    String trust = get(ZK_TLS_TRUST_STORE, null);
    String key = get(ZK_TLS_KEY_STORE, null);
    if (trust.isEmpty()) {
      if (!key.isEmpty()) {
        problem(ZK_TLS_KEY_STORE.name(), "needs " + ZK_TLS_TRUST_STORE.name() + " (the CA"
            + " certificate ZooKeeper's certificate chains to) to turn TLS to ZooKeeper on");
      }
      return null;
    }
    return new ZooKeeperTls(base.resolve(trust), key.isEmpty() ? null : base.resolve(key));
  }

  /** The {@code metrics.tls} and {@code metrics.basicAuthFile} keys. */
  private MetricsAccess metricsAccess(TlsConfig tls) {
    boolean https = get(METRICS_TLS, null);
    if (https && !tls.enabled()) {
      problem(METRICS_TLS.name(), "needs the node's certificate: set security.tls = true and"
          + " security.tls.key, .cert, .ca");
    }
    String file = get(METRICS_BASIC_AUTH_FILE, null);
    String auth = "";
    if (!file.isEmpty()) {
      try {
        auth = ZooKeeperSettings.readDigestFile(base.resolve(file));
        if (auth.indexOf(':') < 1) {
          problem(METRICS_BASIC_AUTH_FILE.name(), file + " must hold user:password");
          auth = "";
        }
      } catch (IOException e) {
        problem(METRICS_BASIC_AUTH_FILE.name(), "cannot read " + file + ": " + e.getMessage());
      }
    }
    return new MetricsAccess(https && tls.enabled(), auth);
  }

  /** Parses properties that came from {@code source}, relative paths against {@code base}. */
  public static NodeConfig parse(Properties props, String source, Path base)
      throws ConfigException {
    return new NodeConfigParser(source, base, props).parse();
  }

  private NodeConfig parse() throws ConfigException {
    List<String> names = get(TARGETS, null);
    Set<String> seen = new LinkedHashSet<>();
    for (String n : names) {
      if (!NodeConfigKeys.isValidTargetName(n)) {
        problem(TARGETS.name(), "target name (" + n
            + ") must be 1-64 letters, digits, '_' or '-'");
      } else if (!seen.add(n)) {
        problem(TARGETS.name(), "target name (" + n + ") appears twice");
      }
    }
    if (names.isEmpty()) {
      problem(TARGETS.name(), "at least one target is needed (e.g. targets = t0, with"
          + " target.t0.drives = /mnt/nvme0/pfs, ...)");
    }
    checkUnknownKeys(seen);

    String name = get(NODE_NAME, null);
    if (name.isEmpty()) {
      name = hostName();
    }
    String domain = get(NODE_DOMAIN, null);
    if (!domain.isEmpty() && !Layout.isValidPool(domain)) {
      problem(NODE_DOMAIN.name(), "'" + domain + "' is not a domain name: 1..64 of A-Z a-z 0-9"
          + " _ . -");
    }
    Path idFile = path(NODE_ID_FILE, null);
    String listenHost = get(LISTEN_HOST, null);
    int listenPort = get(LISTEN_PORT, null);
    String advertise = get(ADVERTISE_HOST, null);
    if (advertise.isEmpty()) {
      advertise = isWildcard(listenHost) ? hostName() : listenHost;
    }
    String metricsHost = get(METRICS_HOST, null);
    int metricsPort = get(METRICS_PORT, null);
    String connect = get(ZK_CONNECT, null);
    if (connect.isEmpty()) {
      problem(ZK_CONNECT.name(), "must name the ensemble, host:port[,host:port...]");
    }
    String chroot = get(ZK_CHROOT, null);
    String digest = "";
    ZkRoles roles = null;
    String digestFile = get(ZK_DIGEST_FILE, null);
    if (!digestFile.isEmpty()) {
      try {
        digest = ZooKeeperSettings.readDigestFile(base.resolve(digestFile));
        roles = ZkRoles.read(base.resolve(digestFile));
      } catch (IOException e) {
        problem(ZK_DIGEST_FILE.name(), "cannot read " + digestFile + ": " + e.getMessage());
      }
    }
    Duration session = get(ZK_SESSION_TIMEOUT, null);
    Duration connecting = get(ZK_CONNECTION_TIMEOUT, null);
    ZooKeeperTls zkTls = zooKeeperTls();
    ZooKeeperSettings zk = null;
    if (!connect.isEmpty()) {
      try {
        zk = new ZooKeeperSettings(connect, chroot, session, connecting, digest, zkTls, roles);
      } catch (IllegalArgumentException e) {
        // the message starts with the setting's name: chroot, connect, digest, ...
        String m = e.getMessage();
        Key<?> key = m.startsWith("chroot") ? ZK_CHROOT
            : m.startsWith("connect") ? ZK_CONNECT
            : m.startsWith("digest") ? ZK_DIGEST_FILE : ZK_SESSION_TIMEOUT;
        problem(key.name(), m);
      }
    }
    Duration refresh = get(REGISTRY_REFRESH, null);
    CodecBackend nodeCodec = get(CODEC, null);

    List<TargetConfig> targets = new ArrayList<>();
    for (String t : seen) {
      targets.add(target(t, nodeCodec));
    }
    Set<Path> allDrives = new TreeSet<>();
    for (TargetConfig t : targets) {
      for (Path d : t.drives()) {
        if (!allDrives.add(d)) {
          problem(DRIVES.property(t.name()), "drive (" + d + ") is listed twice");
        }
      }
    }
    TlsConfig tls = tls();
    NodeServerConfig server = null;
    try {
      server = NodeServerConfig.builder()
          .tls(tls)
          .workerThreads(get(SERVER_WORKER_THREADS, null))
          .maxRequestsPerConnection(get(SERVER_MAX_REQUESTS_PER_CONNECTION, null))
          .maxBytesPerConnection(get(SERVER_MAX_BYTES_PER_CONNECTION, null))
          .maxRequestsPerNode(get(SERVER_MAX_REQUESTS_PER_NODE, null))
          .maxBytesPerNode(get(SERVER_MAX_BYTES_PER_NODE, null))
          .maxConnections(get(SERVER_MAX_CONNECTIONS, null))
          .maxConnectionsPerPeer(get(SERVER_MAX_CONNECTIONS_PER_PEER, null))
          .maxPartialFrameBytes(get(SERVER_MAX_PARTIAL_FRAME_BYTES, null))
          .maxListsInProgress(get(SERVER_MAX_LISTS_IN_PROGRESS, null))
          .listWait(get(SERVER_LIST_WAIT, null))
          .idleTimeout(get(SERVER_IDLE_TIMEOUT, null))
          .drainTimeout(get(SERVER_DRAIN_TIMEOUT, null))
          .build();
    } catch (IllegalArgumentException e) {
      if (problems.isEmpty()) {
        problem("server.*", e.getMessage());
      }
    }
    boolean clusterManager = get(CLUSTER_MANAGER, null);
    MetricsAccess metricsAccess = metricsAccess(tls);
    if (!problems.isEmpty()) {
      throw new ConfigException(source, problems);
    }
    return new NodeConfig(Path.of(source), name, idFile, listenHost, listenPort, advertise,
        metricsHost, metricsPort, zk, refresh, targets, server, clusterManager, domain,
        get(CLUSTER_DEAD_AFTER, null), metricsAccess);
  }

  private TargetConfig target(String t, CodecBackend nodeCodec) {
    List<Path> drives = new ArrayList<>();
    for (String d : get(DRIVES, t)) {
      drives.add(base == null ? Path.of(d) : base.resolve(d).normalize());
    }
    if (drives.isEmpty()) {
      problem(DRIVES.property(t), "must list the target's drive directories, comma separated");
    }
    boolean create = get(CREATE, t);
    Optional<ArrayConfig> array = Optional.empty();
    Protection protection = get(GEOMETRY, t);
    long cell = get(CELL_SIZE, t);
    long max = get(MAX_CHUNK_SIZE, t);
    int spares = get(HOT_SPARES, t);
    if (protection != null && cell > 0 && max > 0) {
      try {
        ArrayConfig c = ArrayConfig.builder().protection(protection)
            .cellSize((int) Math.min(cell, Integer.MAX_VALUE)).maxObjectSize(max)
            .hotSpares(spares).build();
        if (create && drives.size() < c.minDrives()) {
          problem(DRIVES.property(t), drives.size() + " drives listed but " + c + " needs "
              + c.minDrives());
        }
        array = create ? Optional.of(c) : Optional.empty();
      } catch (IllegalArgumentException e) {
        problem("target." + t + ".geometry/cellSize/maxChunkSize/hotSpares", e.getMessage());
      }
    }
    CodecBackend codec = text(TARGET_CODEC, t).isEmpty() ? nodeCodec : get(TARGET_CODEC, t);
    Duration scrub = get(SCRUB_INTERVAL, t);
    long idle = get(REBUILD_IDLE_RATE, t);
    long busy = get(REBUILD_BUSY_RATE, t);
    String pool = get(POOL, t);
    Duration gc = get(GC_INTERVAL, t);
    return new TargetConfig(t, drives, array, codec, scrub, idle, busy, pool, gc);
  }

  private void checkUnknownKeys(Set<String> targets) {
    Set<String> known = new TreeSet<>();
    NodeConfigKeys.NODE_KEYS.forEach(k -> known.add(k.name()));
    for (String t : targets) {
      NodeConfigKeys.TARGET_KEYS.forEach(k -> known.add(k.property(t)));
    }
    for (String key : new TreeSet<>(props.stringPropertyNames())) {
      if (!known.contains(key)) {
        String hint = key.startsWith("target.") ? " (a target must be listed in 'targets', and"
            + " its keys are " + String.join(", ",
                NodeConfigKeys.TARGET_KEYS.stream().map(Key::name).toList()) + ")" : "";
        problem(key, "unknown key" + hint);
      }
    }
  }

  /** The text of {@code key} (of {@code target} for a target key), or its default. */
  private String text(Key<?> key, String target) {
    String v = props.getProperty(property(key, target));
    return v == null ? key.defaultText() : v.trim();
  }

  /** The typed value; after a problem (recorded under the key) the type's fallback. */
  private <T> T get(Key<T> key, String target) {
    try {
      return key.type().parse(text(key, target));
    } catch (IllegalArgumentException e) {
      problem(property(key, target), e.getMessage());
      return key.type().fallback();
    }
  }

  private Path path(Key<Path> key, String target) {
    Path p = get(key, target);
    return base == null ? p : base.resolve(p).normalize();
  }

  private static String property(Key<?> key, String target) {
    if ((key.scope() == Scope.TARGET) != (target != null)) {
      throw new IllegalArgumentException(key.name() + " is a " + key.scope() + " key");
    }
    return key.property(target);
  }

  private void problem(String key, String message) {
    problems.add(key + ": " + message);
  }

  private static boolean isWildcard(String host) {
    return host.equals("0.0.0.0") || host.equals("::") || host.isEmpty();
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
