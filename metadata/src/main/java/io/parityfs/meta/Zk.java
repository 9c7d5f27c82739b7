package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * The namespace's access to ZooKeeper: reads through Curator (its namespace, its retry policy),
 * and writes as one {@code multi} each, retried by Curator's retry loop on connection loss.
 *
 * <p><b>Ambiguous commits.</b> A {@code multi} whose reply is lost may or may not have been
 * applied. Every write passes an {@link Applied} check that the retry asks before sending the
 * {@code multi} again: it looks for the write's own effect (a new inode id at its entry, a
 * record version one past the one read), so a retried create does not report "already exists"
 * for the file it made, and a retried update is not applied twice.
 */
final class Zk {
  /** Whether a write that may have been lost was in fact applied. */
  @FunctionalInterface
  interface Applied {
    boolean check() throws Exception;
  }

  /**
   * Told of every znode a {@code multi} may have changed, before the write returns: the lookup
   * cache drops them, so that this client's own writes are never undone by what it cached.
   */
  @FunctionalInterface
  interface InvalidationListener {
    void invalidate(String znode);
  }

  /** Why a {@code multi} was refused: the index of the op and ZooKeeper's code for it. */
  record Failure(int index, KeeperException.Code code) {}

  private final CuratorFramework client;
  private final String prefix;
  private volatile InvalidationListener invalidations;

  Zk(CuratorFramework client) {
    this.client = client;
    String ns = client.getNamespace();
    this.prefix = ns == null || ns.isEmpty() ? "" : ZKPaths.makePath(ns, null);
  }

  CuratorFramework client() {
    return client;
  }

  /**
   * A create of a persistent znode with the ACL of the client's {@code ACLProvider} (open, or
   * creator-only with digest authentication: see {@link ZooKeeperSettings}).
   */
  Op create(String path, byte[] data) {
    try {
      return client.transactionOp().create().withMode(CreateMode.PERSISTENT)
          .forPath(path, data).get();
    } catch (Exception e) {
      throw new IllegalStateException("cannot build a create of " + path, e);
    }
  }

  Op delete(String path, int version) {
    return Op.delete(prefix + path, version);
  }

  Op setData(String path, byte[] data, int version) {
    return Op.setData(prefix + path, data, version);
  }

  Op check(String path, int version) {
    return Op.check(prefix + path, version);
  }

  /**
   * Runs the ops as one atomic {@code multi}.
   *
   * @return null when applied (now or by an earlier attempt, per {@code applied}), else the
   *     refused op
   */
  Failure multi(List<Op> ops, Applied applied, String path) throws NamespaceException {
    int[] attempts = {0};
    Failure f = null;
    try {
      f = RetryLoop.callWithRetry(client.getZookeeperClient(), () -> {
        if (attempts[0]++ > 0) {
          invalidate(ops, true); // the check below must see the server, not the cache
          if (applied != null && applied.check()) {
            return null;
          }
        }
        try {
          client.getZookeeperClient().getZooKeeper().multi(ops);
          return null;
        } catch (KeeperException e) {
          if (e.getResults() == null || e.getResults().isEmpty()) {
            throw e; // connection-level: the retry loop decides
          }
          return failure(e);
        }
      });
      return f;
    } catch (Exception e) {
      f = new Failure(-1, KeeperException.Code.SYSTEMERROR);
      throw failure(path, "multi of " + ops.size() + " ops", e);
    } finally {
      // this client's own writes are never undone by its cache: before the write returns
      invalidate(ops, f != null);
    }
  }

  /**
   * Tells the {@link InvalidationListener} what a {@code multi} wrote (applied) or everything it
   * named, checks included (refused or unknown: the caller's retry re-reads from the server).
   */
  private void invalidate(List<Op> ops, boolean all) {
    InvalidationListener c = invalidations;
    if (c == null) {
      return;
    }
    for (Op op : ops) {
      if (all || !(op instanceof Op.Check)) {
        String p = op.getPath(); // as sent: with the Curator namespace's prefix
        c.invalidate(p.startsWith(prefix) ? p.substring(prefix.length()) : p);
      }
    }
  }

  /** The listener every {@link #multi} invalidates (set once, by the namespace's core). */
  void invalidates(InvalidationListener listener) {
    invalidations = listener;
  }

