package io.parityfs.hadoop;

import static io.parityfs.hadoop.PfsConfigKeys.CLUSTER_CHROOT;
import static io.parityfs.hadoop.PfsConfigKeys.CLUSTER_DIGEST;
import static io.parityfs.hadoop.PfsConfigKeys.CLUSTER_DIGEST_FILE;
import static io.parityfs.hadoop.PfsConfigKeys.CLUSTER_ZOOKEEPER;

import io.parityfs.client.ClientConfig;
import io.parityfs.meta.Caller;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.ZkRoles;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.ZooKeeperTls;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.tls.TlsConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Turns a {@code pfs://} URI and a Hadoop {@link Configuration} into the client core's
 * {@link ClientConfig} and {@link PfsFileSystem}'s own settings, and the current Hadoop user
 * into a {@link Caller}. A bad value is an IllegalArgumentException naming the key and value.
 */
final class ClientSettings {
  private ClientSettings() {}

  /** The ZooKeeper settings of the cluster the URI's authority names. */
  static ZooKeeperSettings zooKeeper(URI uri, Configuration conf) throws IOException {
    String authority = uri.getAuthority();
    if (authority == null || authority.isEmpty()) {
      throw new IOException("pfs URI " + uri + " names no cluster: use pfs://<cluster>/ with "
          + CLUSTER_ZOOKEEPER.name("<cluster>") + " set, or pfs://<zkhost>:<port>/");
    }
    String connect = CLUSTER_ZOOKEEPER.get(conf, authority);
    boolean named = connect != null;
    if (!named) {
      if (!authority.matches("[^:,/@]+:[0-9]{1,5}")) {
        throw new IOException("unknown pfs cluster '" + authority + "' in " + uri + ": set "
            + CLUSTER_ZOOKEEPER.name(authority) + " to its ZooKeeper ensemble (or use "
            + "pfs://<zkhost>:<port>/)");
      }
      connect = authority;
    }
    String chroot = named && CLUSTER_CHROOT.get(conf, authority) != null
        ? CLUSTER_CHROOT.get(conf, authority) : PfsConfigKeys.ZOOKEEPER_CHROOT.get(conf);
    String digest = digest(conf, named ? authority : null);
    String file = digestFile(conf, named ? authority : null);
    ZkRoles roles;
    try {
      roles = file == null ? null : ZkRoles.read(Path.of(file));
    } catch (IOException e) {
      throw new IOException("cannot read the ZooKeeper digest file " + file + ": "
          + e.getMessage(), e);
    }
    try {
      return new ZooKeeperSettings(connect, chroot,
          PfsConfigKeys.ZOOKEEPER_SESSION_TIMEOUT.get(conf),
          PfsConfigKeys.ZOOKEEPER_CONNECTION_TIMEOUT.get(conf), digest, zooKeeperTls(conf),
          roles);
    } catch (IllegalArgumentException e) {
      throw new IOException("bad ZooKeeper settings for " + uri + ": " + e.getMessage(), e);
    }
  }

  /**
   * The digest file {@link #digest} reads, whose role lines ({@link ZkRoles}) go with it; null
   * when the digest is a value or there is none.
   */
  private static String digestFile(Configuration conf, String cluster) {
    if (cluster != null) {
      String file = CLUSTER_DIGEST_FILE.get(conf, cluster);
      if (file != null) {
        return file;
      }
      if (CLUSTER_DIGEST.get(conf, cluster) != null) {
        return null;
      }
    }
    String file = PfsConfigKeys.ZOOKEEPER_DIGEST_FILE.get(conf);
    return file.isEmpty() ? null : file;
  }

  /** The digest: the cluster's file, the cluster's value, the global file, the global value. */
  private static String digest(Configuration conf, String cluster) throws IOException {
    if (cluster != null) {
      String file = CLUSTER_DIGEST_FILE.get(conf, cluster);
      if (file != null) {
        return readDigest(file, CLUSTER_DIGEST_FILE.name(cluster));
      }
      String v = CLUSTER_DIGEST.get(conf, cluster);
      if (v != null) {
        return v;
      }
    }
    String file = PfsConfigKeys.ZOOKEEPER_DIGEST_FILE.get(conf);
    if (!file.isEmpty()) {
      return readDigest(file, PfsConfigKeys.ZOOKEEPER_DIGEST_FILE.name());
    }
    // getPassword also reads Hadoop credential providers.
    char[] secret = conf.getPassword(PfsConfigKeys.ZOOKEEPER_DIGEST.name());
    if (secret == null) {
      return "";
    }
    String v = new String(secret).trim();
    Arrays.fill(secret, '\0');
    return v;
  }

  /** TLS to ZooKeeper: on when {@code fs.pfs.zookeeper.tls.truststore} names a file. */
  static ZooKeeperTls zooKeeperTls(Configuration conf) {
    String trust = PfsConfigKeys.ZOOKEEPER_TLS_TRUSTSTORE.get(conf);
    String key = PfsConfigKeys.ZOOKEEPER_TLS_KEYSTORE.get(conf);
    if (trust.isEmpty()) {
      if (!key.isEmpty()) {
        throw new IllegalArgumentException(PfsConfigKeys.ZOOKEEPER_TLS_KEYSTORE.name()
            + " is set but " + PfsConfigKeys.ZOOKEEPER_TLS_TRUSTSTORE.name() + " is not: TLS to"
            + " ZooKeeper needs the CA certificate its servers' certificates chain to");
      }
      return null;
    }
    return new ZooKeeperTls(Path.of(trust), key.isEmpty() ? null : Path.of(key));
  }

  private static String readDigest(String file, String key) throws IOException {
    try {
      return ZooKeeperSettings.readDigestFile(Path.of(file));
    } catch (IOException e) {
      throw new IOException("cannot read the ZooKeeper digest file " + file + " (" + key + "): "
          + e.getMessage(), e);
    }
  }

  /** The client core's settings for {@code uri}. */
  static ClientConfig clientConfig(URI uri, Configuration conf) throws IOException {
    NamespaceConfig ns = NamespaceConfig.builder()
        .root(PfsConfigKeys.NAMESPACE_ROOT.get(conf))
        .permissions(PfsConfigKeys.PERMISSIONS_ENABLED.get(conf))
        .superuser(PfsConfigKeys.PERMISSIONS_SUPERUSER.get(conf))
        .superGroup(PfsConfigKeys.PERMISSIONS_SUPERGROUP.get(conf))
        .entryCacheSize(PfsConfigKeys.ENTRY_CACHE_SIZE.get(conf))
        .build();
    long requestSize = PfsConfigKeys.READ_REQUEST_SIZE.get(conf);
    if (requestSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(PfsConfigKeys.READ_REQUEST_SIZE.name() + " ("
          + requestSize + ") must be at most 64 MiB");
    }
    return ClientConfig.builder(zooKeeper(uri, conf))
        .namespace(ns)
        .writeBufferBytes(PfsConfigKeys.WRITE_BUFFER_SIZE.get(conf))
        .writesPerTarget(PfsConfigKeys.WRITE_UPLOADS_PER_TARGET.get(conf))
        .readAheadBytes(PfsConfigKeys.READ_AHEAD.get(conf))
        .readRequestBytes((int) requestSize)
        .transferThreads(PfsConfigKeys.TRANSFER_THREADS.get(conf))
        .suspectWindow(PfsConfigKeys.SUSPECT_WINDOW.get(conf))
        .writeMargin(PfsConfigKeys.WRITE_MARGIN.get(conf))
        .nodes(NodeClientConfig.DEFAULT.toBuilder().tls(tls(conf)).build())
        .build();
  }

  /** {@code fs.pfs.tls.*}: TLS when the key, certificate and CA are all named; none: off. */
  static TlsConfig tls(Configuration conf) {
    String key = PfsConfigKeys.TLS_KEY.get(conf);
    String cert = PfsConfigKeys.TLS_CERT.get(conf);
    String ca = PfsConfigKeys.TLS_CA.get(conf);
    if (key.isEmpty() && cert.isEmpty() && ca.isEmpty()) {
      return TlsConfig.OFF;
    }
    if (key.isEmpty() || cert.isEmpty() || ca.isEmpty()) {
      throw new IllegalArgumentException("TLS needs all of " + PfsConfigKeys.TLS_KEY.name() + ", "
          + PfsConfigKeys.TLS_CERT.name() + " and " + PfsConfigKeys.TLS_CA.name() + " (key '"
          + key + "', cert '" + cert + "', ca '" + ca + "')");
    }
    String crl = PfsConfigKeys.TLS_CRL.get(conf);
    return new TlsConfig(true, Path.of(key), Path.of(cert), Path.of(ca),
        crl.isEmpty() ? null : Path.of(crl));
  }

  /** {@code fs.pfs.list.page-size}: entries per page of a listing, in [1, 1000]. */
  static int listPageSize(Configuration conf) {
    int pageSize = PfsConfigKeys.LIST_PAGE_SIZE.get(conf);
    if (pageSize < 1 || pageSize > 1000) {
      throw new IllegalArgumentException(PfsConfigKeys.LIST_PAGE_SIZE.name() + " (" + pageSize
          + ") must be in [1, 1000]");
    }
    return pageSize;
  }

  /** The block size Hadoop is told (splits), > 0. */
  static long blockSize(Configuration conf) {
    long blockSize = PfsConfigKeys.BLOCK_SIZE.get(conf);
    if (blockSize <= 0) {
      throw new IllegalArgumentException(PfsConfigKeys.BLOCK_SIZE.name() + " (" + blockSize
          + ") must be > 0");
    }
    return blockSize;
  }

  /** Whether {@code getFileChecksum} answers: the algorithm is COMPOSITE_CRC (else NONE). */
  static boolean checksums(Configuration conf) {
    String algorithm = PfsConfigKeys.CHECKSUM_ALGORITHM.get(conf).toUpperCase(Locale.ROOT);
    if (!algorithm.equals("COMPOSITE_CRC") && !algorithm.equals("NONE")) {
      throw new IllegalArgumentException(PfsConfigKeys.CHECKSUM_ALGORITHM.name() + " ("
          + algorithm + ") must be COMPOSITE_CRC or NONE");
    }
    return algorithm.equals("COMPOSITE_CRC");
  }

  /**
   * The caller: the current Hadoop user's short name and groups (the first is its primary
   * group), and the umask of {@code fs.permissions.umask-mode}.
   */
  static Caller caller(Configuration conf) throws IOException {
    UserGroupInformation ugi = UserGroupInformation.getCurrentUser();
    int umask = FsPermission.getUMask(conf).toShort() & 0777;
    return new Caller(ugi.getShortUserName(), Arrays.asList(ugi.getGroupNames()), umask);
  }
}
