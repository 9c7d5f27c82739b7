package io.parityfs.meta;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

/**
 * Finds the exact set of file ids in the namespace at one moment, while the namespace keeps
 * changing: what orphan collection needs to know that a chunk belongs to no file.
 *
 * <p><b>Method.</b> Every directory's container hangs off a shard, {@code R/dirs/SS/IIIIIIIIII},
 * whatever its path; its entries are in its buckets. So the scan needs no walk from the root:
 * it lists the levels {@code R/dirs} → shards → containers → buckets → entries (reading
 * each entry's record for its id and type), keeping for every znode it listed the {@code pzxid}
 * returned with the listing (the zxid of the last creation or deletion of a child). Then it
 * verifies: one {@code exists} per listed znode; every znode whose {@code pzxid} changed (or
 * that is gone) is listed again, with anything new below it; and it verifies again, until a
 * whole pass finds no change (at most {@code maxPasses}; otherwise the scan gives up).
 *
 * <p><b>Why the result is exact.</b> Let S be the moment the last verification pass began
 * (reads of one session observe one growing prefix of ZooKeeper's total order, so "moment" is
 * a zxid). Every listing it verifies was made before S, and the check that found the same
 * {@code pzxid} was made after S: no child of that znode was created or deleted in between, so
 * at S every listed znode had exactly the children read. Entry znodes never change id (a rename
 * deletes the entry and creates another, which changes both buckets' {@code pzxid}). So the ids
 * read are exactly the ids of the entries that existed at S, in every container, including the
 * containers of detached directories still being purged (their files count as live until the
 * purge queues them: a conservative choice). A rename running during the scan cannot hide a
 * file: it moves the entry in one {@code multi}, so at S the file is in exactly one bucket,
 * and that bucket's final listing is what S sees.
 *
 * <p>Cost: a listing of every shard, container and bucket, one {@code getData} per entry, then
 * one {@code exists} per shard, container and bucket per pass; requests run {@code inFlight} at
 * a time. Memory: 8 bytes per file plus the tree of listed znodes.
 */
public final class LiveFileScanner {
  /** Progress of a scan, and how to cancel it. */
  @FunctionalInterface
  public interface Progress {
    /**
     * Called after each bucket's entries were read.
     *
     * @return false to cancel the scan
     */
    boolean bucketRead(long bucketsRead, long entriesRead);
  }

  private static final int BUCKET_LEVEL = 3;

  /** A listed znode: dirs (0), shard (1), container (2), bucket (3). */
  private static final class Node {
    final String path;
    final int level;
    long pzxid;
    Map<String, Node> children = Map.of();
    long[] fileIds = new long[0];

    Node(String path, int level) {
      this.path = path;
      this.level = level;
    }
  }

  private final Zk zk;
  private final ZNodes zn;
  private long bucketsRead;
  private long entriesRead;

  private LiveFileScanner(CuratorFramework client, ZNodes zn) {
    this.zk = new Zk(client);
    this.zn = zn;
  }

  /** A scanner of the namespace under {@code config.root()}; one scan at a time. */
  public static LiveFileScanner open(CuratorFramework client, NamespaceConfig config) {
    Objects.requireNonNull(client, "client");
    return new LiveFileScanner(client, new ZNodes(config.root()));
  }

