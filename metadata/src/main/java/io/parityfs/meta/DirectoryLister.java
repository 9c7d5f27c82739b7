package io.parityfs.meta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Serves one sorted page of a directory: the directory's buckets, each bucket's names sorted
 * (from a cache, see below), the {@code limit} smallest names after the cursor merged across the
 * buckets, then the records of those entries (from the {@link EntryCache}, the misses read with
 * one {@code getData} each, all in flight at once).
 *
 * <p><b>Names, with the entry cache on</b> (the default): the container's bucket list and each
 * bucket's sorted names are read once with a child watch and kept in the {@link EntryCache} until
 * the watch fires or this client writes into the bucket, so paging through a directory that
 * nobody changes costs no request after its first listing, and none at all once the records are
 * cached too. Same staleness bound as the entry cache: other clients' creates and deletes appear
 * when their watch event arrives; this client's own at once.
 *
 * <p><b>Names, with the entry cache off</b>: each bucket's names are kept sorted in memory with
 * the bucket's child version ({@code cversion}, which ZooKeeper bumps on every child created or
 * deleted); a page asks each bucket only for its stat (a few bytes, all in flight at once) and
 * reads the names again ({@code getChildren}) only of the buckets whose {@code cversion} moved.
 *
 * <p>Either way a page costs O(buckets × log entries) to merge. Names read from a cache can be
 * of entries deleted since: their record read then finds no node and they are skipped. Bounded
 * to {@value EntryCache#CACHED_BUCKETS} buckets (least recently used dropped). Each {@code
 * getChildren} reply stays far below {@code jute.maxbuffer} as long as a bucket holds under
 * ~1 MiB of encoded names (64 buckets: millions of typical names).
 */
final class DirectoryLister {
  private record Candidate(String name, String znode) {}

  private static final Comparator<Candidate> BY_NAME =
      (a, b) -> Names.compareUtf8(a.name, b.name);

