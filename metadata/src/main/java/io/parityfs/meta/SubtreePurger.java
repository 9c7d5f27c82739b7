package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Each file's entry is deleted in the same {@code multi} as the ops of {@link FileRemovals}
 * (its deferred-delete record), so a crash between batches leaves every removed file queued and
 * every queued file removed; the next purge goes on from what is left.
 */
final class SubtreePurger {
  private static final Logger LOG = LoggerFactory.getLogger(SubtreePurger.class);
  private static final int DELETE_BATCH = 500;
  /** Bytes of op data per {@code multi}, well inside the default 1 MiB {@code jute.maxbuffer}. */
  private static final int BATCH_BYTES = 256 * 1024;

  /**
   * An entry to delete, at the version read (so a file's removal ops describe the record that
   * is deleted), with the ops that go with it (a file's removal ops; none for others).
   */
  private record Removal(String znode, int version, List<Op> with, int bytes) {}

  private final Zk zk;
  private final ZNodes zn;
  private final FileRemovals removals;
  private final Runnable afterBatch;

  SubtreePurger(Zk zk, ZNodes zn, FileRemovals removals) {
    this(zk, zn, removals, () -> {});
  }

  /** @param afterBatch run after each {@code multi} of deletions (tests simulate a crash) */
  SubtreePurger(Zk zk, ZNodes zn, FileRemovals removals, Runnable afterBatch) {
    this.zk = zk;
    this.zn = zn;
    this.removals = removals;
    this.afterBatch = afterBatch;
  }

  /** Purges the detached directory {@code dirId} and removes its trash marker. */
  void purge(long dirId) throws NamespaceException {
    long[] counts = new long[2];
    purgeContainer(dirId, counts);
    deleteQuietly(zn.trashMarker(dirId));
    LOG.info("directory {}: subtree deleted ({} files, {}"
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
      List<Removal> entries = new ArrayList<>(names.size());
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
          // its chunks, if any, are left to orphan collection
          LOG.warn("deleting undecodable entry {}", entry);
          entries.add(new Removal(entry, -1, List.of(), 0));
          continue;
        }
        if (inode.isDirectory()) {
          purgeContainer(inode.id(), counts);
          counts[1]++;
          entries.add(new Removal(entry, -1, List.of(), 0));
        } else {
          counts[0]++;
          entries.add(new Removal(entry, r.getStat().getVersion(), removals.opsFor(inode),
              r.getData().length));
        }
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

  private void deleteAll(List<Removal> entries) throws NamespaceException {
    int from = 0;
    while (from < entries.size()) {
      int to = from;
      int bytes = 0;
      while (to < entries.size() && to - from < DELETE_BATCH
          && (to == from || bytes + entries.get(to).bytes() <= BATCH_BYTES)) {
        bytes += entries.get(to).bytes();
        to++;
      }
      List<Removal> batch = entries.subList(from, to);
      List<Op> ops = new ArrayList<>(batch.size() * 2);
      for (Removal r : batch) {
        ops.add(zk.delete(r.znode(), r.version()));
        ops.addAll(r.with());
      }
      if (zk.multi(ops, null, batch.get(0).znode()) != null) {
        for (Removal r : batch) { // one was gone already (another purger): one by one
          deleteOne(r);
        }
      }
      afterBatch.run();
      from = to;
    }
  }

  private void deleteOne(Removal r) throws NamespaceException {
    List<Op> with = new ArrayList<>(r.with());
    while (true) {
      List<Op> ops = new ArrayList<>(1 + with.size());
      ops.add(zk.delete(r.znode(), r.version()));
      ops.addAll(with);
      Zk.Failure f = zk.multi(ops, null, r.znode());
      if (f == null || f.index() <= 0) {
        // deleted now, or by another purger with its own removal ops; or changed since read
        // (BADVERSION): the bucket is not empty then, and the next round reads it again
        return;
      }
      if (f.code() == KeeperException.Code.NODEEXISTS || f.code() == KeeperException.Code.NONODE) {
        // a removal op whose effect is there already (a queue record created, an open record
        // gone): the rest goes without it
        with.remove(f.index() - 1);
        continue;
      }
      LOG.warn("{}: removal op refused ({}); deleting the entry"
          + " alone", r.znode(), f.code());
      deleteQuietly(r.znode());
      return;
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