  /**
   * Scans the namespace (see the class comment), after a ZooKeeper {@code sync}: every write
   * committed before the call is included.
   *
   * @param maxPasses verification passes before giving up, at least 1
   * @param inFlight ZooKeeper requests issued at once, at least 1
   * @return the live files, or empty when the namespace kept changing for {@code maxPasses}
   *     passes or the progress callback cancelled
   */
  public Optional<LiveFiles> scan(int maxPasses, int inFlight, Progress progress)
      throws NamespaceException {
    if (maxPasses < 1 || inFlight < 1) {
      throw new IllegalArgumentException("maxPasses (" + maxPasses + ") and inFlight ("
          + inFlight + ") must be >= 1");
    }
    Objects.requireNonNull(progress, "progress");
    try {
      zk.client().sync().forPath(zn.root); // see every write committed before the scan
    } catch (Exception e) {
      throw Zk.failure(zn.root, "sync", e);
    }
    bucketsRead = 0;
    entriesRead = 0;
    Node top = new Node(zn.dirs, 0);
    if (!list(List.of(top), inFlight, progress)) {
      return Optional.empty();
    }
    for (int pass = 1; pass <= maxPasses; pass++) {
      List<Node> all = new ArrayList<>();
      collect(top, all);
      List<Node> changed = new ArrayList<>();
      for (int from = 0; from < all.size(); from += inFlight) {
        List<Node> batch = all.subList(from, Math.min(all.size(), from + inFlight));
        List<CompletableFuture<CuratorEvent>> stats = new ArrayList<>(batch.size());
        for (Node n : batch) {
          stats.add(zk.existsAsync(n.path));
        }
        List<CuratorEvent> got = Zk.joinAll(stats, zn.dirs);
        for (int i = 0; i < batch.size(); i++) {
          CuratorEvent e = got.get(i);
          if (e.getStat() == null || e.getStat().getPzxid() != batch.get(i).pzxid) {
            changed.add(batch.get(i));
          }
        }
      }
      if (changed.isEmpty()) {
        long limit = readIdLimit();
        return Optional.of(new LiveFiles(ids(all), limit, readSkips(), pass));
      }
      if (!list(changed, inFlight, progress)) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  private static void collect(Node n, List<Node> out) {
    out.add(n);
    for (Node c : n.children.values()) {
      collect(c, out);
    }
  }

  private static long[] ids(List<Node> all) {
    Set<Long> seen = new HashSet<>();
    for (Node n : all) {
      for (long id : n.fileIds) {
        seen.add(id);
      }
    }
    long[] out = new long[seen.size()];
    int i = 0;
    for (long id : seen) {
      out[i++] = id;
    }
    Arrays.sort(out);
    return out;
  }

  /**
   * Lists the nodes (recording each one's pzxid with its children) and everything new below
   * them, level by level, {@code inFlight} requests at a time. A node found gone keeps an
   * impossible pzxid; its parent's changed pzxid gets it dropped at the next pass.
   *
   * @return false if cancelled
   */
  private boolean list(List<Node> nodes, int inFlight, Progress progress)
      throws NamespaceException {
    List<Node> frontier = nodes;
    while (!frontier.isEmpty()) {
      List<Node> next = new ArrayList<>();
      for (int from = 0; from < frontier.size(); from += inFlight) {
        List<Node> batch = frontier.subList(from, Math.min(frontier.size(), from + inFlight));
        List<CompletableFuture<CuratorEvent>> lists = new ArrayList<>(batch.size());
        for (Node n : batch) {
          lists.add(zk.getChildrenAsync(n.path));
        }
        List<CuratorEvent> got = Zk.joinAll(lists, zn.dirs);
        for (int i = 0; i < batch.size(); i++) {
          Node n = batch.get(i);
          CuratorEvent e = got.get(i);
          if (e.getResultCode() != KeeperException.Code.OK.intValue() || e.getStat() == null) {
            n.pzxid = -1;
            n.children = Map.of();
            n.fileIds = new long[0];
            continue;
          }
          n.pzxid = e.getStat().getPzxid();
          if (n.level < BUCKET_LEVEL) {
            Map<String, Node> children = new HashMap<>();
            for (String name : e.getChildren()) {
              Node c = n.children.get(name);
              if (c == null) {
                c = new Node(n.path + "/" + name, n.level + 1);
                next.add(c);
              }
              children.put(name, c);
            }
            n.children = children;
          } else {
            n.fileIds = readFileIds(n.path, e.getChildren(), inFlight);
            entriesRead += e.getChildren().size();
            if (!progress.bucketRead(++bucketsRead, entriesRead)) {
              return false;
            }
          }
        }
      }
      frontier = next;
    }
    return true;
  }

  private long[] readFileIds(String bucket, List<String> names, int inFlight)
      throws NamespaceException {
    long[] ids = new long[names.size()];
    int n = 0;
    for (int from = 0; from < names.size(); from += inFlight) {
      List<String> batch = names.subList(from, Math.min(names.size(), from + inFlight));
      List<CompletableFuture<CuratorEvent>> reads = new ArrayList<>(batch.size());
      for (String name : batch) {
        reads.add(zk.getDataAsync(bucket + "/" + name));
      }
      for (CuratorEvent e : Zk.joinAll(reads, bucket)) {
        if (e.getResultCode() != KeeperException.Code.OK.intValue()) {
          continue; // deleted since the listing: the bucket's pzxid changed, it is listed again
        }
        Inode inode;
        try {
          inode = InodeCodec.decode(e.getData(), e.getPath());
        } catch (NamespaceException x) {
          throw new NamespaceException(NamespaceStatus.CORRUPT, e.getPath(),
              "undecodable entry: no file can be proven dead while it is there", x);
        }
        if (!inode.isDirectory()) {
          ids[n++] = inode.id();
        }
      }
    }
    return Arrays.copyOf(ids, n);
  }

  /** The skipped id ranges, read after the counter (a raise writes both in one multi). */
  private List<long[]> readSkips() throws NamespaceException {
    try {
      return IdSkips.decode(zk.client().getData().forPath(zn.idSkips), zn.idSkips);
    } catch (KeeperException.NoNodeException e) {
      return List.of(); // formatted before skips existed, not opened since
    } catch (NamespaceException e) {
      throw e;
    } catch (Exception e) {
      throw Zk.failure(zn.idSkips, "reading the skipped id ranges", e);
    }
  }

  private long readIdLimit() throws NamespaceException {
    try {
      byte[] data = zk.client().getData().forPath(zn.ids);
      return Long.parseLong(new String(data, StandardCharsets.US_ASCII).trim());
    } catch (NumberFormatException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, zn.ids, "id counter unreadable");
    } catch (Exception e) {
      throw Zk.failure(zn.ids, "reading the id counter", e);
    }
  }
}
