package io.parityfs.meta;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * How every ParityFS process (storage node, client, cluster manager) reaches ZooKeeper: any
 * ensemble, an optional chroot, optional digest authentication and optional TLS ({@link
 * ZooKeeperTls}). One record, so the node,
 * the client and the tools agree on what each setting means.
 *
 * <p><b>Digest ACLs.</b> With {@code digest} set ({@code user:password}), the client
 * authenticates with that identity and creates every znode with an ACL that names that digest
 * identity alone ({@link #acl}): only sessions authenticated as the same digest user can read or
 * change the namespace and the registry. Not ZooKeeper's {@code CREATOR_ALL_ACL}, which grants
 * every identity of the creating session: over TLS that adds the certificate's {@code x509}
 * subject, so a znode's ACL would depend on which process made it over which transport. Every process of a cluster uses the same digest identity (keep it in a file readable
 * by the service accounts only). Without it znodes are open ({@code OPEN_ACL_UNSAFE}), for
 * single-tenant and test ensembles.
 *
 * @param connect the ensemble, {@code host:port[,host:port...]}
 * @param chroot a znode under which every ParityFS znode lives ("" for none), e.g. {@code /prod};
 *     absolute, no trailing {@code /}, no {@code .} or {@code ..} component, so nothing can
 *     address znodes outside it
 * @param sessionTimeout the session timeout asked of the server: how long a dead process keeps
 *     its leases and its node registration
 * @param connectionTimeout how long a start waits for the first connection
 * @param digest {@code user:password} for digest authentication, or "" for none
 * @param tls TLS to ZooKeeper, or {@code null} for plaintext (the default)
 * @param roles the cluster's identities by role ({@link ZkRoles}: the registry read-only for
 *     clients), or {@code null} for one identity with every right; {@code digest} must be one
 *     of them
 */
