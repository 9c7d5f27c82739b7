package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * Deletes the znodes of a detached directory's subtree, bottom up: for each bucket, read its
 * entries (in parallel), purge each subdirectory's container first, delete the entries in
 * {@code multi} batches, delete the bucket; finally the container and the trash marker.
 *
 * <p>Deleting bottom up means a crash leaves no unreachable znode that the trash marker does
 * not lead to: an entry of a directory goes only after that directory's container is gone.
 * ZooKeeper refuses to delete a non-empty znode, so an entry created concurrently (a create
 * that raced the detach and is ordered before it) is found on the next round, never leaked.
 * Idempotent and safe to run by several clients at once.
 *
 * <p>Not built yet: the chunks of the deleted files on the storage nodes (the cluster manager
 * slice collects them; the file ids are logged at FINE here).
 */
final class SubtreePurger {
  private static final System.Logger LOG = System.getLogger(SubtreePurger.class.getName());
  private static final int DELETE_BATCH = 500;

  private final Zk zk;
  private final ZNodes zn;

  SubtreePurger(Zk zk, ZNodes zn) {
    this.zk = zk;
    this.zn = zn;
  }

  /** Purges the detached directory {@code dirId} and removes its trash marker. */
  void purge(long dirId) throws NamespaceException {
    long[] counts = new long[2];
    purgeContainer(dirId, counts);
    deleteQuietly(zn.trashMarker(dirId));
    LOG.log(System.Logger.Level.INFO, "directory {0}: subtree deleted ({1} files, {2}"
        + " directories)", ZNodes.hexId(dirId), counts[0], counts[1] + 1);
  }

  private void purgeContainer(long dirId, long[] counts) throws NamespaceException {
    String container = zn.container(dirId);
    while (true) {
      List<String> buckets = children(container);
      if (buckets == null) {
        return;
      }
      for (String b : buckets) {
        purgeBucket(container + "/" + b, counts);
      }
      try {
        zk.client().delete().forPath(container);
        return;
      } catch (KeeperException.NoNodeException e) {
        return;
      } catch (KeeperException.NotEmptyException e) {
        // an entry or bucket appeared meanwhile: another round
      } catch (Exception e) {
        throw Zk.failure(container, "deleting a detached directory", e);
      }
    }
  }

  private void purgeBucket(String bucket, long[] counts) throws NamespaceException {
    while (true) {
      List<String> names = children(bucket);
      if (names == null) {
        return;
      }
      List<CompletableFuture<CuratorEvent>> reads = new ArrayList<>(names.size());
      for (String n : names) {
        reads.add(zk.getDataAsync(bucket + "/" + n));
      }
      List<CuratorEvent> data = Zk.joinAll(reads, bucket);
      List<String> entries = new ArrayList<>(names.size());
      for (int i = 0; i < names.size(); i++) {
        CuratorEvent r = data.get(i);
        String entry = bucket + "/" + names.get(i);
        if (r.getResultCode() != 0) {
          continue; // gone already (another purger)
        }
        Inode inode;
        try {
          inode = InodeCodec.decode(r.getData(), entry);
        } catch (NamespaceException e) {
          LOG.log(System.Logger.Level.WARNING, "deleting undecodable entry {0}", entry);
          entries.add(entry);
          continue;
        }
        if (inode.isDirectory()) {
          purgeContainer(inode.id(), counts);
          counts[1]++;
        } else {
          LOG.log(System.Logger.Level.DEBUG, "file {0} deleted", inode.id());
          counts[0]++;
        }
        entries.add(entry);
      }
      deleteAll(entries);
      try {
        zk.client().delete().forPath(bucket);
        return;
      } catch (KeeperException.NoNodeException e) {
        return;
      } catch (KeeperException.NotEmptyException e) {
        // created meanwhile: another round
      } catch (Exception e) {
        throw Zk.failure(bucket, "deleting a bucket", e);
      }
    }
  }

  private void deleteAll(List<String> znodes) throws NamespaceException {
    for (int from = 0; from < znodes.size(); from += DELETE_BATCH) {
      List<String> batch = znodes.subList(from, Math.min(znodes.size(), from + DELETE_BATCH));
      List<Op> ops = new ArrayList<>(batch.size());
      for (String z : batch) {
        ops.add(zk.delete(z, -1));
      }
      if (zk.multi(ops, null, batch.get(0)) != null) {
        for (String z : batch) { // one was gone already: one by one
          deleteQuietly(z);
        }
      }
    }
  }

  private void deleteQuietly(String znode) throws NamespaceException {
    try {
      zk.client().delete().forPath(znode);
    } catch (KeeperException.NoNodeException e) {
      // gone already
    } catch (Exception e) {
      throw Zk.failure(znode, "deleting", e);
    }
  }

  /** The children, or null when the znode does not exist. */
  private List<String> children(String znode) throws NamespaceException {
    try {
      return zk.client().getChildren().forPath(znode);
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (Exception e) {
      throw Zk.failure(znode, "listing " + znode, e);
    }
  }
}
