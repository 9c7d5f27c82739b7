package io.parityfs.meta;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * This client's cache of what it looked up in ZooKeeper: entry records (by entry znode), and
 * for the directory lister ({@code DirectoryLister}) a container's bucket names and each
 * bucket's sorted names ({@link Sorted}). Every value is read with a one-shot ZooKeeper watch
 * on its znode and dropped when the watch fires (data changed, node deleted, children changed),
 * so a stat or a page of a listing that hits the cache costs no request to the server.
 *
 * <p><b>Correctness.</b>
 *
 * <ul>
 *   <li><em>Writes by other clients</em> are seen once their watch event reaches this client:
 *       ZooKeeper sends the event before the reply to any later read of the znode, so a cached
 *       value is stale at most for the time the event takes to arrive and be dispatched (the
 *       same bound as a follower's replication lag, which uncached reads already have).
 *   <li><em>This client's own writes</em> are never undone: every write path calls {@link
 *       #invalidate(String)} with each entry znode it changed, after its {@code multi} succeeded
 *       and before it returns; a read that began before the invalidation cannot store its older
 *       value afterwards ({@link WatchedLru}), and a read that begins after it goes to the server,
 *       which applied the write first (one session, FIFO).
 *   <li><em>Lost watches</em>: on a SUSPENDED, LOST or RECONNECTED connection state, or any
 *       disconnect/expiry event, everything is dropped (an expired session's watches are gone;
 *       cleared eagerly on a mere disconnect too, which is cheap and simple to reason about).
 *   <li>Misses (no such entry) are not cached, nor are files open for writing (a lease is held):
 *       readers following a file another client writes see each of its commits at once.
 * </ul>
 *
 * <p>A watch of a value dropped by the LRU stays registered at the server until it fires or the
 * session ends (removing it could race a new fill's watch on the same path). Disabled ({@code
 * entryCacheSize} 0): reads go to the server without watches. Thread-safe.
 */
final class EntryCache implements Closeable {
  /** An entry record and the znode version it was read at. */
  record Cached(Inode inode, int version) {}

  /**
   * One bucket's names, sorted, as of child version {@code cversion}, with each one's entry
   * znode (made once, not per page).
   */
  record Sorted(int cversion, String[] names, String[] znodes) {}

  /** Names of a directory's buckets, kept per container (directories have ≤ 256 buckets). */
  static final int CACHED_CONTAINERS = 4096;
  /** Buckets whose sorted names are kept. */
  static final int CACHED_BUCKETS = 4096;

  private final CuratorFramework client;
  private final boolean enabled;
  private final WatchedLru<Cached> records;
  private final WatchedLru<List<String>> containers;
  private final WatchedLru<Sorted> buckets;
  private final Watcher watcher = this::onEvent;
  private final ConnectionStateListener connection = this::onConnectionState;
  private final LongAdder hits = new LongAdder();
  private final LongAdder reads = new LongAdder();

  /** @param capacity entry records held; 0 disables the cache (and the lister's watches) */
  EntryCache(CuratorFramework client, int capacity) {
    this.client = client;
    this.enabled = capacity > 0;
    this.records = enabled ? new WatchedLru<>(capacity) : null;
    this.containers = enabled ? new WatchedLru<>(CACHED_CONTAINERS) : null;
    this.buckets = enabled ? new WatchedLru<>(CACHED_BUCKETS) : null;
    if (enabled) {
      client.getConnectionStateListenable().addListener(connection);
    }
  }

  boolean enabled() {
    return enabled;
  }

  /** The watcher every cached read registers. */
  Watcher watcher() {
    return watcher;
  }

  WatchedLru<List<String>> containers() {
    return containers;
  }

  WatchedLru<Sorted> buckets() {
    return buckets;
  }

  /** Record lookups served from the cache. */
  long hits() {
    return hits.sum();
  }

  /** Entry records (and tombstones) held. */
  int size() {
    return enabled ? records.size() : 0;
  }

  /** Record reads sent to ZooKeeper. */
  long reads() {
    return reads.sum();
  }

  /**
   * Called by every write path of this client, after its {@code multi} succeeded and before it
   * returns, once per entry znode it created, deleted or changed: drops the record and the
   * names of the bucket and container that hold it (a create may also have made the bucket).
   */
  void invalidate(String entryZnode) {
    if (!enabled) {
      return;
    }
    records.invalidate(entryZnode);
    String bucket = ZKPaths.getPathAndNode(entryZnode).getPath();
    buckets.invalidate(bucket);
    containers.invalidate(ZKPaths.getPathAndNode(bucket).getPath());
  }

