package io.parityfs.meta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Election and failover: two candidates on two ZooKeeper sessions, one acts at a time. */
class ClusterManagerTest extends ClusterFixture {
  private static final List<String> STRIPE = List.of("t1", "t2", "t3");
  private static final Layout LAYOUT = new Layout(1 << 20, 3, STRIPE, "raid6:4+2");
  private static final AtomicInteger LATCHES = new AtomicInteger();

  /** One candidate's view of the shared chunks, whose deletes can be held at a gate. */
  private static final class GatedChunkService implements ChunkService {
    final InMemoryChunkService store;
    final AtomicInteger deletes = new AtomicInteger();
    volatile int passBeforeGate = Integer.MAX_VALUE;
    final CountDownLatch gate = new CountDownLatch(1);
    final CountDownLatch waiting = new CountDownLatch(1);
    /** The thread that reached the gate first. */
    volatile Thread held;

    GatedChunkService(InMemoryChunkService store) {
      this.store = store;
    }

    @Override
    public List<String> targets() {
      return store.targets();
    }

    @Override
    public ChunkPage list(String targetId, long fileId, long cursor, int limit)
        throws IOException {
      return store.list(targetId, fileId, cursor, limit);
    }

    @Override
    public boolean delete(String targetId, long fileId, int index) throws IOException {
      if (deletes.incrementAndGet() > passBeforeGate) {
        if (held == null) {
          held = Thread.currentThread();
        }
        waiting.countDown();
        try {
          gate.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted");
        }
      }
      return store.delete(targetId, fileId, index);
    }
  }

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private NamespaceConfig nsConfig;
  private ClusterManagerConfig config;
  private InMemoryChunkService store;
  private Namespace ns;
  private DeleteQueue queue;

