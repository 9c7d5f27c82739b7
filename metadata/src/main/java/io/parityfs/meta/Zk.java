package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;

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

  /** Why a {@code multi} was refused: the index of the op and ZooKeeper's code for it. */
  record Failure(int index, KeeperException.Code code) {}

  private final CuratorFramework client;
  private final String prefix;

  Zk(CuratorFramework client) {
    this.client = client;
    String ns = client.getNamespace();
    this.prefix = ns == null || ns.isEmpty() ? "" : ZKPaths.makePath(ns, null);
  }

  CuratorFramework client() {
    return client;
  }

  Op create(String path, byte[] data) {
    return Op.create(prefix + path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
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
    try {
      return RetryLoop.callWithRetry(client.getZookeeperClient(), () -> {
        if (attempts[0]++ > 0 && applied != null && applied.check()) {
          return null;
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
    } catch (Exception e) {
      throw failure(path, "multi of " + ops.size() + " ops", e);
    }
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
      } catch (java.util.concurrent.ExecutionException e) {
        throw failure(path, "asynchronous read", (Exception) e.getCause());
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
    if (e instanceof KeeperException ke) {
      return new NamespaceException(NamespaceStatus.UNAVAILABLE, path,
          what + ": ZooKeeper " + ke.code(), e);
    }
    return new NamespaceException(NamespaceStatus.UNAVAILABLE, path, what + ": " + e, e);
  }
}