  /** Drops everything (also what a concurrent read is about to store). */
  void clear() {
    if (enabled) {
      records.clear();
      containers.clear();
      buckets.clear();
    }
  }

  /**
   * The record at an entry znode, or null when there is none: from the cache, else one {@code
   * getData} that leaves a watch.
   *
   * @param path the file system path, for errors
   */
  Cached read(String znode, String path) throws NamespaceException {
    if (enabled) {
      Cached c = records.get(znode);
      if (c != null) {
        hits.increment();
        return c;
      }
    }
    long ticket = enabled ? records.ticket() : 0;
    Stat stat = new Stat();
    byte[] data;
    try {
      reads.increment();
      data = enabled
          ? client.getData().storingStatIn(stat).usingWatcher(watcher).forPath(znode)
          : client.getData().storingStatIn(stat).forPath(znode);
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (Exception e) {
      throw Zk.failure(path, "reading " + znode, e);
    }
    Cached c = new Cached(InodeCodec.decode(data, path), stat.getVersion());
    if (cacheable(c)) {
      records.put(znode, c, c.version(), ticket);
    }
    return c;
  }

  /**
   * The records of many entry znodes (null where there is none), the misses read all at once.
   *
   * @param paths the file system path of each, for errors
   */
  List<Cached> readAll(List<String> znodes, List<String> paths, String dirPath)
      throws NamespaceException {
    Cached[] out = new Cached[znodes.size()];
    List<Integer> missing = new ArrayList<>();
    List<CompletableFuture<CuratorEvent>> replies = new ArrayList<>();
    long ticket = enabled ? records.ticket() : 0;
    for (int i = 0; i < out.length; i++) {
      Cached c = enabled ? records.get(znodes.get(i)) : null;
      if (c != null) {
        hits.increment();
        out[i] = c;
      } else {
        missing.add(i);
        replies.add(getDataAsync(znodes.get(i)));
      }
    }
    reads.add(missing.size());
    List<CuratorEvent> data = Zk.joinAll(replies, dirPath);
    for (int j = 0; j < missing.size(); j++) {
      CuratorEvent r = data.get(j);
      int i = missing.get(j);
      if (r.getResultCode() == KeeperException.Code.NONODE.intValue()) {
        continue; // deleted since its name was read
      }
      if (r.getResultCode() != 0) {
        throw new NamespaceException(NamespaceStatus.UNAVAILABLE, paths.get(i), "reading "
            + znodes.get(i) + ": ZooKeeper " + KeeperException.Code.get(r.getResultCode()));
      }
      Cached c = new Cached(InodeCodec.decode(r.getData(), paths.get(i)),
          r.getStat().getVersion());
      out[i] = c;
      if (cacheable(c)) {
        records.put(znodes.get(i), c, c.version(), ticket);
      }
    }
    return Arrays.asList(out);
  }

  /**
   * Files open for writing are not kept: a reader following a file another client is writing
   * sees each of the writer's commits (hflush, complete) at once, as with uncached reads.
   */
  private boolean cacheable(Cached c) {
    return enabled && c.inode().lease() == null;
  }

  private CompletableFuture<CuratorEvent> getDataAsync(String znode) {
    CompletableFuture<CuratorEvent> f = new CompletableFuture<>();
    try {
      if (enabled) {
        client.getData().usingWatcher(watcher).inBackground((c, e) -> f.complete(e))
            .forPath(znode);
      } else {
        client.getData().inBackground((c, e) -> f.complete(e)).forPath(znode);
      }
    } catch (Exception e) {
      f.completeExceptionally(e);
    }
    return f;
  }

  private void onEvent(WatchedEvent e) {
    String p = e.getPath();
    switch (e.getType()) {
      case None -> {
        if (e.getState() != Watcher.Event.KeeperState.SyncConnected) {
          clear(); // disconnected or expired: watches may be lost
        }
      }
      case NodeDataChanged -> records.invalidate(p);
      case NodeChildrenChanged -> {
        buckets.invalidate(p);
        containers.invalidate(p);
      }
      case NodeDeleted -> {
        records.invalidate(p);
        buckets.invalidate(p);
        containers.invalidate(p);
      }
      default -> {
        // NodeCreated (no exists-watches are set), watch removals: nothing cached to drop
      }
    }
  }

  private void onConnectionState(CuratorFramework c, ConnectionState state) {
    if (state != ConnectionState.CONNECTED) {
      clear(); // SUSPENDED, LOST, RECONNECTED (maybe a new session), READ_ONLY
    }
  }

  /** Stops listening to the connection; the cache is emptied. */
  @Override
  public void close() {
    if (enabled) {
      client.getConnectionStateListenable().removeListener(connection);
      clear();
    }
  }
}