public record ZooKeeperSettings(String connect, String chroot, Duration sessionTimeout,
    Duration connectionTimeout, String digest, ZooKeeperTls tls, ZkRoles roles) {

  /** Settings with one digest identity for every role ({@code roles} null). */
  public ZooKeeperSettings(String connect, String chroot, Duration sessionTimeout,
      Duration connectionTimeout, String digest, ZooKeeperTls tls) {
    this(connect, chroot, sessionTimeout, connectionTimeout, digest, tls, null);
  }

  /** Settings without TLS to ZooKeeper. */
  public ZooKeeperSettings(String connect, String chroot, Duration sessionTimeout,
      Duration connectionTimeout, String digest) {
    this(connect, chroot, sessionTimeout, connectionTimeout, digest, null);
  }

  /**
   * The digest {@code user:password} in {@code file}: its first line, trimmed (what the node's
   * {@code zookeeper.digestFile}, the CLI's {@code --digest-file} and Hadoop's digest-file keys
   * all read).
   */
  public static String readDigestFile(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8).lines().findFirst()
        .orElse("").trim();
  }

  /** Defaults: chroot none, 30 s session, 15 s connection, no digest. */
  public static ZooKeeperSettings of(String connect) {
    return new ZooKeeperSettings(connect, "", Duration.ofSeconds(30), Duration.ofSeconds(15), "");
  }

  public ZooKeeperSettings {
    Objects.requireNonNull(connect, "connect");
    Objects.requireNonNull(chroot, "chroot");
    Objects.requireNonNull(sessionTimeout, "sessionTimeout");
    Objects.requireNonNull(connectionTimeout, "connectionTimeout");
    Objects.requireNonNull(digest, "digest");
    if (connect.isBlank() || connect.contains("/")) {
      throw new IllegalArgumentException("connect (" + connect
          + ") must be host:port[,host:port...] (give a chroot separately)");
    }
    if (!chroot.isEmpty() && (!chroot.startsWith("/") || chroot.endsWith("/")
        || chroot.contains("//") || chroot.contains("/./") || chroot.contains("/../")
        || chroot.endsWith("/.") || chroot.endsWith("/.."))) {
      throw new IllegalArgumentException("chroot (" + chroot
          + ") must be an absolute znode path without a trailing slash, '.' or '..'");
    }
    if (sessionTimeout.toMillis() < 1000 || connectionTimeout.toMillis() < 100) {
      throw new IllegalArgumentException("sessionTimeout (" + sessionTimeout
          + ") must be >= 1 s and connectionTimeout (" + connectionTimeout + ") >= 100 ms");
    }
    if (!digest.isEmpty() && digest.indexOf(':') < 1) {
      throw new IllegalArgumentException("digest must be user:password (got "
          + digest.length() + " characters without a user)");
    }
    if (roles != null) {
      String me = digest.isEmpty() ? "" : ZkRoles.idOf(digest);
      if (!me.equals(roles.cluster()) && !me.equals(roles.client())) {
        throw new IllegalArgumentException("digest: neither the cluster's nor the"
            + " client's identity of its role lines");
      }
    }
  }

  /** These settings with the cluster's identities by role (null: one identity). */
  public ZooKeeperSettings withRoles(ZkRoles v) {
    return new ZooKeeperSettings(connect, chroot, sessionTimeout, connectionTimeout, digest, tls,
        v);
  }

  /**
   * {@link #readDigestFile} with the role lines of the same file ({@link ZkRoles#read}): these
   * settings authenticated as the file's identity.
   */
  public ZooKeeperSettings withDigestFile(Path file) throws IOException {
    return withDigest(readDigestFile(file)).withRoles(ZkRoles.read(file));
  }

  public ZooKeeperSettings withChroot(String v) {
    return new ZooKeeperSettings(connect, v, sessionTimeout, connectionTimeout, digest, tls,
        roles);
  }

  public ZooKeeperSettings withSessionTimeout(Duration v) {
    return new ZooKeeperSettings(connect, chroot, v, connectionTimeout, digest, tls, roles);
  }

  public ZooKeeperSettings withDigest(String v) {
    return new ZooKeeperSettings(connect, chroot, sessionTimeout, connectionTimeout, v, tls,
        roles);
  }

  /** These settings with TLS to ZooKeeper ({@code null}: plaintext). */
  public ZooKeeperSettings withTls(ZooKeeperTls v) {
    return new ZooKeeperSettings(connect, chroot, sessionTimeout, connectionTimeout, digest, v,
        roles);
  }

  /** A Curator client for these settings, not started; the caller owns it. */
  public CuratorFramework newClient() {
    CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
        .connectString(connect)
        .sessionTimeoutMs((int) sessionTimeout.toMillis())
        .connectionTimeoutMs((int) connectionTimeout.toMillis())
        .retryPolicy(new ExponentialBackoffRetry(100, 5));
    if (tls != null) {
      b.zkClientConfig(tls.clientConfig());
    }
    if (!chroot.isEmpty()) {
      b.namespace(chroot.substring(1));
    }
    if (!digest.isEmpty()) {
      b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
      List<ACL> acl = acl();
      String prefix = chroot;
      b.aclProvider(new ACLProvider() {
        @Override
        public List<ACL> getDefaultAcl() {
          return acl;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
          // Curator passes the path with the chroot (its namespace) in front
          return acl(path != null && !prefix.isEmpty() && path.startsWith(prefix + "/")
              ? path.substring(prefix.length()) : path);
        }
      });
    }
    return b.build();
  }

  /**
   * What to say when no connection came within {@link #connectionTimeout}: the ensemble, the
   * wait, and the transport that was tried, with the likely mismatch (a server that takes TLS
   * only closes plaintext clients; over TLS, a certificate it or we refuse).
   */
  public String unreachable() {
    return "cannot reach ZooKeeper at " + connect + " within " + connectionTimeout.toMillis()
        + " ms" + (tls == null
            ? " (plaintext: if its servers take TLS only, give their CA certificate as the"
                + " ZooKeeper trust store; docs/security.md, \"TLS to ZooKeeper\")"
            : " over TLS (its certificate must chain to " + tls.trustStore() + " and name the"
                + " host dialled; a server that asks for client certificates needs the key"
                + " store)");
  }

  /**
   * The ACL of a znode these settings create at {@code path} (relative to the chroot): by role
   * ({@link ZkRoles#aclFor}) where {@link #roles} are set, else {@link #acl()}.
   */
  public List<ACL> acl(String path) {
    return roles == null || path == null ? acl() : roles.aclFor(path);
  }

  /**
   * The ACL with one identity: all permissions for the digest identity and nobody else;
   * {@code OPEN_ACL_UNSAFE} without a digest. With {@link #roles}, znodes take {@link
   * #acl(String)} instead.
   */
  public List<ACL> acl() {
    if (digest.isEmpty()) {
      return ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }
    try {
      // not List.of: ZooKeeper's create asks the list whether it contains null
      return Collections.singletonList(new ACL(ZooDefs.Perms.ALL,
          new Id("digest", DigestAuthenticationProvider.generateDigest(digest))));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-1 for ZooKeeper's digest", e);
    }
  }

  @Override
  public String toString() {
    return "ZooKeeperSettings[connect=" + connect + ", chroot=" + chroot + ", sessionTimeout="
        + sessionTimeout + ", connectionTimeout=" + connectionTimeout + ", digest="
        + (digest.isEmpty() ? "none" : digest.substring(0, digest.indexOf(':')) + ":***")
        + ", tls=" + (tls == null ? "off" : tls) + ", roles=" + (roles == null ? "one identity"
        : "cluster and client") + "]";
  }
}