  private final Zk zk;
  private final ZNodes zn;
  private final EntryCache entries;
  private final Map<String, EntryCache.Sorted> cache =
      Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, EntryCache.Sorted> eldest) {
          return size() > EntryCache.CACHED_BUCKETS;
        }
      });
  private final AtomicLong bucketReads = new AtomicLong();

  DirectoryLister(Zk zk, ZNodes zn, EntryCache entries) {
    this.zk = zk;
    this.zn = zn;
    this.entries = entries;
  }

  /** Bucket name lists read from ZooKeeper so far (for tests: the cache's misses). */
  long bucketReads() {
    return bucketReads.get();
  }

  DirectoryPage page(Entry dir, String after, int limit) throws NamespaceException {
    String container = zn.container(dir.inode().id());
    List<String> paths = new ArrayList<>();
    EntryCache.Sorted[] sorted = entries.enabled() ? watchedNames(dir, container, paths)
        : versionedNames(dir, container, paths);
    List<Candidate> page = merge(sorted, after, limit + 1);
    boolean more = page.size() > limit;
    if (more) {
      page = page.subList(0, limit);
    }
    List<String> znodes = new ArrayList<>(page.size());
    List<String> files = new ArrayList<>(page.size());
    for (Candidate c : page) {
      znodes.add(c.znode);
      files.add(Names.child(dir.path(), c.name));
    }
    List<EntryCache.Cached> records = entries.readAll(znodes, files, dir.path());
    List<FileStatus> out = new ArrayList<>(page.size());
    for (int i = 0; i < page.size(); i++) {
      if (records.get(i) != null) { // null: deleted since its name was read
        out.add(records.get(i).inode().status(files.get(i)));
      }
    }
    String next = more ? page.get(page.size() - 1).name : null;
    return new DirectoryPage(out, next);
  }

  /**
   * Each bucket's sorted names from the cache, whose values are dropped by their watches ({@link
   * EntryCache}): a page of a directory nobody changes costs no request at all.
   */
  private EntryCache.Sorted[] watchedNames(Entry dir, String container, List<String> paths)
      throws NamespaceException {
    WatchedLru<List<String>> containers = entries.containers();
    List<String> buckets = containers.get(container);
    if (buckets == null) {
      long ticket = containers.ticket();
      Stat stat = new Stat();
      try {
        buckets = List.copyOf(zk.client().getChildren().storingStatIn(stat)
            .usingWatcher(entries.watcher()).forPath(container));
      } catch (KeeperException.NoNodeException e) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND, dir.path(),
            "directory deleted while listing");
      } catch (Exception e) {
        throw Zk.failure(dir.path(), "listing " + container, e);
      }
      containers.put(container, buckets, stat.getCversion(), ticket);
    }
    WatchedLru<EntryCache.Sorted> named = entries.buckets();
    EntryCache.Sorted[] sorted = new EntryCache.Sorted[buckets.size()];
    List<Integer> stale = new ArrayList<>();
    List<CompletableFuture<CuratorEvent>> names = new ArrayList<>();
    long ticket = named.ticket();
    for (int i = 0; i < buckets.size(); i++) {
      String bucket = container + "/" + buckets.get(i);
      paths.add(bucket);
      sorted[i] = named.get(bucket);
      if (sorted[i] == null) {
        stale.add(i);
        CompletableFuture<CuratorEvent> f = new CompletableFuture<>();
        try {
          zk.client().getChildren().usingWatcher(entries.watcher())
              .inBackground((c, event) -> f.complete(event)).forPath(bucket);
        } catch (Exception e) {
          f.completeExceptionally(e);
        }
        names.add(f);
      }
    }
    List<CuratorEvent> replies = Zk.joinAll(names, dir.path());
    for (int j = 0; j < stale.size(); j++) {
      CuratorEvent r = replies.get(j);
      if (r.getResultCode() == KeeperException.Code.NONODE.intValue()) {
        continue; // bucket removed since the container was listed
      }
      check(r, dir.path());
      bucketReads.incrementAndGet();
      int i = stale.get(j);
      sorted[i] = sort(r, paths.get(i));
      if (r.getStat() != null) {
        named.put(paths.get(i), sorted[i], sorted[i].cversion(), ticket);
      }
    }
    return sorted;
  }

  /**
   * Each bucket's sorted names, checked against the bucket's child version at every page (the
   * cache disabled: no watches).
   */
  private EntryCache.Sorted[] versionedNames(Entry dir, String container, List<String> paths)
      throws NamespaceException {
    List<String> buckets;
    try {
      buckets = zk.client().getChildren().forPath(container);
    } catch (KeeperException.NoNodeException e) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, dir.path(),
          "directory deleted while listing");
    } catch (Exception e) {
      throw Zk.failure(dir.path(), "listing " + container, e);
    }
    List<CompletableFuture<CuratorEvent>> stats = new ArrayList<>(buckets.size());
    for (String b : buckets) {
      String bucket = container + "/" + b;
      paths.add(bucket);
      stats.add(zk.existsAsync(bucket));
    }
    List<CuratorEvent> statReplies = Zk.joinAll(stats, dir.path());
    EntryCache.Sorted[] sorted = new EntryCache.Sorted[paths.size()];
    List<Integer> stale = new ArrayList<>();
    List<CompletableFuture<CuratorEvent>> names = new ArrayList<>();
    for (int i = 0; i < paths.size(); i++) {
      CuratorEvent r = statReplies.get(i);
      if (r.getResultCode() == KeeperException.Code.NONODE.intValue() || r.getStat() == null) {
        continue; // bucket removed since the container was listed
      }
      check(r, dir.path());
      EntryCache.Sorted c = cache.get(paths.get(i));
      if (c != null && c.cversion() == r.getStat().getCversion()) {
        sorted[i] = c;
      } else {
        stale.add(i);
        names.add(zk.getChildrenAsync(paths.get(i)));
      }
    }
    List<CuratorEvent> nameReplies = Zk.joinAll(names, dir.path());
    for (int j = 0; j < stale.size(); j++) {
      CuratorEvent r = nameReplies.get(j);
      if (r.getResultCode() == KeeperException.Code.NONODE.intValue()) {
        continue;
      }
      check(r, dir.path());
      bucketReads.incrementAndGet();
      int i = stale.get(j);
      sorted[i] = sort(r, paths.get(i));
      if (r.getStat() != null) {
        cache.put(paths.get(i), sorted[i]);
      }
    }
    return sorted;
  }

  /** A bucket's names from its {@code getChildren} reply, sorted. */
  private static EntryCache.Sorted sort(CuratorEvent r, String bucket) throws NamespaceException {
    List<String> children = r.getChildren();
    Candidate[] all = new Candidate[children.size()];
    for (int k = 0; k < all.length; k++) {
      all[k] = new Candidate(Names.decode(children.get(k)), children.get(k));
    }
    Arrays.sort(all, BY_NAME);
    String[] n = new String[all.length];
    String[] e = new String[all.length];
    for (int k = 0; k < all.length; k++) {
      n[k] = all[k].name;
      e[k] = bucket + "/" + all[k].znode;
    }
    // The stat that came with the names is exactly their version.
    return new EntryCache.Sorted(r.getStat() == null ? -1 : r.getStat().getCversion(), n, e);
  }

  /** The {@code count} smallest names after {@code after} across the sorted buckets. */
  private static List<Candidate> merge(EntryCache.Sorted[] sorted, String after,
      int count) {
    record Cursor(int bucket, int index) {}
    PriorityQueue<Cursor> heads = new PriorityQueue<>(Math.max(1, sorted.length),
        (x, y) -> Names.compareUtf8(sorted[x.bucket].names()[x.index],
            sorted[y.bucket].names()[y.index]));
    for (int i = 0; i < sorted.length; i++) {
      if (sorted[i] == null) {
        continue;
      }
      String[] n = sorted[i].names();
      int lo = 0;
      int hi = n.length;
      while (after != null && lo < hi) { // first name > after
        int mid = (lo + hi) >>> 1;
        if (Names.compareUtf8(n[mid], after) <= 0) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (lo < n.length) {
        heads.add(new Cursor(i, lo));
      }
    }
    List<Candidate> out = new ArrayList<>(count);
    while (out.size() < count && !heads.isEmpty()) {
      Cursor c = heads.poll();
      EntryCache.Sorted s = sorted[c.bucket];
      out.add(new Candidate(s.names()[c.index], s.znodes()[c.index]));
      if (c.index + 1 < s.names().length) {
        heads.add(new Cursor(c.bucket, c.index + 1));
      }
    }
    return out;
  }

  private static void check(CuratorEvent r, String path) throws NamespaceException {
    if (r.getResultCode() != 0) {
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path, "listing: ZooKeeper "
          + KeeperException.Code.get(r.getResultCode()));
    }
  }
}
