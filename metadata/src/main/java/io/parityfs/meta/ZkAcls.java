package io.parityfs.meta;

import io.parityfs.meta.registry.ZkPaths;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;

/**
 * Applies the creator-only ACL of a digest identity to a cluster's znodes that already exist
 * ({@code parityfs zk-acl}; docs/security.md): a cluster whose digest was turned on after its
 * first start keeps open ACLs on what it made before, which this closes. Every znode under
 * {@value ZkPaths#ROOT} (and the chroot's own znode) gets {@link ZooKeeperSettings#acl(String)}:
 * all permissions for the digest identity and nobody else, or, with identities by role ({@link
 * ZkRoles}), the registry read-only for clients and the namespace theirs too: what migrates a
 * cluster to rights by role. Idempotent: run again, it sets the same ACLs.
 */
public final class ZkAcls {
  /** How often (in znodes) progress is reported. */
  public static final long PROGRESS_EVERY = 10_000;

  /**
   * What a pass did.
   *
   * @param znodes znodes visited
   * @param set ACLs set (open ones closed, or already this identity's)
   * @param refused znodes this identity may not change (another identity's ACL): left as they
   *     are, and their subtrees not walked
   * @param firstRefused the first of them, or null
   */
  public record Outcome(long znodes, long set, long refused, String firstRefused) {}

  private ZkAcls() {}

  /**
   * Walks the cluster's znodes with {@code zk} (a client of {@link ZooKeeperSettings#newClient}
   * with a digest, so it is authenticated and creates creator-only) and sets the creator-only
   * ACL on each, parents before children. {@code progress} hears the count every {@link
   * #PROGRESS_EVERY} znodes.
   *
   * @throws IllegalArgumentException when {@code settings} has no digest (the ACL would name no
   *     identity)
   */
  public static Outcome apply(CuratorFramework zk, ZooKeeperSettings settings,
      LongConsumer progress) throws IOException {
    if (settings.digest().isEmpty()) {
      throw new IllegalArgumentException("applying ACLs needs the cluster's digest identity"
          + " (the ACLs are that identity's)");
    }
    List<ACL> rootAcl = settings.acl(ZkPaths.ROOT);
    long znodes = 0;
    long set = 0;
    long refused = 0;
    String firstRefused = null;
    try {
      if (!settings.chroot().isEmpty()) {
        // the chroot's own znode, outside the client's namespace
        try {
          zk.usingNamespace(null).setACL().withACL(rootAcl).forPath(settings.chroot());
        } catch (KeeperException.NoAuthException other) {
          refused++;
          firstRefused = settings.chroot();
        }
      }
      Deque<String> todo = new ArrayDeque<>();
      todo.push(ZkPaths.ROOT);
      while (!todo.isEmpty()) {
        String path = todo.pop();
        try {
          zk.setACL().withACL(settings.acl(path)).forPath(path);
          znodes++;
          set++;
          for (String child : zk.getChildren().forPath(path)) {
            todo.push(path + "/" + child);
          }
        } catch (KeeperException.NoNodeException gone) {
          continue; // deleted while we walked (or no cluster here yet): nothing to protect
        } catch (KeeperException.NoAuthException other) {
          znodes++;
          refused++;
          if (firstRefused == null) {
            firstRefused = path;
          }
        }
        if (znodes % PROGRESS_EVERY == 0) {
          progress.accept(znodes);
        }
      }
    } catch (Exception e) {
      throw Zk.failure(ZkPaths.ROOT, "applying ACLs", e);
    }
    return new Outcome(znodes, set, refused, firstRefused);
  }
}
