package io.parityfs.meta.cluster;

import io.parityfs.meta.DeferredDelete;
import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Drains the deferred-delete queue: for each record, lists the file's chunks on every target of
 * its layout (by file id: a writer may have left chunks beyond the recorded length) and deletes
 * them, then removes the record. Deleting a chunk twice is harmless and the record goes last, so
 * a crash anywhere leaves the record, and the next round (of this or any other manager) does the
 * rest. A record whose target cannot be reached is kept and retried after a pause that doubles
 * with each failure ({@code retryMin} .. {@code retryMax}); it is logged once, when it starts
 * waiting, and once when it is drained.
 */
final class DeferredDeleteTask implements ManagerTask {
  private static final System.Logger LOG = System.getLogger(DeferredDeleteTask.class.getName());

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
  private final Map<Long, Retry> waiting = new HashMap<>();
  private final Set<Long> corrupt = new HashSet<>();

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
  public void runOnce(BooleanSupplier acting) throws Exception {
    long[] ids = queue.ids();
    counters.queueLength.set(ids.length);
    Set<Long> present = new HashSet<>();
    int taken = 0;
    for (long id : ids) {
      present.add(id);
      Retry retry = waiting.get(id);
      if (taken >= config.deleteBatch() || corrupt.contains(id)
          || (retry != null && clock.getAsLong() < retry.dueMillis)) {
        continue; // a record waiting for its targets does not hold up the others
      }
      if (!acting.getAsBoolean()) {
        return;
      }
      taken++;
      DeferredDelete r;
      try {
        r = queue.get(id).orElse(null);
      } catch (NamespaceException e) {
        if (e.status() != NamespaceStatus.CORRUPT) {
          throw e;
        }
        if (corrupt.add(id)) {
          LOG.log(System.Logger.Level.WARNING, "{0}; left in place for an operator",
              e.getMessage());
        }
        continue;
      }
      if (r != null) {
        drain(r, retry, acting);
      }
    }
    waiting.keySet().retainAll(present); // drop records that someone else drained
    corrupt.retainAll(present);
    counters.recordsWaiting.set(waiting.size());
    counters.queueLength.set(queue.size());
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
    LOG.log(System.Logger.Level.INFO, "file {0}: {1} chunks deleted on {2} targets {3}{4},"
        + " deferred-delete record removed", Long.toString(r.id()), deleted, targets.size(),
        targets, retry == null ? "" : " (after waiting for a target)");
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
      LOG.log(System.Logger.Level.WARNING, "file {0}: target {1} unreachable ({2}); keeping its"
          + " deferred-delete record, retrying with backoff", Long.toString(r.id()), target,
          e.getMessage());
    } else {
      retry.delayMillis = Math.min(config.retryMax().toMillis(), retry.delayMillis * 2);
      LOG.log(System.Logger.Level.DEBUG, "file {0}: target {1} still unreachable ({2})",
          Long.toString(r.id()), target, e.getMessage());
    }
    retry.dueMillis = now + retry.delayMillis;
  }
}