  @BeforeEach
  void setUp() throws Exception {
    nsConfig = config();
    ns = newNamespace(nsConfig);
    queue = DeleteQueue.open(client, nsConfig);
    store = new InMemoryChunkService("t1", "t2", "t3");
    config = ClusterManagerConfig.builder()
        .latchPath("/parityfs/manager" + LATCHES.incrementAndGet() + "/latch")
        .deleteInterval(Duration.ofMillis(50)).trashInterval(Duration.ofMillis(50))
        .orphanInterval(Duration.ofHours(1)).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private CuratorFramework session() throws Exception {
    CuratorFramework c = newClient(5_000);
    toClose.add(c::close);
    return c;
  }

  private ClusterManager candidate(String id, CuratorFramework c, ChunkService chunks)
      throws Exception {
    ClusterManager m = new ClusterManager(c, Namespace.open(c, nsConfig), chunks, config, id);
    toClose.add(m::close);
    m.start();
    return m;
  }

  /**
   * The election's candidates in their order, the leader marked with {@code *} (read from the
   * latch's znodes).
   */
  private List<String> participants() throws Exception {
    List<String> ids = new ArrayList<>();
    for (Participant p : new LeaderLatch(client, config.latchPath()).getParticipants()) {
      ids.add(p.getId() + (p.isLeader() ? "*" : ""));
    }
    return ids;
  }

  /** Whether {@code t} is running a deferred-delete round. */
  private static boolean inRound(Thread t) {
    return Arrays.stream(t.getStackTrace()).anyMatch(
        f -> f.getClassName().equals(DeferredDeleteTask.class.getName()));
  }

  /** Files with 6 chunks each, removed: queued for deferred delete. */
  private List<Long> removedFiles(String dir, int n) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      FileStatus f = ns.create(dir + "/f" + i, CreateOptions.file().withLayout(LAYOUT));
      store.putFile(f.id(), STRIPE, 6, System.currentTimeMillis());
      ids.add(f.id());
    }
    ns.delete(dir, true);
    return ids;
  }

  private void assertGone(List<Long> ids) {
    for (long id : ids) {
      assertEquals(0, store.count(id), "chunks of " + id);
    }
  }

  @Test
  void aQueueLongerThanABatchDrainsWithoutWaitingForTheNextPeriod() throws Exception {
    config = config.toBuilder().deleteInterval(Duration.ofHours(1)).deleteBatch(10).build();
    List<Long> ids = removedFiles("/many", 35);
    ClusterManager m = candidate("node-1", session(), store);
    // the first round is at once; the next period is an hour away: only back-to-back rounds
    // drain 35 records at 10 a round within the wait
    await("the queue drained", 30_000, () -> m.status().filesDrained() == 35);
    assertGone(ids);
    assertEquals(0, queue.size());
  }

  @Test
  void theLeaderClosesFilesWhoseWriterDied() throws Exception {
    config = config.toBuilder().leaseInterval(Duration.ofMillis(50)).build();
    CuratorFramework writerSession = session();
    Namespace writer = Namespace.open(writerSession, nsConfig);
    FileStatus f = writer.create("/ckpt", CreateOptions.file().withLayout(LAYOUT));
    writer.setLength("/ckpt", f.id(), -1, 1000); // an hflush, then more chunks written
    store.put("t1", f.id(), 0, 1 << 20, System.currentTimeMillis());
    store.put("t2", f.id(), 1, 1 << 20, System.currentTimeMillis());
    store.put("t3", f.id(), 2, 12345, System.currentTimeMillis());
    FileStatus live = ns.create("/live", CreateOptions.file().withLayout(LAYOUT));
    ClusterManager m = candidate("m1", session(), store);
    writerSession.close(); // the writer dies
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ns.getStatus("/ckpt").isOpenForWrite() && System.nanoTime() < end) {
      Thread.sleep(20);
    }
    FileStatus closed = ns.getStatus("/ckpt");
    assertFalse(closed.isOpenForWrite());
    assertEquals(2L * (1 << 20) + 12345, closed.length(), "the end of its last stored chunk");
    await("the recovery counted", 20_000, () -> m.status().leasesRecovered() == 1);
    assertTrue(ns.getStatus("/live").isOpenForWrite(), "a live writer keeps its lease");
    assertEquals(live.id(), ns.getStatus("/live").id());
  }

  @Test
  void lifecycleAndStatus() throws Exception {
    GatedChunkService chunks = new GatedChunkService(store);
    ClusterManager m = new ClusterManager(client, ns, chunks, config, "solo");
    assertFalse(m.isLeader());
    m.start();
    assertThrows(IllegalStateException.class, m::start);
    await("leadership", 10_000, m::isLeader);
    List<Long> ids = removedFiles("/d", 3);
    await("the queue drained", 10_000, () -> m.status().filesDrained() == 3);
    assertGone(ids);
    ClusterManagerStatus s = m.status();
    assertTrue(s.leader());
    assertEquals(18, s.chunksDeleted());
    m.close();
    assertFalse(m.isLeader());
    m.close();
    assertThrows(IllegalStateException.class, m::start);
    assertEquals(0, queue.size());
  }

  @Test
  void onlyTheLeaderActsAndTheOtherFinishesTheQueueWhenTheLeaderDies() throws Exception {
    CuratorFramework c1 = session();
    GatedChunkService s1 = new GatedChunkService(store);
    s1.passBeforeGate = 4;
    ClusterManager m1 = candidate("node-1", c1, s1);
    await("node-1 leads", 10_000, m1::isLeader);
    GatedChunkService s2 = new GatedChunkService(store);
    ClusterManager m2 = candidate("node-2", session(), s2);
    FileStatus live = ns.create("/live", CreateOptions.file().withLayout(LAYOUT));
    store.putFile(live.id(), STRIPE, 6, System.currentTimeMillis());

    List<Long> ids = removedFiles("/d", 3);
    assertTrue(s1.waiting.await(10, TimeUnit.SECONDS), "node-1 started draining");
    // node-2 has joined the election (its latch znode is there) and lost it to node-1
    Eventually.passes("node-2 a candidate behind node-1", Duration.ofSeconds(10),
        () -> assertEquals(List.of("node-1*", "node-2"), participants()));
    assertFalse(m2.isLeader());
    assertEquals(0, s2.deletes.get(), "a follower never acts");
    assertEquals(3, queue.size());

    c1.close(); // node-1 dies (its session ends; it is stuck in a delete)
    await("node-2 takes over", 10_000, m2::isLeader);
    await("node-2 drains the queue", 10_000, () -> m2.status().filesDrained() >= 3);
    assertEquals(0, queue.size());
    assertGone(ids);
    assertEquals(6, store.count(live.id()));
    s1.gate.countDown(); // the deposed leader's last delete lands: harmless
    m1.close();
    assertEquals(6, store.count(live.id()));
  }

  @Test
  void aLeaderWhoseSessionExpiresStopsActingAndTheOtherTakesOver() throws Exception {
    CuratorFramework c1 = session();
    // one record at a time: the count of node-1's deletes below is then exact (in parallel,
    // the deletes of other records already under way at the gate would land too)
    config = config.toBuilder().deleteParallelism(1).build();
    GatedChunkService s1 = new GatedChunkService(store);
    s1.passBeforeGate = 2;
    ClusterManager m1 = candidate("node-1", c1, s1);
    await("node-1 leads", 10_000, m1::isLeader);
    GatedChunkService s2 = new GatedChunkService(store);
    ClusterManager m2 = candidate("node-2", session(), s2);

    List<Long> ids = removedFiles("/d", 2);
    assertTrue(s1.waiting.await(10, TimeUnit.SECONDS));
    KillSession.kill(c1.getZookeeperClient().getZooKeeper());
    await("node-1 stops acting", 10_000, () -> !m1.isLeader());
    await("node-2 takes over", 10_000, m2::isLeader);
    s1.gate.countDown(); // node-1's round sees it no longer acts and stops
    // observed: the round held at the gate has returned (its thread is out of the task), so
    // every delete it was going to make is counted below
    await("node-1's held round ended", 10_000, () -> !inRound(s1.held));
    await("node-2 drains the queue", 10_000, () -> m2.status().filesDrained() >= 2);
    assertEquals(0, queue.size());
    assertGone(ids);
    // node-1's new session is back in the election, behind node-2: it has seen RECONNECTED
    // (its latch rejoins on that event, after the manager's own listener has run)
    Eventually.passes("node-1 a candidate again, behind node-2", Duration.ofSeconds(10),
        () -> assertEquals(List.of("node-2*", "node-1"), participants()));
    assertFalse(m1.isLeader(), "node-1 came back as a follower");
    assertEquals(2 + 1, s1.deletes.get(), "node-1 did no more after it lost the session");
  }

  @Test
  void theLeaderFinishesAnInterruptedRecursiveDeleteAndDeletesItsFilesChunks()
      throws Exception {
    List<Long> ids = new ArrayList<>();
    for (String p : List.of("/t/a/f", "/t/b/g", "/t/h")) {
      FileStatus f = ns.create(p, CreateOptions.file().withLayout(LAYOUT));
      store.putFile(f.id(), STRIPE, 4, System.currentTimeMillis());
      ids.add(f.id());
    }
    detachWithoutPurge(ns, "t"); // a crash right after the detach
    ClusterManager m = candidate("solo", client, new GatedChunkService(store));
    await("the purge and the drain", 10_000,
        () -> m.status().filesDrained() == 3 && m.status().trashPurged() == 1);
    assertGone(ids);
    assertEquals(0, queue.size());
  }
}
