package io.parityfs.meta.cluster;

import io.parityfs.meta.DeferredDelete;
import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.chunks.StoredChunk;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains the deferred-delete queue: for each record, lists the file's chunks on every target of
 * its layout (by file id: a writer may have left chunks beyond the recorded length) and deletes
 * them, then removes the record. Deleting a chunk twice is harmless and the record goes last, so
 * a crash anywhere leaves the record, and the next round (of this or any other manager) does the
 * rest. A record whose target cannot be reached is kept and retried after a pause that doubles
 * with each failure ({@code retryMin} .. {@code retryMax}); it is logged once, when it starts
 * waiting, and once when it is drained.
 *
 * <p><b>Keeping up with deletes.</b> A round takes up to {@code deleteBatch} records that are due
 * and drains {@code deleteParallelism} of them at a time, each on its own thread (records are
 * independent; the chunk service is thread-safe); when more records were due than it took,
 * {@link #moreDue()} asks for the next round at once instead of after {@code deleteInterval}, so
 * a long queue drains back to back and the interval is only the pause of an idle queue. A record
 * is one LIST per target of its layout and one DELETE per chunk (the protocol has no delete of a
 * whole file). The first unexpected failure of a record stops the round's other records before
 * their next delete, as a crash would, and is thrown.
 */
final class DeferredDeleteTask implements ManagerTask {
  private static final Logger LOG = LoggerFactory.getLogger(DeferredDeleteTask.class);

  /** A record waiting for its targets. */
  private static final class Retry {
    long delayMillis;
    long dueMillis;
  }

  private final DeleteQueue queue;
  private final ChunkService chunks;
  private final ClusterManagerConfig config;
  private final ManagerCounters counters;
  private final LongSupplier clock;
  private final Map<Long, Retry> waiting = new ConcurrentHashMap<>();
  private final Set<Long> corrupt = ConcurrentHashMap.newKeySet();
  private volatile boolean moreDue;

  DeferredDeleteTask(DeleteQueue queue, ChunkService chunks, ClusterManagerConfig config,
      ManagerCounters counters, LongSupplier clock) {
    this.queue = queue;
    this.chunks = chunks;
    this.config = config;
    this.counters = counters;
    this.clock = clock;
  }

  @Override
  public String name() {
    return "deferred deletes";
  }

  @Override
  public Duration interval() {
    return config.deleteInterval();
  }

  @Override
  public boolean moreDue() {
    return moreDue;
  }

  @Override
  public void runOnce(BooleanSupplier acting) throws Exception {
    moreDue = false;
    long[] ids = queue.ids();
    counters.queueLength.set(ids.length);
    Set<Long> present = new HashSet<>();
    List<Long> taken = new ArrayList<>();
    long now = clock.getAsLong();
    for (long id : ids) {
      present.add(id);
      Retry retry = waiting.get(id);
      if (corrupt.contains(id) || (retry != null && now < retry.dueMillis)) {
        continue; // a record waiting for its targets does not hold up the others
      }
      if (taken.size() == config.deleteBatch()) {
        moreDue = true;
        break;
      }
      taken.add(id);
    }
    long files = counters.filesDrained.get();
    long bytes = counters.bytesDrained.get();
    long started = System.nanoTime();
    drainAll(taken, acting);
    files = counters.filesDrained.get() - files;
    if (files > 0) {
      LOG.info("deferred deletes: {} files drained ({} bytes) in {}"
          + " ms; {} records queued before the round", files,
          counters.bytesDrained.get() - bytes, (System.nanoTime() - started) / 1_000_000,
          ids.length);
    }
    waiting.keySet().retainAll(present); // drop records that someone else drained
    corrupt.retainAll(present);
    counters.recordsWaiting.set(waiting.size());
    counters.queueLength.set(queue.size());
    moreDue &= acting.getAsBoolean();
  }

  /** Drains {@code ids}, {@code deleteParallelism} at a time; the first failure is thrown. */
  private void drainAll(List<Long> ids, BooleanSupplier acting) throws Exception {
    if (ids.isEmpty()) {
      return;
    }
    AtomicReference<Exception> failed = new AtomicReference<>();
    BooleanSupplier going = () -> failed.get() == null && acting.getAsBoolean();
    int threads = Math.min(config.deleteParallelism(), ids.size());
    if (threads == 1) {
      for (long id : ids) {
        if (!going.getAsBoolean()) {
          break;
        }
        drainOne(id, going);
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    AtomicInteger n = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "parityfs-deferred-delete-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> workers = new ArrayList<>(threads);
      for (int w = 0; w < threads; w++) {
        workers.add(pool.submit(() -> {
          for (int i; (i = next.getAndIncrement()) < ids.size() && going.getAsBoolean(); ) {
            try {
              drainOne(ids.get(i), going);
            } catch (Exception e) {
              failed.compareAndSet(null, e);
            }
          }
        }));
      }
      for (Future<?> f : workers) {
        try {
          f.get();
        } catch (ExecutionException e) {
          failed.compareAndSet(null, e.getCause() instanceof Exception x ? x
              : new IllegalStateException(e.getCause()));
        }
      }
    } finally {
      pool.shutdownNow(); // interrupted (close): the workers stop at their next request
    }
    if (failed.get() != null) {
      throw failed.get();
    }
  }

  private void drainOne(long id, BooleanSupplier acting) throws Exception {
    DeferredDelete r;
    try {
      r = queue.get(id).orElse(null);
    } catch (NamespaceException e) {
      if (e.status() != NamespaceStatus.CORRUPT) {
        throw e;
      }
      if (corrupt.add(id)) {
        LOG.warn("{}; left in place for an operator",
            e.getMessage());
      }
      return;
    }
    if (r != null) {
      drain(r, waiting.get(id), acting);
    }
  }

  private void drain(DeferredDelete r, Retry retry, BooleanSupplier acting) throws Exception {
    Set<String> targets = new LinkedHashSet<>(r.layout().targets());
    long deleted = 0;
    for (String target : targets) {
      try {
        long n = deleteChunks(target, r.id(), acting);
        if (n < 0) {
          return; // no longer acting: the record stays for the next leader
        }
        deleted += n;
      } catch (IOException e) {
        if (acting.getAsBoolean()) { // else e.g. interrupted by close: not the target's fault
          waitForTarget(r, retry, target, e);
        }
        return;
      }
    }
    queue.remove(r.id());
    waiting.remove(r.id());
    counters.filesDrained.incrementAndGet();
    counters.bytesDrained.addAndGet(r.length());
    String done = "file {}: {} chunks deleted on {} targets {}{}, deferred-delete record removed";
    Object[] args = {Long.toString(r.id()), deleted, targets.size(), targets,
        retry == null ? "" : " (after waiting for a target)"};
    if (retry == null) {
      LOG.debug(done, args);
    } else {
      LOG.info(done, args);
    }
  }

  /** Deletes every chunk of the file on one target; -1 if it stopped because not acting. */
  private long deleteChunks(String target, long fileId, BooleanSupplier acting)
      throws IOException {
    long n = 0;
    long cursor = 0;
    while (true) {
      ChunkPage page = chunks.list(target, fileId, cursor, config.listPageSize());
      for (StoredChunk c : page.chunks()) {
        if (!acting.getAsBoolean()) {
          return -1;
        }
        if (c.fileId() != fileId) {
          continue; // a service that ignored the filter: never touch another file
        }
        chunks.delete(target, fileId, c.index());
        counters.chunksDeleted.incrementAndGet();
        n++;
      }
      if (!page.hasMore()) {
        return n;
      }
      cursor = page.nextCursor();
    }
  }

  private void waitForTarget(DeferredDelete r, Retry retry, String target, IOException e) {
    long now = clock.getAsLong();
    if (retry == null) {
      retry = new Retry();
      retry.delayMillis = config.retryMin().toMillis();
      waiting.put(r.id(), retry);
      LOG.warn("file {}: target {} unreachable ({}); keeping its"
          + " deferred-delete record, retrying with backoff", Long.toString(r.id()), target,
          e.getMessage());
    } else {
      retry.delayMillis = Math.min(config.retryMax().toMillis(), retry.delayMillis * 2);
      LOG.debug("file {}: target {} still unreachable ({})",
          Long.toString(r.id()), target, e.getMessage());
    }
    retry.dueMillis = now + retry.delayMillis;
  }
}
