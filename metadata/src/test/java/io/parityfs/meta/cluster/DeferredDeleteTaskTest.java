package io.parityfs.meta.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DeferredDeleteTaskTest extends ClusterFixture {
  private static final List<String> STRIPE = List.of("t1", "t2", "t3");
  private static final Layout LAYOUT = new Layout(1 << 20, 3, STRIPE, "raid6:4+2");

  private Namespace ns;
  private DeleteQueue queue;
  private InMemoryChunkService chunks;
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private ManagerCounters counters;

  @BeforeEach
  void open() throws Exception {
    ns = newNamespace(config());
    queue = DeleteQueue.open(client, ns.config());
    chunks = new InMemoryChunkService("t1", "t2", "t3", "t4");
    counters = new ManagerCounters();
  }

  private DeferredDeleteTask task() {
    return new DeferredDeleteTask(queue, chunks, ClusterManagerConfig.builder()
        .listPageSize(2).build(), counters, clock::get);
  }

  /** A file with {@code count} chunks (some beyond its committed length, as a writer leaves). */
  private FileStatus file(String path, int count) throws Exception {
    FileStatus f = ns.create(path, CreateOptions.file().withLayout(LAYOUT));
    ns.setLength(path, f.id(), 0, 1 << 20); // one chunk committed
    chunks.putFile(f.id(), STRIPE, count, 0);
    return f;
  }

  @Test
  void drainsDeletedOverwrittenAndRecursivelyDeletedFilesAndNothingElse() throws Exception {
    FileStatus live = file("/live", 7);
    FileStatus deleted = file("/a", 7);
    FileStatus overwritten = file("/b", 5);
    FileStatus inTree = file("/d/e/c", 4);
    ns.delete("/a", false);
    ns.create("/b", CreateOptions.file().withOverwrite(true));
    ns.delete("/d", true);
    assertEquals(3, queue.size());

    task().runOnce(() -> true);

    assertEquals(0, queue.size());
    for (FileStatus f : List.of(deleted, overwritten, inTree)) {
      assertEquals(0, chunks.count(f.id()), "chunks of " + f.id());
    }
    assertEquals(7, chunks.count(live.id()));
    assertEquals(16, counters.chunksDeleted.get());
    assertEquals(3, counters.filesDrained.get());
    assertEquals(0, counters.queueLength.get());
  }

  @Test
  void aCrashMidDrainIsResumedByTheNextManagerAndEverythingIsDeletedExactlyOnce()
      throws Exception {
    FileStatus live = file("/live", 6);
    long[] ids = new long[3];
    for (int i = 0; i < 3; i++) {
      ids[i] = file("/f" + i, 7).id();
      ns.delete("/f" + i, false);
    }
    AtomicInteger deletes = new AtomicInteger();
    chunks.onDelete((t, f, i) -> {
      if (deletes.incrementAndGet() == 10) {
        throw new IllegalStateException("simulated crash");
      }
    });
    // one record at a time, so that the crash leaves an exact count (in parallel, deletes of
    // other records already in flight would still land)
    assertThrows(IllegalStateException.class, () -> new DeferredDeleteTask(queue, chunks,
        ClusterManagerConfig.builder().listPageSize(2).deleteParallelism(1).build(), counters,
        clock::get).runOnce(() -> true));
    int left = 0;
    for (long id : ids) {
      left += chunks.count(id);
    }
    assertEquals(12, left);
    assertTrue(queue.size() >= 2, "the record of the file being drained stays");

    chunks.onDelete((t, f, i) -> {});
    ManagerCounters second = new ManagerCounters();
    new DeferredDeleteTask(queue, chunks, ClusterManagerConfig.DEFAULT, second, clock::get)
        .runOnce(() -> true);
    for (long id : ids) {
      assertEquals(0, chunks.count(id));
    }
    assertEquals(6, chunks.count(live.id()));
    assertEquals(0, queue.size());
    assertEquals(12, second.chunksDeleted.get());
    long calls = chunks.deleteCalls();
    new DeferredDeleteTask(queue, chunks, ClusterManagerConfig.DEFAULT, second, clock::get)
        .runOnce(() -> true);
    assertEquals(calls, chunks.deleteCalls(), "nothing left to do");
  }

  @Test
  void aQueueLongerThanABatchAsksForTheNextRoundAtOnce() throws Exception {
    long[] ids = new long[25];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = file("/f" + i, 2).id();
      ns.delete("/f" + i, false);
    }
    DeferredDeleteTask task = new DeferredDeleteTask(queue, chunks, ClusterManagerConfig
        .builder().deleteBatch(10).deleteParallelism(4).build(), counters, clock::get);
    int rounds = 0;
    do {
      task.runOnce(() -> true);
      rounds++;
    } while (task.moreDue() && rounds < 10);
    assertEquals(3, rounds, "10 + 10 + 5, back to back");
    assertEquals(0, queue.size());
    for (long id : ids) {
      assertEquals(0, chunks.count(id));
    }
    assertEquals(25, counters.filesDrained.get());
    task.runOnce(() -> true);
    assertTrue(!task.moreDue(), "an empty queue waits for the interval");
  }

  @Test
  void recordsOfARoundAreDrainedInParallel() throws Exception {
    for (int i = 0; i < 8; i++) {
      file("/p" + i, 1);
      ns.delete("/p" + i, false);
    }
    // every delete waits until four are under way at once: drained one after the other, the
    // first would wait alone and fail the round
    java.util.concurrent.CountDownLatch together = new java.util.concurrent.CountDownLatch(4);
    chunks.onDelete((t, f, i) -> {
      together.countDown();
      try {
        if (!together.await(20, java.util.concurrent.TimeUnit.SECONDS)) {
          throw new IllegalStateException("deletes are not concurrent");
        }
      } catch (InterruptedException e) {
        throw new java.io.InterruptedIOException();
      }
    });
    new DeferredDeleteTask(queue, chunks, ClusterManagerConfig.builder().deleteParallelism(4)
        .build(), counters, clock::get).runOnce(() -> true);
    assertEquals(0, queue.size());
    assertEquals(8, counters.filesDrained.get());
  }

  @Test
  void aRoundThatStopsActingLeavesTheRecord() throws Exception {
    long id = file("/f", 6).id();
    ns.delete("/f", false);
    AtomicInteger asked = new AtomicInteger();
    task().runOnce(() -> asked.incrementAndGet() < 4);
    assertEquals(1, queue.size());
    assertTrue(chunks.count(id) > 0);
    task().runOnce(() -> true);
    assertEquals(0, chunks.count(id));
    assertEquals(0, queue.size());
  }

  @Test
  void anUnreachableTargetKeepsTheRecordAndIsRetriedWithBackoff() throws Exception {
    long blocked = file("/blocked", 6).id();
    FileStatus other = ns.create("/other", CreateOptions.file()
        .withLayout(new Layout(1 << 20, 1, List.of("t4"), "raid6:4+2")));
    chunks.putFile(other.id(), List.of("t4"), 3, 0);
    ns.delete("/blocked", false);
    ns.delete("/other", false);
    chunks.setUnreachable("t2", true);
    DeferredDeleteTask task = task();

    task.runOnce(() -> true);
    assertArrayEquals(new long[] {blocked}, queue.ids());
    assertEquals(0, chunks.count(other.id()), "a waiting record does not hold up others");
    assertEquals(1, counters.recordsWaiting.get());
    long calls = chunks.deleteCalls();

    chunks.setUnreachable("t2", false);
    task.runOnce(() -> true); // not due yet: retryMin (10 s) has not passed
    assertEquals(calls, chunks.deleteCalls());
    assertEquals(1, queue.size());

    chunks.setUnreachable("t2", true);
    clock.addAndGet(10_000);
    task.runOnce(() -> true); // due, fails again: the pause doubles
    assertEquals(1, queue.size());
    chunks.setUnreachable("t2", false);
    clock.addAndGet(10_000);
    task.runOnce(() -> true);
    assertEquals(1, queue.size(), "20 s pause after the second failure");
    clock.addAndGet(10_000);
    task.runOnce(() -> true);
    assertEquals(0, queue.size());
    assertEquals(0, chunks.count(blocked));
    assertEquals(0, counters.recordsWaiting.get());
  }
}