  private static Failure failure(KeeperException e) {
    List<OpResult> results = e.getResults();
    int runtimeInconsistency = KeeperException.Code.RUNTIMEINCONSISTENCY.intValue();
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof OpResult.ErrorResult r && r.getErr() != 0
          && r.getErr() != runtimeInconsistency) {
        return new Failure(i, KeeperException.Code.get(r.getErr()));
      }
    }
    return new Failure(-1, e.code());
  }

  CompletableFuture<CuratorEvent> getDataAsync(String path) {
    CompletableFuture<CuratorEvent> f = new CompletableFuture<>();
    try {
      client.getData().inBackground((c, event) -> f.complete(event)).forPath(path);
    } catch (Exception e) {
      f.completeExceptionally(e);
    }
    return f;
  }

  CompletableFuture<CuratorEvent> existsAsync(String path) {
    CompletableFuture<CuratorEvent> f = new CompletableFuture<>();
    try {
      client.checkExists().inBackground((c, event) -> f.complete(event)).forPath(path);
    } catch (Exception e) {
      f.completeExceptionally(e);
    }
    return f;
  }

  CompletableFuture<CuratorEvent> getChildrenAsync(String path) {
    CompletableFuture<CuratorEvent> f = new CompletableFuture<>();
    try {
      client.getChildren().inBackground((c, event) -> f.complete(event)).forPath(path);
    } catch (Exception e) {
      f.completeExceptionally(e);
    }
    return f;
  }

  /** Waits for every future, in order. */
  static List<CuratorEvent> joinAll(List<CompletableFuture<CuratorEvent>> futures, String path)
      throws NamespaceException {
    List<CuratorEvent> out = new ArrayList<>(futures.size());
    for (CompletableFuture<CuratorEvent> f : futures) {
      try {
        out.add(f.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path, "interrupted");
      } catch (ExecutionException e) {
        throw failure(path, "asynchronous read", (Exception) e.getCause());
      }
    }
    return out;
  }

  /**
   * Creates each znode of {@code paths} that does not exist yet, in order, in one {@code multi}
   * (parents before children); a concurrent creator's znodes are accepted. What open does for
   * parts of the layout that a namespace formatted by older code lacks.
   */
  static void ensureAll(CuratorFramework client, List<String> paths) throws Exception {
    if (client.checkExists().forPath(paths.get(paths.size() - 1)) != null) {
      return;
    }
    List<CuratorOp> ops = new ArrayList<>();
    for (String p : paths) {
      if (client.checkExists().forPath(p) == null) {
        ops.add(client.transactionOp().create().forPath(p, new byte[0]));
      }
    }
    try {
      client.transaction().forOperations(ops);
    } catch (KeeperException.NodeExistsException e) {
      // made concurrently by another opener
    }
  }

  /** Decodes one record read from {@code znode}. */
  @FunctionalInterface
  interface Decoder<T> {
    T decode(byte[] data, String znode) throws NamespaceException;
  }

  /**
   * Every record in the {@link ZNodes#SHARDS} shard folders {@code shard.apply(i)}: a listing
   * of each, then one read per record; a shard not made yet and a record deleted between its
   * listing and its read are skipped. {@code what} names the records in errors.
   */
  static <T> List<T> readShards(CuratorFramework client, java.util.function.IntFunction<String>
      shard, Decoder<T> decoder, String what) throws NamespaceException {
    List<T> out = new ArrayList<>();
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      String folder = shard.apply(i);
      List<String> names;
      try {
        names = client.getChildren().forPath(folder);
      } catch (KeeperException.NoNodeException e) {
        continue;
      } catch (Exception e) {
        throw failure(folder, "listing " + what, e);
      }
      for (String name : names) {
        String z = folder + "/" + name;
        try {
          out.add(decoder.decode(client.getData().forPath(z), z));
        } catch (KeeperException.NoNodeException e) {
          // removed meanwhile
        } catch (Exception e) {
          throw failure(z, "reading " + what, e);
        }
      }
    }
    return out;
  }

  /** The exception to throw for an unexpected ZooKeeper or client failure. */
  static NamespaceException failure(String path, String what, Exception e) {
    if (e instanceof NamespaceException ne) {
      return ne;
    }
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return new NamespaceException(NamespaceStatus.UNAVAILABLE, path, what + ": interrupted", e);
    }
    if (e instanceof KeeperException.NoAuthException) {
      return new NamespaceException(NamespaceStatus.PERMISSION_DENIED, path, what
          + ": ZooKeeper NOAUTH: the znodes are the cluster's digest identity's only, and this"
          + " client has none or another (its digest: zookeeper.digestFile on a node,"
          + " fs.pfs.cluster.<name>.digest.file in Hadoop, --digest-file or PARITYFS_DIGEST_FILE"
          + " for the CLI)", e);
    }
    if (e instanceof KeeperException ke) {
      return new NamespaceException(NamespaceStatus.UNAVAILABLE, path,
          what + ": ZooKeeper " + ke.code(), e);
    }
    return new NamespaceException(NamespaceStatus.UNAVAILABLE, path, what + ": " + e, e);
  }
}
