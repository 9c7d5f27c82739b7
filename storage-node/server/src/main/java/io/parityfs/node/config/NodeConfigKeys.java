package io.parityfs.node.config;

import io.parityfs.meta.Layout;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.codec.select.CodecBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Every key of a storage node's properties file, declared once: its name, where it lives (node
 * or {@code target.<name>.}), its {@link ValueType}, its default and what it means. Defaults of
 * settings that a builder also has are taken from that builder's {@code DEFAULT}
 * ({@link NodeServerConfig#DEFAULT}, {@link ArrayConfig#DEFAULT}), so they are written once.
 * {@link NodeConfigParser} reads only these keys (anything else is an unknown key), {@link
 * NodeProperties} writes them, and the key table of {@code docs/storage-node.md} is generated
 * from {@link #markdownTable()} (a test fails when the two differ).
 */
public final class NodeConfigKeys {
  /** Where a key lives. */
  public enum Scope {
    /** {@code <key>}: the node's own settings. */
    NODE,
    /** {@code target.<name>.<key>}: one per storage target. */
    TARGET
  }

  /**
   * One key.
   *
   * @param name the key ({@code node.listen.port}), or for a {@link Scope#TARGET} key the part
   *     after {@code target.<name>.} ({@code cellSize})
   * @param scope node or target
   * @param type how its value is read and written
   * @param defaultText its default as written in a file; empty: none, or derived
   * @param defaultDoc how the docs show the default when {@code defaultText} is empty (the
   *     derived value, or "—" for a key that must be set)
   * @param doc what it means, for the docs' table (Markdown)
   */
  public record Key<T>(String name, Scope scope, ValueType<T> type, String defaultText,
      String defaultDoc, String doc) {
    public Key {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(scope, "scope");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(defaultText, "defaultText");
      if (!defaultText.isEmpty()) {
        type.parse(defaultText); // a default the parser would refuse is a bug here
      }
    }

    /** The property name: {@code name} for a node key, {@code target.<t>.<name>} for a target's. */
    public String property(String target) {
      return scope == Scope.NODE ? name : "target." + target + "." + name;
    }

    /** The property name as the docs write it ({@code target.<n>.cellSize}). */
    public String documentedName() {
      return property("<n>");
    }

    /** The default value; empty when the key has none (or a derived one). */
    public Optional<T> defaultValue() {
      return defaultText.isEmpty() ? Optional.empty() : Optional.of(type.parse(defaultText));
    }
  }

  private static final Pattern TARGET_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  // ---- the node ----
  public static final Key<String> NODE_NAME = node("node.name", ValueType.TEXT, "", "host name",
      "display name");
  public static final Key<String> NODE_DOMAIN = node("node.domain", ValueType.TEXT, "", "none",
      "the node's failure domain (a rack, a zone; 1..64 of `A-Z a-z 0-9 _ . -`): the members of"
          + " a group across nodes go to distinct domains where nodes carry one; written into"
          + " the node record");
  public static final Key<Path> NODE_ID_FILE = node("node.idFile", ValueType.PATH, "node.id", "",
      "where the node id is kept (see \"Identity\")");
  public static final Key<String> LISTEN_HOST = node("node.listen.host", ValueType.TEXT,
      "0.0.0.0", "", "wire protocol server address");
  public static final Key<Integer> LISTEN_PORT = node("node.listen.port",
      ValueType.integer(0, 65535), "7110", "", "its port (0: any free port)");
  public static final Key<String> ADVERTISE_HOST = node("node.advertise.host", ValueType.TEXT, "",
      "listen host, or the host name when listening on all", "address published in ZooKeeper");
  public static final Key<String> METRICS_HOST = node("metrics.host", ValueType.TEXT, "0.0.0.0",
      "", "HTTP endpoint (/metrics, /health)");
  public static final Key<Integer> METRICS_PORT = node("metrics.port",
      ValueType.integer(-1, 65535), "7111", "", "its port (0: any; -1: no endpoint)");
  public static final Key<Boolean> METRICS_TLS = node("metrics.tls", ValueType.BOOL, "false", "",
      "serve the endpoint over HTTPS with the node's key and certificate (security.tls.key,"
          + " .cert); scrape it with the cluster CA's certificate");
  public static final Key<String> METRICS_BASIC_AUTH_FILE = node("metrics.basicAuthFile",
      ValueType.TEXT, "", "empty", "a file with `user:password`: HTTP basic authentication of"
          + " every request to the endpoint (Prometheus' basic_auth); empty: none");
  public static final Key<String> ZK_CONNECT = node("zookeeper.connect", ValueType.TEXT,
      "localhost:2181", "", "the ensemble, host:port[,host:port...]");
  public static final Key<String> ZK_CHROOT = node("zookeeper.chroot", ValueType.TEXT, "", "empty",
      "e.g. `/prod`: everything under `/prod/parityfs/...`");
  public static final Key<Duration> ZK_SESSION_TIMEOUT = node("zookeeper.sessionTimeout",
      ValueType.duration(false), "30s", "", "the ZooKeeper session timeout");
  public static final Key<Duration> ZK_CONNECTION_TIMEOUT = node("zookeeper.connectionTimeout",
      ValueType.duration(false), "15s", "", "how long a start waits for ZooKeeper");
  public static final Key<String> ZK_DIGEST_FILE = node("zookeeper.digestFile", ValueType.TEXT, "",
      "empty", "a file with `user:password`: digest authentication and creator-only ACLs on every"
          + " znode (see \"Connection, chroot and ACLs\" in metadata.md)");
  public static final Key<String> ZK_TLS_TRUST_STORE = node("zookeeper.tls.trustStore",
      ValueType.TEXT, "", "empty", "TLS to ZooKeeper: the CA certificate its servers' certificates"
          + " chain to, PEM; empty: plaintext (see \"TLS to ZooKeeper\" in security.md)");
  public static final Key<String> ZK_TLS_KEY_STORE = node("zookeeper.tls.keyStore",
      ValueType.TEXT, "", "empty", "the key and certificate shown to ZooKeeper, both in one PEM"
          + " file (`parityfs ca issue` writes `NAME.pem`)");
  public static final Key<Duration> REGISTRY_REFRESH = node("registry.refreshInterval",
      ValueType.duration(false), "10s", "",
      "rewrite of the online record (state changes rewrite it at once)");
  public static final Key<Integer> SERVER_WORKER_THREADS = node("server.workerThreads",
      ValueType.integer(1, 1024), Integer.toString(NodeServerConfig.DEFAULT.workerThreads()), "",
      "threads running the array work of all connections");
  public static final Key<Integer> SERVER_MAX_REQUESTS_PER_CONNECTION = node(
      "server.maxRequestsPerConnection", ValueType.integer(1, 65536),
      Integer.toString(NodeServerConfig.DEFAULT.maxRequestsPerConnection()), "",
      "per connection, stop reading its requests at this many in progress (resume below half)");
  public static final Key<Long> SERVER_MAX_BYTES_PER_CONNECTION = node(
      "server.maxBytesPerConnection", ValueType.SIZE_BYTES,
      ValueType.sizeText(NodeServerConfig.DEFAULT.maxBytesPerConnection()), "",
      "per connection, stop reading its requests at this much WRITE data not yet written"
          + " (resume below half)");
  public static final Key<Integer> SERVER_MAX_REQUESTS_PER_NODE = node(
      "server.maxRequestsPerNode", ValueType.integer(1, 1 << 20),
      Integer.toString(NodeServerConfig.DEFAULT.maxRequestsPerNode()), "",
      "node-wide: beyond this many requests in progress, new ones are answered BUSY before they"
          + " have any effect");
  public static final Key<Long> SERVER_MAX_BYTES_PER_NODE = node("server.maxBytesPerNode",
      ValueType.SIZE_BYTES, ValueType.sizeText(NodeServerConfig.DEFAULT.maxBytesPerNode()), "",
      "node-wide: beyond this much WRITE data in hand, new WRITEs are answered BUSY");
  public static final Key<Integer> SERVER_MAX_CONNECTIONS = node("server.maxConnections",
      ValueType.integer(1, 1 << 20),
      Integer.toString(NodeServerConfig.DEFAULT.maxConnections()), "",
      "node-wide: a connection beyond this many open ones is closed as it is accepted, before"
          + " its TLS handshake");
  public static final Key<Integer> SERVER_MAX_CONNECTIONS_PER_PEER = node(
      "server.maxConnectionsPerPeer", ValueType.integer(1, 1 << 20),
      Integer.toString(NodeServerConfig.DEFAULT.maxConnectionsPerPeer()), "",
      "the same for the connections of one peer address (clients hold 4 per node by default)");
  public static final Key<Long> SERVER_MAX_PARTIAL_FRAME_BYTES = node(
      "server.maxPartialFrameBytes", ValueType.SIZE_BYTES,
      ValueType.sizeText(NodeServerConfig.DEFAULT.maxPartialFrameBytes()), "",
      "node-wide: bytes of frames received in part, over all connections; a connection whose"
          + " partial frame would go past it is closed (at least one largest frame, 4.1 MiB)");
  public static final Key<Integer> SERVER_MAX_LISTS_IN_PROGRESS = node(
      "server.maxListsInProgress", ValueType.integer(1, 1024),
      Integer.toString(NodeServerConfig.DEFAULT.maxListsInProgress()), "",
      "node-wide: LIST requests running at once (each reads every drive's directory); a LIST"
          + " beyond waits for a place");
  public static final Key<Duration> SERVER_LIST_WAIT = node("server.listWait",
      ValueType.duration(true), ValueType.durationText(NodeServerConfig.DEFAULT.listWait()), "",
      "how long a LIST waits for a place before it is answered BUSY (nothing done)");
  public static final Key<Duration> SERVER_IDLE_TIMEOUT = node("server.idleTimeout",
      ValueType.duration(false),
      ValueType.durationText(NodeServerConfig.DEFAULT.idleTimeout()), "",
      "a connection idle this long with a partial frame or an open WRITE is closed");
  public static final Key<Duration> SERVER_DRAIN_TIMEOUT = node("server.drainTimeout",
      ValueType.duration(true),
      ValueType.durationText(NodeServerConfig.DEFAULT.drainTimeout()), "",
      "on shutdown, how long requests in progress may finish");
  public static final Key<Boolean> SECURITY_TLS = node("security.tls", ValueType.BOOL, "false",
      "", "mutual TLS 1.3 on the node's port with the cluster CA's certificates (docs/security.md);"
          + " `false` serves plaintext to anyone who reaches the port, with a warning at start");
  public static final Key<String> SECURITY_TLS_KEY = node("security.tls.key", ValueType.TEXT, "",
      "empty", "the node's private key, PKCS#8 PEM (`parityfs ca issue --role node`), mode 0600");
  public static final Key<String> SECURITY_TLS_CERT = node("security.tls.cert", ValueType.TEXT,
      "", "empty", "the node's certificate, PEM, with role `node` and the node's names and"
          + " addresses; read again when it changes (rotation without a restart)");
  public static final Key<String> SECURITY_TLS_CA = node("security.tls.ca", ValueType.TEXT, "",
      "empty", "the cluster CA's certificate, PEM: the only one trusted");
  public static final Key<String> SECURITY_TLS_CRL = node("security.tls.crl", ValueType.TEXT, "",
      "empty", "the CA's revocation list, PEM (`parityfs ca revoke`); read again when it changes");
  public static final Key<Boolean> CLUSTER_MANAGER = node("cluster.manager.enabled",
      ValueType.BOOL, "true", "",
      "run a cluster-manager candidate in this node (see \"Cluster manager\")");
  public static final Key<Duration> CLUSTER_DEAD_AFTER = node("cluster.manager.deadAfter",
      ValueType.duration(true), "0s", "",
      "a target OFFLINE this long is declared bad and its members rebuilt elsewhere"
          + " (docs/across-nodes.md §5); 0s: never (the leading manager's value applies)");
  public static final Key<CodecBackend> CODEC = node("codec", ValueType.CODEC, "auto", "",
      "parity backend for every target: `auto`, `cpu`, `gpu`");
  public static final Key<List<String>> TARGETS = node("targets", ValueType.LIST, "", "—",
      "target names, comma separated (at least one)");

  // ---- each target: target.<name>.<key> ----
  public static final Key<List<String>> DRIVES = target("drives", ValueType.LIST, "", "—",
      "drive directories, comma separated, any order");
  public static final Key<Boolean> CREATE = target("create", ValueType.BOOL, "false", "",
      "create the array at first start when no drive carries a label");
  public static final Key<Protection> GEOMETRY = target("geometry", ValueType.PROTECTION,
      ArrayConfig.DEFAULT.protection().toString(), "",
      "`raid5:K+1`, `raid6:K+2`, `rs:K+M`, `mirror:N` (creation only)");
  public static final Key<Long> CELL_SIZE = target("cellSize", ValueType.SIZE_BYTES,
      ValueType.sizeText(ArrayConfig.DEFAULT.cellSize()), "",
      "bytes per cell, a power of two in 4K..16M (creation only)");
  public static final Key<Long> MAX_CHUNK_SIZE = target("maxChunkSize", ValueType.SIZE_BYTES,
      ValueType.sizeText(ArrayConfig.DEFAULT.maxObjectSize()), "",
      "the largest chunk the target stores (creation only)");
  public static final Key<Integer> HOT_SPARES = target("hotSpares",
      ValueType.integer(0, ArrayConfig.MAX_DRIVES),
      Integer.toString(ArrayConfig.DEFAULT.hotSpares()), "",
      "creation only; the last drives listed");
  public static final Key<CodecBackend> TARGET_CODEC = target("codec", ValueType.CODEC, "",
      "the node's `codec`", "parity backend of this target");
  public static final Key<Duration> SCRUB_INTERVAL = target("scrubInterval",
      ValueType.duration(true), "7d", "", "time between scrub passes; 0: no scheduled scrub");
  public static final Key<Duration> GC_INTERVAL = target("gcInterval", ValueType.duration(true),
      ValueType.durationText(TargetConfig.DEFAULT_GC_INTERVAL), "",
      "time between garbage collection passes while the node runs (failed writes' temps and"
          + " orphan shards, unfinished deletes; a pass also runs at open); 0: only at open. Safe"
          + " alongside writes, deletes, rebuilds and scrubs"
          + " ([array.md](array.md#delete-and-garbage))");
  public static final Key<Long> REBUILD_IDLE_RATE = target("rebuild.idleRate", ValueType.RATE,
      "0", "", "background (rebuild/scrub) MB/s while no client request arrived recently;"
          + " 0: unlimited");
  public static final Key<Long> REBUILD_BUSY_RATE = target("rebuild.busyRate", ValueType.RATE,
      "256", "", "background MB/s while clients are active; 0: unlimited. It keeps clients at"
          + " ≥ 70 % of their throughput during a rebuild when it is at most ~30 % of the drives'"
          + " bandwidth");
  public static final Key<String> POOL = target("pool",
      ValueType.text(Layout::isValidPool, "1-64 letters, digits, '_', '.' or '-'",
          Layout.DEFAULT_POOL), Layout.DEFAULT_POOL, "",
      "the pool the metadata layer's placement draws this target from (a layout names one"
          + " pool); 1..64 of `A-Z a-z 0-9 _ . -`; written into the target record");

  /** Every node key, in the order of the docs' table. */
  public static final List<Key<?>> NODE_KEYS = List.of(NODE_NAME, NODE_DOMAIN, NODE_ID_FILE,
      LISTEN_HOST,
      LISTEN_PORT, ADVERTISE_HOST, METRICS_HOST, METRICS_PORT, METRICS_TLS,
      METRICS_BASIC_AUTH_FILE, ZK_CONNECT, ZK_CHROOT,
      ZK_SESSION_TIMEOUT, ZK_CONNECTION_TIMEOUT, ZK_DIGEST_FILE, ZK_TLS_TRUST_STORE, ZK_TLS_KEY_STORE,
      REGISTRY_REFRESH, CODEC, TARGETS,
      SERVER_WORKER_THREADS, SERVER_MAX_REQUESTS_PER_CONNECTION, SERVER_MAX_BYTES_PER_CONNECTION,
      SERVER_MAX_REQUESTS_PER_NODE, SERVER_MAX_BYTES_PER_NODE, SERVER_MAX_CONNECTIONS,
      SERVER_MAX_CONNECTIONS_PER_PEER, SERVER_MAX_PARTIAL_FRAME_BYTES,
      SERVER_MAX_LISTS_IN_PROGRESS, SERVER_LIST_WAIT, SERVER_IDLE_TIMEOUT,
      SERVER_DRAIN_TIMEOUT, SECURITY_TLS, SECURITY_TLS_KEY, SECURITY_TLS_CERT, SECURITY_TLS_CA,
      SECURITY_TLS_CRL, CLUSTER_MANAGER, CLUSTER_DEAD_AFTER);

  /** Every target key, in the order of the docs' table. */
  public static final List<Key<?>> TARGET_KEYS = List.of(DRIVES, CREATE, GEOMETRY, CELL_SIZE,
      MAX_CHUNK_SIZE, HOT_SPARES, TARGET_CODEC, SCRUB_INTERVAL, GC_INTERVAL, POOL,
      REBUILD_IDLE_RATE, REBUILD_BUSY_RATE);

  private NodeConfigKeys() {}

  /** Whether {@code name} may name a target (1-64 letters, digits, '_' or '-'). */
  public static boolean isValidTargetName(String name) {
    return TARGET_NAME.matcher(name).matches();
  }

  /**
   * The key table of {@code docs/storage-node.md} ("Configuration"): key, default, meaning, one
   * row per key, in declaration order.
   */
  public static String markdownTable() {
    StringBuilder b = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
    for (List<Key<?>> keys : List.of(NODE_KEYS, TARGET_KEYS)) {
      for (Key<?> k : keys) {
        String dflt = k.defaultText().isEmpty() ? k.defaultDoc() : "`" + k.defaultText() + "`";
        b.append("| `").append(k.documentedName()).append("` | ").append(dflt).append(" | ")
            .append(k.doc()).append(" |\n");
      }
    }
    return b.toString();
  }

  private static <T> Key<T> node(String name, ValueType<T> type, String dflt, String dfltDoc,
      String doc) {
    return new Key<>(name, Scope.NODE, type, dflt, dfltDoc, doc);
  }

  private static <T> Key<T> target(String name, ValueType<T> type, String dflt, String dfltDoc,
      String doc) {
    return new Key<>(name, Scope.TARGET, type, dflt, dfltDoc, doc);
  }
}
