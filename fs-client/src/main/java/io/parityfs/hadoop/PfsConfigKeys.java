package io.parityfs.hadoop;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * Every Hadoop configuration key the {@code pfs://} file system reads, each declared once with
 * its type, default and meaning. {@code docs/configuration.md} lists the same keys (a test checks
 * that it names every one of {@link #ALL} and {@link #CLUSTER_KEYS}).
 *
 * <p>The URI's authority names a cluster: {@code pfs://prod/} reads {@link #CLUSTER_ZOOKEEPER}
 * for {@code prod}; an authority with no such key but of the form {@code host:port} is one
 * ZooKeeper server ({@code pfs://zk1:2181/}).
 */
public final class PfsConfigKeys {
  private PfsConfigKeys() {}

  /** How a key's value is read from a {@link Configuration}. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(Configuration conf, String name, T defaultValue);
  }

  /**
   * One key: its name, default and what it means; {@link #get} reads it typed.
   *
   * @param name the full key
   * @param defaultValue what an unset key means
   * @param unit how a value is written ("bytes (suffixes k m g)", "duration (ms s m h)", ...)
   * @param doc one sentence for the documentation
   * @param reader how the value is parsed (Hadoop's size, duration, int, string or boolean)
   */
  public record Key<T>(String name, T defaultValue, String unit, String doc, Reader<T> reader) {
    public Key {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(defaultValue, "defaultValue");
    }

    /** The value in {@code conf}, or the default; IllegalArgumentException when malformed. */
    public T get(Configuration conf) {
      try {
        return reader.read(conf, name, defaultValue);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " (" + conf.get(name) + ") must be " + unit,
            e);
      }
    }
  }

  /**
   * A key per cluster name: {@code fs.pfs.cluster.<name>.<suffix>}.
   *
   * @param suffix what follows the cluster's name
   * @param doc one sentence for the documentation
   */
  public record ClusterKey(String suffix, String doc) {
    public String name(String cluster) {
      return CLUSTER_PREFIX + cluster + "." + suffix;
    }

    /** The value for {@code cluster}, or null. */
    public String get(Configuration conf, String cluster) {
      String v = conf.getTrimmed(name(cluster));
      return v == null || v.isEmpty() ? null : v;
    }
  }

  public static final String PREFIX = "fs.pfs.";
  public static final String CLUSTER_PREFIX = PREFIX + "cluster.";

  private static Key<Long> bytes(String name, long def, String doc) {
    return new Key<>(PREFIX + name, def, "a size in bytes (suffixes k, m, g, t)", doc,
        (c, n, d) -> c.getLongBytes(n, d));
  }

  private static Key<Integer> integer(String name, int def, String doc) {
    return new Key<>(PREFIX + name, def, "an integer", doc, (c, n, d) -> c.getInt(n, d));
  }

  private static Key<Duration> duration(String name, Duration def, String doc) {
    return new Key<>(PREFIX + name, def, "a duration (suffixes ms, s, m, h; bare = ms)", doc,
        (c, n, d) -> Duration.ofMillis(c.getTimeDuration(n, d.toMillis(), TimeUnit.MILLISECONDS)));
  }

  private static Key<String> string(String name, String def, String doc) {
    return new Key<>(PREFIX + name, def, "a string", doc, (c, n, d) -> c.getTrimmed(n, d));
  }

  private static Key<Boolean> bool(String name, boolean def, String doc) {
    return new Key<>(PREFIX + name, def, "true or false", doc, (c, n, d) -> {
      String v = c.getTrimmed(n);
      if (v == null || v.isEmpty()) {
        return d;
      }
      if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
        throw new NumberFormatException(v);
      }
      return Boolean.parseBoolean(v);
    });
  }

  // ---------------------------------------------------------------- clusters (URI authority)

  /** {@code fs.pfs.cluster.<name>.zookeeper}: the cluster's ZooKeeper ensemble. */
  public static final ClusterKey CLUSTER_ZOOKEEPER = new ClusterKey("zookeeper",
      "ZooKeeper connect string (host:port[,host:port...]) of the cluster that "
          + "pfs://<name>/ names");
  /** {@code fs.pfs.cluster.<name>.chroot}. */
  public static final ClusterKey CLUSTER_CHROOT = new ClusterKey("chroot",
      "znode under which the cluster lives (e.g. /prod); default fs.pfs.zookeeper.chroot");
  /** {@code fs.pfs.cluster.<name>.digest}. */
  public static final ClusterKey CLUSTER_DIGEST = new ClusterKey("digest",
      "user:password for ZooKeeper digest authentication; default fs.pfs.zookeeper.digest");
  /** {@code fs.pfs.cluster.<name>.digest.file}. */
  public static final ClusterKey CLUSTER_DIGEST_FILE = new ClusterKey("digest.file",
      "a local file holding user:password (preferred over .digest: keeps the secret out of "
          + "core-site.xml)");

  // ---------------------------------------------------------------- ZooKeeper

  public static final Key<String> ZOOKEEPER_CHROOT = string("zookeeper.chroot", "",
      "chroot of a cluster that sets none (and of host:port authorities)");
  public static final Key<String> ZOOKEEPER_DIGEST = string("zookeeper.digest", "",
      "user:password of a cluster that sets none (and of host:port authorities)");
  public static final Key<String> ZOOKEEPER_DIGEST_FILE = string("zookeeper.digest.file", "",
      "file holding user:password, for clusters that set no digest of their own");
  public static final Key<String> ZOOKEEPER_TLS_TRUSTSTORE = string("zookeeper.tls.truststore",
      "", "TLS to ZooKeeper: the CA certificate its servers' certificates chain to, PEM; empty:"
          + " plaintext (docs/security.md, \"TLS to ZooKeeper\")");
  public static final Key<String> ZOOKEEPER_TLS_KEYSTORE = string("zookeeper.tls.keystore", "",
      "the key and certificate shown to ZooKeeper, both in one PEM file (parityfs ca issue"
          + " writes NAME.pem)");
  public static final Key<Duration> ZOOKEEPER_SESSION_TIMEOUT = duration(
      "zookeeper.session-timeout", Duration.ofSeconds(30),
      "ZooKeeper session timeout: how long a dead client keeps its files' write leases");
  public static final Key<Duration> ZOOKEEPER_CONNECTION_TIMEOUT = duration(
      "zookeeper.connection-timeout", Duration.ofSeconds(15),
      "how long FileSystem.get waits for the first ZooKeeper connection");

  // ---------------------------------------------------------------- namespace

  public static final Key<String> NAMESPACE_ROOT = string("namespace.root", "/parityfs/ns",
      "znode of the namespace (below the chroot); must match the cluster's");
  public static final Key<Boolean> PERMISSIONS_ENABLED = bool("permissions.enabled", true,
      "check permissions (as dfs.permissions.enabled); false stores mode bits but checks none");
  public static final Key<String> PERMISSIONS_SUPERUSER = string("permissions.superuser", "root",
      "the user that passes every permission check; must match the cluster's");
  public static final Key<String> PERMISSIONS_SUPERGROUP = string("permissions.supergroup",
      "supergroup", "members of this group pass every permission check");
  public static final Key<Integer> ENTRY_CACHE_SIZE = integer("namespace.entry-cache.size",
      100_000, "directory entries this client caches (watched; 0 turns the cache off)");
  public static final Key<Integer> LIST_PAGE_SIZE = integer("list.page-size", 1000,
      "entries per listing page (listStatusIterator, listLocatedStatus), 1..1000");

  // ---------------------------------------------------------------- data path

  public static final Key<Long> WRITE_BUFFER_SIZE = bytes("write.buffer.size", 64L << 20,
      "memory one output stream may hold for chunks not yet stored (at least two chunks)");
  public static final Key<Integer> WRITE_UPLOADS_PER_TARGET = integer(
      "write.uploads-per-target", 2, "chunk uploads one output stream keeps in flight per target");
  public static final Key<Long> READ_AHEAD = bytes("read.ahead", 32L << 20,
      "bytes a sequential input stream reads ahead (0: none); random and vector read policies "
          + "of openFile use 0");
  public static final Key<Long> READ_REQUEST_SIZE = bytes("read.request.size", 4L << 20,
      "bytes asked of a storage node per read request, 4 KiB..64 MiB");
  public static final Key<Integer> TRANSFER_THREADS = integer("transfer.threads", 32,
      "threads moving chunk data for all streams of one FileSystem instance");
  public static final Key<Duration> SUSPECT_WINDOW = duration("across.suspect-window",
      Duration.ofSeconds(10), "how long a storage target whose transfer failed is read last "
          + "where another source exists (mirror copies), 0..1 h");
  public static final Key<Integer> WRITE_MARGIN = integer("across.write-margin", 1,
      "members above the least a group is read from (K of ec:K+M, one copy of mirror:N) that a "
          + "write still stores while targets are down, at most M-1 (N-2), 0..4; the members "
          + "left out go in the file's repair record");

  // ---------------------------------------------------------------- TLS to the storage nodes

  public static final Key<String> TLS_KEY = string("tls.key", "", "the client's private key,"
      + " PKCS#8 PEM (parityfs ca issue --role client); with tls.cert and tls.ca set, every"
      + " storage-node connection is mutual TLS 1.3 (docs/security.md); all empty: plaintext");
  public static final Key<String> TLS_CERT = string("tls.cert", "", "the client's certificate,"
      + " PEM, role client (admin for the drive commands); read again when it changes");
  public static final Key<String> TLS_CA = string("tls.ca", "", "the cluster CA's certificate,"
      + " PEM: nodes are trusted only with a node certificate of it naming their address");
  public static final Key<String> TLS_CRL = string("tls.crl", "", "the CA's revocation list,"
      + " PEM (optional; read again when it changes)");

  // ---------------------------------------------------------------- what Hadoop is told

  public static final Key<Long> BLOCK_SIZE = bytes("block.size", 8L << 20,
      "getDefaultBlockSize(): the block size reported for files not yet written (existing "
          + "files report their chunk size); create's blockSize argument is ignored");
  public static final Key<String> CHECKSUM_ALGORITHM = string("checksum.algorithm",
      "COMPOSITE_CRC", "getFileChecksum: COMPOSITE_CRC (CRC32C of the bytes, as HDFS's "
          + "dfs.checksum.combine.mode=COMPOSITE_CRC; reads the file) or NONE (returns null)");

  /** Every global key, in documentation order. */
  public static final List<Key<?>> ALL = List.of(ZOOKEEPER_CHROOT, ZOOKEEPER_DIGEST,
      ZOOKEEPER_DIGEST_FILE, ZOOKEEPER_TLS_TRUSTSTORE, ZOOKEEPER_TLS_KEYSTORE,
      ZOOKEEPER_SESSION_TIMEOUT, ZOOKEEPER_CONNECTION_TIMEOUT, NAMESPACE_ROOT, PERMISSIONS_ENABLED, PERMISSIONS_SUPERUSER, PERMISSIONS_SUPERGROUP,
      ENTRY_CACHE_SIZE, LIST_PAGE_SIZE, WRITE_BUFFER_SIZE, WRITE_UPLOADS_PER_TARGET, READ_AHEAD,
      READ_REQUEST_SIZE, TRANSFER_THREADS, SUSPECT_WINDOW, TLS_KEY, TLS_CERT, TLS_CA, TLS_CRL,
      BLOCK_SIZE, CHECKSUM_ALGORITHM);

  /** Every per-cluster key. */
  public static final List<ClusterKey> CLUSTER_KEYS = List.of(CLUSTER_ZOOKEEPER, CLUSTER_CHROOT,
      CLUSTER_DIGEST, CLUSTER_DIGEST_FILE);
}
