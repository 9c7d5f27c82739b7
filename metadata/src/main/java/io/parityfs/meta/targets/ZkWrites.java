package io.parityfs.meta.targets;

import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/** The registry's few writes of whole records. Stateless. */
final class ZkWrites {
  private ZkWrites() {}

  /**
   * Writes {@code data} at {@code path}, creating it (and its parents) if absent. Each write
   * moves the znode's mzxid and version, which marks are compared and guarded by.
   */
  static void upsert(CuratorFramework zk, String path, byte[] data) throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        zk.setData().forPath(path, data);
        return;
      } catch (KeeperException.NoNodeException e) {
        try {
          zk.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT)
              .forPath(path, data);
          return;
        } catch (KeeperException.NodeExistsException raced) {
          if (attempt >= 10) {
            throw raced;
          }
        }
      }
    }
  }

  /**
   * The failure of a registry write: PERMISSION_DENIED (exit 5 on the command line) when
   * ZooKeeper refused this identity (NOAUTH: with rights by role, the client identity only reads
   * the registry; docs/security.md), UNAVAILABLE otherwise.
   */
  static NamespaceException failure(String path, String what, Throwable e) {
    if (e instanceof KeeperException.NoAuthException) {
      return new NamespaceException(NamespaceStatus.PERMISSION_DENIED, path, what
          + ": ZooKeeper NOAUTH: registry writes need the cluster's identity (its digest file),"
          + " not a client's", e);
    }
    return new NamespaceException(NamespaceStatus.UNAVAILABLE, path, what + ": " + e, e);
  }

  /** Deletes {@code path}; false when it was not there. */
  static boolean delete(CuratorFramework zk, String path) throws Exception {
    try {
      zk.delete().forPath(path);
      return true;
    } catch (KeeperException.NoNodeException e) {
      return false;
    }
  }
}
