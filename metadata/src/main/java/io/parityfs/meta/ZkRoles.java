package io.parityfs.meta;

import io.parityfs.meta.registry.ZkPaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * The two ZooKeeper digest identities of a cluster with rights by role (docs/security.md,
 * "ZooKeeper rights by role"): <b>cluster</b> (storage nodes, the keeper, admins' CLI) and
 * <b>client</b> (Hadoop, the mount, users' CLI). Every znode is created with both: the registry
 * (nodes, targets, online and offline records, retirements, progress, mover locks, the keeper's
 * and the cluster manager's elections, and {@value ZkPaths#ROOT} itself) gives the cluster all
 * permissions and clients READ; everything else, the namespace (entries, leases, session
 * markers, the repair index and delete queue its writers update in the same transaction), gives
 * both all. So a client's credentials cannot drain, remove or reinstate a node, mark targets,
 * or register a rogue node.
 *
 * <p>The ids are public ({@code user:base64(sha1(user:password))}, what ZooKeeper shows in an
 * ACL): each process's digest file holds its own {@code user:password} on the first line and
 * the two ids on lines {@code role.cluster=ID} and {@code role.client=ID}; a file without them
 * keeps one identity for everything (the cluster's creator-only ACL).
 *
 * @param cluster the cluster identity's id, {@code user:base64hash}
 * @param client the client identity's id
 */
public record ZkRoles(String cluster, String client) {
  /** The registry's subtrees (relative to the chroot), where clients only read. */
  static final List<String> REGISTRY = List.of(ZkPaths.NODES, ZkPaths.TARGETS, ZkPaths.ONLINE,
      ZkPaths.OFFLINE, ZkPaths.RETIRED, ZkPaths.PROGRESS, ZkPaths.ROOT + "/movers",
      ZkPaths.ROOT + "/keeper", ZkPaths.ROOT + "/manager");

  public ZkRoles {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(client, "client");
    if (cluster.indexOf(':') < 1 || client.indexOf(':') < 1 || cluster.equals(client)) {
      throw new IllegalArgumentException("role ids must be two distinct user:base64hash ids");
    }
  }

  /** The public id of {@code userPassword} ({@code user:password}). */
  public static String idOf(String userPassword) {
    try {
      return DigestAuthenticationProvider.generateDigest(userPassword);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-1 for ZooKeeper's digest", e);
    }
  }

  /** The role lines of a digest file ({@link #read} reads them back). */
  public String fileLines() {
    return "role.cluster=" + cluster + "\nrole.client=" + client + "\n";
  }

  /** The roles named in a digest file, or null when it names none. */
  public static ZkRoles read(Path digestFile) throws IOException {
    String cluster = null;
    String client = null;
    for (String line : Files.readAllLines(digestFile, StandardCharsets.UTF_8)) {
      String l = line.trim();
      if (l.startsWith("role.cluster=")) {
        cluster = l.substring("role.cluster=".length()).trim();
      } else if (l.startsWith("role.client=")) {
        client = l.substring("role.client=".length()).trim();
      }
    }
    if (cluster == null && client == null) {
      return null;
    }
    if (cluster == null || client == null) {
      throw new IOException(digestFile + " names one role id of two (role.cluster=,"
          + " role.client=)");
    }
    try {
      return new ZkRoles(cluster, client);
    } catch (IllegalArgumentException e) {
      throw new IOException(digestFile + ": " + e.getMessage(), e);
    }
  }

  /** Whether {@code path} (relative to the chroot) is in the registry, where clients read. */
  public static boolean isRegistry(String path) {
    if (path.equals(ZkPaths.ROOT)) {
      return true;
    }
    for (String r : REGISTRY) {
      if (path.equals(r) || path.startsWith(r + "/")) {
        return true;
      }
    }
    return false;
  }

  /** The ACL of a znode at {@code path} (relative to the chroot). */
  public List<ACL> aclFor(String path) {
    List<ACL> acl = new ArrayList<>(2);
    acl.add(new ACL(ZooDefs.Perms.ALL, new Id("digest", cluster)));
    acl.add(new ACL(isRegistry(path) ? ZooDefs.Perms.READ : ZooDefs.Perms.ALL,
        new Id("digest", client)));
    return acl;
  }
}
