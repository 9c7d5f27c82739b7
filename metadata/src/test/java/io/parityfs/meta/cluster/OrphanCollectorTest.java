package io.parityfs.meta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.LiveFileScanner;
import io.parityfs.meta.LiveFiles;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.meta.registry.ZkPaths;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OrphanCollectorTest extends ClusterFixture {
  private static final List<String> STRIPE = List.of("t1", "t2");
  private static final Layout LAYOUT = new Layout(1 << 20, 2, STRIPE, "raid6:4+2");
  private static final long HOUR = 3_600_000;

  private Namespace ns;
  private DeleteQueue queue;
  private InMemoryChunkService chunks;
  private ManagerCounters counters;
  private final long now = System.currentTimeMillis();

  @BeforeEach
  void open() throws Exception {
    ns = newNamespace(config());
    queue = DeleteQueue.open(client, ns.config());
    chunks = new InMemoryChunkService("t1", "t2");
    counters = new ManagerCounters();
  }

  private OrphanCollector collector(ClusterManagerConfig config, Runnable afterBucket) {
    return new OrphanCollector(LiveFileScanner.open(client, ns.config()), queue, chunks, config,
        counters, () -> now, (buckets, entries) -> {
          afterBucket.run();
          return true;
        });
  }

  private long liveFile(String path, long millis) throws Exception {
    FileStatus f = ns.create(path, CreateOptions.file().withLayout(LAYOUT));
    chunks.putFile(f.id(), STRIPE, 4, millis);
    return f.id();
  }

  /** A file that was removed and whose queue record was drained: its chunks are orphans. */
  private long deadFile(String path, long millis) throws Exception {
    long id = liveFile(path, millis);
    ns.delete(path, false);
    queue.remove(id);
    return id;
  }

  @Test
  void deletesOnlyChunksOfNoFileNotQueuedAndOfAnIdHandedOutSeenSoInTwoRoundsAGraceApart()
      throws Exception {
    long old = now - 2 * HOUR;
    List<Long> live = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      live.add(liveFile("/d" + (i % 2) + "/f" + i, old));
    }
    ns.create("/empty/dir/f", CreateOptions.file()); // no chunks
    long dead = deadFile("/x", old);
    long deadYoung = deadFile("/y", now + 3 * HOUR); // a node clock ahead: no matter
    long queued = liveFile("/q", old);
    ns.delete("/q", false); // queued, not drained yet: left to the queue
    long unallocated = 1L << 39;
    chunks.putFile(unallocated, STRIPE, 2, old);
    long inDetached = liveFile("/gone/sub/f", old);
    // a detached directory not yet purged: its files count as live until the purge queues them
    detachWithoutPurge(ns, "gone");
    long[] clock = {now};
    OrphanCollector collector = new OrphanCollector(LiveFileScanner.open(client, ns.config()),
        queue, chunks, ClusterManagerConfig.DEFAULT, counters, () -> clock[0],
        (buckets, entries) -> true);

    collector.runOnce(() -> true);
    assertEquals(0, counters.orphansDeleted.get(), "nothing is deleted on a first sighting");
    long late = deadFile("/z", old); // its chunks are first seen in the second round
    clock[0] += HOUR - 1;
    collector.runOnce(() -> true);
    assertEquals(0, counters.orphansDeleted.get(), "less than the grace since the sighting");
    clock[0] += 1;
    collector.runOnce(() -> true);

    for (long id : live) {
      assertEquals(4, chunks.count(id), "live file " + id);
    }
    assertEquals(0, chunks.count(dead));
    assertEquals(0, chunks.count(deadYoung), "the node's clock plays no part");
    assertEquals(4, chunks.count(late), "first seen less than the grace ago");
    assertEquals(4, chunks.count(queued), "in the deferred-delete queue");
    assertEquals(2, chunks.count(unallocated), "an id never handed out");
    assertEquals(4, chunks.count(inDetached));
    assertEquals(8, counters.orphansFound.get());
    assertEquals(8, counters.orphansDeleted.get());
    assertEquals(3, counters.orphanScans.get());
    clock[0] += HOUR;
    collector.runOnce(() -> true);
    assertEquals(0, chunks.count(late));
  }

  @Test
  void afterARollbackOfTheNamespaceChunksOfIdsItNoLongerKnowsAreKeptAndNeverReused()
      throws Exception {
    long old = now - 2 * HOUR;
    long kept = liveFile("/kept", old);
    // a file created after the backup the namespace is about to be restored from
    long lost = liveFile("/lost", old);
    String root = ns.config().root();
    // the restore: /lost's entry is gone, and so is every id handed out after the backup
    ns.close();
    ns = null;
    client.delete().forPath(entryOf(root, "lost"));
    client.setData().forPath(root + "/ids",
        Long.toString(lost).getBytes(StandardCharsets.US_ASCII));
    // the targets holding /lost's chunks say so in their records
    client.create().creatingParentsIfNeeded().forPath(ZkPaths.target("t1"),
        RegistryCodec.encode(new TargetRecord(1, "t1", "n1", "t", null, "raid6:4+2", 65536,
            64L << 20, 6, 0, 1, "OPTIMAL", 1L << 40, 2, lost)));
    try {
      ns = newNamespace(configOf(root));
      long fresh = ns.create("/new", CreateOptions.file().withLayout(LAYOUT)).id();
      assertTrue(fresh > lost, "the new file's id " + fresh + " is not the lost file's " + lost);
      long[] clock = {now};
      OrphanCollector collector = new OrphanCollector(LiveFileScanner.open(client, ns.config()),
          queue, chunks, ClusterManagerConfig.DEFAULT, counters, () -> clock[0],
          (buckets, entries) -> true);
      collector.runOnce(() -> true);
      clock[0] += 2 * HOUR;
      collector.runOnce(() -> true);
      assertEquals(4, chunks.count(kept));
      assertEquals(4, chunks.count(lost), "never handed out by the restored namespace: kept");
      assertEquals(0, chunks.count(fresh));
      assertEquals(0, counters.orphansDeleted.get());
    } finally {
      client.delete().deletingChildrenIfNeeded().forPath(ZkPaths.TARGETS);
      ns.close();
    }
  }

  private NamespaceConfig configOf(String root) {
    return config().toBuilder().root(root).build();
  }

  /** The znode of the root directory's entry {@code name}. */
  private static String entryOf(String root, String name) throws Exception {
    String container = root + "/dirs/01/0000000001";
    for (String b : client.getChildren().forPath(container)) {
      if (client.getChildren().forPath(container + "/" + b).contains(name)) {
        return container + "/" + b + "/" + name;
      }
    }
    throw new AssertionError(name + " not found");
  }

  @Test
  void anUnreachableTargetKeepsItsSightings() throws Exception {
    long dead = deadFile("/x", now);
    long[] clock = {now};
    ClusterManagerConfig config = ClusterManagerConfig.builder().orphanGrace(Duration.ZERO)
        .build();
    OrphanCollector collector = new OrphanCollector(LiveFileScanner.open(client, ns.config()),
        queue, chunks, config, counters, () -> clock[0], (buckets, entries) -> true);
    chunks.setUnreachable("t2", true);
    collector.runOnce(() -> true); // sighted on t1 only
    chunks.setUnreachable("t2", false);
    collector.runOnce(() -> true); // t1's deleted; first sighting on t2... of a known suspect
    assertEquals(0, chunks.count(dead), "a suspect file is one id, whichever target");
    FileStatus f = ns.create("/y", CreateOptions.file().withLayout(LAYOUT));
    chunks.putFile(f.id(), List.of("t2"), 2, now); // on t2 only
    ns.delete("/y", false);
    queue.remove(f.id());
    long other = f.id();
    collector.runOnce(() -> true); // sighted on t2
    chunks.setUnreachable("t2", true);
    collector.runOnce(() -> true); // t2 not listed: its sightings are kept
    assertEquals(2, chunks.count(other));
    chunks.setUnreachable("t2", false);
    collector.runOnce(() -> true);
    assertEquals(0, chunks.count(other));
  }

  @Test
  void aFileCreatedBetweenTheScanAndTheListingKeepsItsChunksWhateverTheNodeClockSays()
      throws Exception {
    // D11: the node's clock is 2 h behind the manager's, so a chunk written a moment ago
    // carries a modified time older than any grace period. The file is created after the
    // live-file scan and before the targets are listed: the scan cannot know it.
    long nodeClock = now - 2 * HOUR;
    long dead = deadFile("/x", nodeClock);
    long[] created = {-1};
    ChunkService listingAfterACreate = new ChunkService() {
      @Override
      public List<String> targets() {
        return chunks.targets();
      }

      @Override
      public ChunkPage list(String target, long fileId, long cursor, int limit)
          throws java.io.IOException {
        if (created[0] < 0) {
          try {
            created[0] = liveFile("/new", nodeClock);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
        return chunks.list(target, fileId, cursor, limit);
      }

      @Override
      public boolean delete(String target, long fileId, int index) throws java.io.IOException {
        return chunks.delete(target, fileId, index);
      }
    };
    long[] managerClock = {now};
    OrphanCollector collector = new OrphanCollector(LiveFileScanner.open(client, ns.config()),
        queue, listingAfterACreate, ClusterManagerConfig.DEFAULT, counters,
        () -> managerClock[0], (buckets, entries) -> true);

    collector.runOnce(() -> true);
    assertTrue(created[0] > 0 && created[0] < dead + 100, "an id of the same block");
    assertEquals(4, chunks.count(created[0]), "created after the scan: kept");
    assertEquals(4, chunks.count(dead), "seen orphaned once: not yet collected");

    managerClock[0] += HOUR; // the grace, by the manager's own clock
    collector.runOnce(() -> true);
    assertEquals(4, chunks.count(created[0]), "live at the second scan");
    assertEquals(0, chunks.count(dead), "orphaned in both rounds, a grace apart");
  }

  @Test
  void filesSwappedBetweenADirectoryReadAndOneNotYetReadAreStillFound() throws Exception {
    // one bucket per directory, one request at a time: the scan reads /a's bucket and /b's
    // bucket at different moments. Right after it has read the first of them, every file of
    // /a moves to /b and every file of /b to /a, so the second holds only files already seen:
    // a scan that trusted its first pass would miss half the files (checked by hand with a
    // single-pass scanner) and delete their chunks.
    ns = newNamespace(config().toBuilder().bucketsPerDirectory(1).build());
    queue = DeleteQueue.open(client, ns.config());
    long old = now - 2 * HOUR;
    int perDir = 5;
    List<Long> live = new ArrayList<>();
    for (String d : List.of("a", "b")) {
      for (int i = 0; i < perDir; i++) {
        live.add(liveFile("/" + d + "/" + d + i, old));
      }
    }
    long dead = deadFile("/x", old);
    AtomicReference<Exception> failed = new AtomicReference<>();
    AtomicInteger swaps = new AtomicInteger();
    long[] lastEntries = {0};
    LiveFileScanner.Progress swapAfterTheFirstDirectory = (buckets, entries) -> {
      boolean aDirectoryBucket = entries - lastEntries[0] == perDir; // the root's has 3
      lastEntries[0] = entries;
      if (aDirectoryBucket && swaps.get() == 0) {
        swaps.incrementAndGet();
        try {
          for (String name : names("/b")) {
            ns.rename("/b/" + name, "/a/" + name);
          }
          for (String name : names("/a")) {
            if (name.startsWith("a")) {
              ns.rename("/a/" + name, "/b/" + name);
            }
          }
        } catch (NamespaceException e) {
          failed.set(e);
        }
      }
      return true;
    };
    Optional<LiveFiles> scanned = LiveFileScanner.open(client, ns.config())
        .scan(10, 1, swapAfterTheFirstDirectory);
    assertEquals(null, failed.get());
    assertEquals(1, swaps.get());
    assertTrue(scanned.isPresent());
    assertTrue(scanned.get().passes() >= 2, "passes " + scanned.get().passes());
    for (long id : live) {
      assertTrue(scanned.get().contains(id), "live file " + id);
    }

    // the same through the collector, swapping back
    swaps.set(0);
    lastEntries[0] = 0;
    LiveFileScanner.Progress swapBack = (buckets, entries) -> {
      boolean aDirectoryBucket = entries - lastEntries[0] == perDir;
      lastEntries[0] = entries;
      if (aDirectoryBucket && swaps.get() == 0) {
        swaps.incrementAndGet();
        try {
          for (String name : names("/a")) {
            ns.rename("/a/" + name, "/b/" + name);
          }
          for (String name : names("/b")) {
            if (name.startsWith("a")) {
              ns.rename("/b/" + name, "/a/" + name);
            }
          }
        } catch (NamespaceException e) {
          failed.set(e);
        }
      }
      return true;
    };
    ClusterManagerConfig config = ClusterManagerConfig.builder().orphanGrace(Duration.ZERO)
        .scanInFlight(1).build();
    OrphanCollector collector = new OrphanCollector(LiveFileScanner.open(client, ns.config()),
        queue, chunks, config, counters, () -> now, swapBack);
    collector.runOnce(() -> true); // swaps during the scan; the first sighting of /x
    assertEquals(4, chunks.count(dead));
    collector.runOnce(() -> true); // the second
    assertEquals(null, failed.get());
    assertEquals(1, swaps.get());
    for (long id : live) {
      assertEquals(4, chunks.count(id), "live file " + id);
    }
    assertEquals(0, chunks.count(dead));
  }

  private List<String> names(String dir) throws NamespaceException {
    List<String> out = new ArrayList<>();
    for (var f : ns.listAll(dir)) {
      out.add(f.path().substring(f.path().lastIndexOf('/') + 1));
    }
    return out;
  }

  @Test
  void renamesOnAnotherThreadDuringCollectionNeverLoseALiveFile() throws Exception {
    long old = now - 2 * HOUR;
    List<Long> live = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      live.add(liveFile("/p" + (i % 4) + "/f" + i, old));
    }
    ns.mkdirs("/q");
    long dead = deadFile("/x", old);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger renames = new AtomicInteger();
    AtomicReference<Exception> failed = new AtomicReference<>();
    Thread mover = new Thread(() -> {
      int k = 0;
      while (!stop.get()) {
        int i = k++ % 16;
        String home = "/p" + (i % 4) + "/f" + i;
        try {
          ns.rename(home, "/q/f" + i);
          ns.rename("/q/f" + i, home);
          renames.addAndGet(2);
          Thread.sleep(20); // a pause now and then lets a verification pass see no change
        } catch (NamespaceException e) {
          failed.set(e);
          return;
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    mover.start();
    ClusterManagerConfig config = ClusterManagerConfig.builder().orphanGrace(Duration.ZERO)
        .scanMaxPasses(20).build();
    OrphanCollector collector = collector(config, () -> {});
    try {
      for (int round = 0; round < 50 && (counters.orphanScans.get() < 2 || renames.get() < 20);
          round++) {
        collector.runOnce(() -> true);
        for (long id : live) {
          assertEquals(4, chunks.count(id), "live file " + id + " in round " + round);
        }
      }
    } finally {
      stop.set(true);
      mover.join();
    }
    assertEquals(null, failed.get());
    assertTrue(renames.get() > 10, "renames: " + renames.get());
    assertTrue(counters.orphanScans.get() >= 1, "no scan converged");
    assertEquals(0, chunks.count(dead));
  }

  @Test
  void aNamespaceThatNeverStopsChangingSkipsTheRound() throws Exception {
    long old = now - 2 * HOUR;
    liveFile("/a/f", old);
    long dead = deadFile("/x", old);
    AtomicInteger n = new AtomicInteger();
    Runnable churn = () -> {
      try {
        ns.create("/a/churn" + n.incrementAndGet(), CreateOptions.file());
      } catch (NamespaceException e) {
        throw new IllegalStateException(e);
      }
    };
    collector(ClusterManagerConfig.builder().orphanGrace(Duration.ZERO).scanInFlight(1)
        .scanMaxPasses(3).build(), churn).runOnce(() -> true);
    assertEquals(0, counters.orphanScans.get());
    assertEquals(4, chunks.count(dead), "nothing deleted in a skipped round");
  }
}
