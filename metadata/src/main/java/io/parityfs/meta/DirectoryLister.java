package io.parityfs.meta;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

/**
 * Serves one sorted page of a directory: the names of every bucket (one {@code getChildren}
 * each, all in flight at once), the {@code limit} smallest names after the cursor (a bounded
 * heap), then the records of those entries (one {@code getData} each, all in flight at once).
 *
 * <p>A directory's names are spread over its buckets by hash, so every page reads every
 * bucket's names: a page costs O(entries in the directory) bytes of names, but only the page's
 * records. Each {@code getChildren} reply stays far below {@code jute.maxbuffer} as long as a
 * bucket holds under ~1 MiB of encoded names (64 buckets: millions of typical names).
 */
final class DirectoryLister {
  private record Candidate(String name, String znode) {}

  private static final Comparator<Candidate> BY_NAME =
      (a, b) -> Names.compareUtf8(a.name, b.name);

  private final Zk zk;
  private final ZNodes zn;

  DirectoryLister(Zk zk, ZNodes zn) {
    this.zk = zk;
    this.zn = zn;
  }

  DirectoryPage page(Entry dir, String after, int limit) throws NamespaceException {
    String container = zn.container(dir.inode().id());
    List<String> buckets;
    try {
      buckets = zk.client().getChildren().forPath(container);
    } catch (KeeperException.NoNodeException e) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, dir.path(),
          "directory deleted while listing");
    } catch (Exception e) {
      throw Zk.failure(dir.path(), "listing " + container, e);
    }
    List<CompletableFuture<CuratorEvent>> names = new ArrayList<>(buckets.size());
    for (String b : buckets) {
      names.add(zk.getChildrenAsync(container + "/" + b));
    }
    // max-heap of the `limit` smallest names after the cursor, plus one to know if more exist
    PriorityQueue<Candidate> heap = new PriorityQueue<>(limit + 1, BY_NAME.reversed());
    List<CuratorEvent> replies = Zk.joinAll(names, dir.path());
    for (int i = 0; i < replies.size(); i++) {
      CuratorEvent r = replies.get(i);
      if (r.getResultCode() == KeeperException.Code.NONODE.intValue()) {
        continue; // bucket removed since the container was listed
      }
      check(r, dir.path());
      String bucket = container + "/" + buckets.get(i);
      for (String encoded : r.getChildren()) {
        String name = Names.decode(encoded);
        if (after != null && Names.compareUtf8(name, after) <= 0) {
          continue;
        }
        if (heap.size() <= limit) {
          heap.add(new Candidate(name, bucket + "/" + encoded));
        } else if (Names.compareUtf8(name, heap.peek().name) < 0) {
          heap.poll();
          heap.add(new Candidate(name, bucket + "/" + encoded));
        }
      }
    }
    boolean more = heap.size() > limit;
    if (more) {
      heap.poll();
    }
    List<Candidate> page = new ArrayList<>(heap);
    page.sort(BY_NAME);
    List<CompletableFuture<CuratorEvent>> reads = new ArrayList<>(page.size());
    for (Candidate c : page) {
      reads.add(zk.getDataAsync(c.znode));
    }
    List<CuratorEvent> data = Zk.joinAll(reads, dir.path());
    List<FileStatus> out = new ArrayList<>(page.size());
    for (int i = 0; i < page.size(); i++) {
      CuratorEvent r = data.get(i);
      if (r.getResultCode() == KeeperException.Code.NONODE.intValue()) {
        continue; // deleted since its name was read
      }
      String path = Names.child(dir.path(), page.get(i).name);
      check(r, path);
      out.add(InodeCodec.decode(r.getData(), path).status(path));
    }
    String next = more ? page.get(page.size() - 1).name : null;
    return new DirectoryPage(out, next);
  }

  private static void check(CuratorEvent r, String path) throws NamespaceException {
    if (r.getResultCode() != 0) {
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path, "listing: ZooKeeper "
          + KeeperException.Code.get(r.getResultCode()));
    }
  }
}
