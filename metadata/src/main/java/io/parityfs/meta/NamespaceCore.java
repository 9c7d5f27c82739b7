package io.parityfs.meta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;

/**
 * What every view of one opened {@link Namespace} shares: the settings, the ZooKeeper access,
 * the znode layout, the id allocator, the lookup cache and the helpers over them (lister,
 * removals, purger, leases, connection gate), the entries of the files this client writes, and
 * the closed flag. The operation classes ({@link Creates}, {@link Deletes}, {@link Rename},
 * {@link WriterCommits}, {@link Updates}, {@link XAttrs}) take it with their view's {@link
 * EntryWalker}, which carries the caller's {@link AccessChecker}. Thread-safe.
 */
final class NamespaceCore {
  final NamespaceConfig config;
  final Zk zk;
  final CuratorFramework client;
  final ZNodes zn;
  final IdAllocator ids;
  final int rootBuckets;
  final DirectoryLister lister;
  /** Lookups; every write path invalidates the entries it changed (see {@link EntryCache}). */
  final EntryCache cache;
  final FileRemovals removals;
  final SubtreePurger purger;
  final Leases leases;
  final RepairIndex repairIndex;
  final SealMarks sealMarks;
  final ConnectionGate gate;
  /**
   * The last known entry of each file this client writes (lease held): a writer's commit tries
   * it first, with no read; the commit's versioned write refuses it if anything changed.
   */
  final Map<Long, Entry> writing = new ConcurrentHashMap<>();
  final AtomicBoolean closed = new AtomicBoolean();

  NamespaceCore(CuratorFramework client, NamespaceConfig config, int rootBuckets) {
    this.config = config;
    this.client = client;
    this.zk = new Zk(client);
    this.zn = new ZNodes(config.root());
    this.ids = new IdAllocator(client, zn, config.idBlock(), config.maxRetries(),
        new AdvertisedIds(zk));
    this.rootBuckets = rootBuckets;
    this.cache = new EntryCache(client, config.entryCacheSize());
    zk.invalidates(cache::invalidate);
    this.lister = new DirectoryLister(zk, zn, cache);
    this.leases = new Leases(zk, zn);
    this.repairIndex = new RepairIndex(zk, zn);
    this.sealMarks = new SealMarks(client, zn);
    this.removals = new FileRemovals(zk, zn, repairIndex);
    this.purger = new SubtreePurger(zk, zn, removals);
    this.gate = new ConnectionGate(client, config.suspendedWaitMillis());
    gate.register();
  }

  /**
   * Writes {@code next} over the entry read as {@code e} (versioned), with {@code more} ops in
   * the same {@code multi}.
   *
   * @return false when the entry changed since it was read (the caller reads again)
   */
  boolean write(Entry e, Inode next, List<Op> more, String p) throws NamespaceException {
    return refusal(e, next, more, p) == null;
  }

  /**
   * {@link #write}, telling why ZooKeeper refused it: null when written, else the failure,
   * whose {@link Zk.Failure#index} is 0 when the entry's own version moved (contention: read it
   * again and retry) and {@code 1 + i} when {@code more.get(i)} (or, past {@code more}, a repair
   * index op) failed with the entry unchanged, which no re-read of the entry alters.
   */
  Zk.Failure refusal(Entry e, Inode next, List<Op> more, String p) throws NamespaceException {
    byte[] data = InodeCodec.encode(next);
    if (data.length > InodeCodec.MAX_BYTES) {
      throw new NamespaceException(NamespaceStatus.TOO_LARGE, p, "inode record of "
          + data.length + " bytes, more than " + InodeCodec.MAX_BYTES);
    }
    int expected = e.zkVersion();
    List<Op> ops = new ArrayList<>(1 + more.size());
    ops.add(zk.setData(e.znode(), data, expected));
    ops.addAll(more);
    ops.addAll(repairIndex.onWrite(e.inode(), next, e.znode(), p));
    Zk.Failure f = zk.multi(ops, () -> {
      Stat stat = new Stat();
      byte[] now = client.getData().storingStatIn(stat).forPath(e.znode());
      return stat.getVersion() == expected + 1 && Arrays.equals(now, data);
    }, p);
    return f;
  }

  /** See {@link Namespace#sync()}. */
  void sync() throws NamespaceException {
    // Curator's sync() only queues the request: wait for its reply. ZooKeeper delivers the reply
    // on its event thread after every watch event queued before it, so once it is here the
    // lookup cache has also dropped every entry changed before the call.
    CompletableFuture<CuratorEvent> done = new CompletableFuture<>();
    try {
      client.sync().inBackground((c, event) -> done.complete(event)).forPath(zn.root);
    } catch (Exception e) {
      throw Zk.failure(zn.root, "sync", e);
    }
    int rc = Zk.joinAll(List.of(done), "/").get(0).getResultCode();
    if (rc != 0) {
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, "/", "sync: ZooKeeper "
          + KeeperException.Code.get(rc));
    }
  }

  /** Marks every view closed; the Curator client stays open (the caller owns it). */
  void close() {
    closed.set(true);
    gate.unregister();
    cache.close();
  }

  NamespaceException conflict(String p) {
    return new NamespaceException(NamespaceStatus.CONFLICT, p,
        "gave up after " + config.maxRetries() + " attempts under contention");
  }
}
