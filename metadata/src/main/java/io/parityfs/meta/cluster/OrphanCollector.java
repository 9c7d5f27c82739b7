package io.parityfs.meta.cluster;

import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.LiveFileScanner;
import io.parityfs.meta.LiveFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Deletes orphan chunks: chunks whose file id belongs to no file, older than the grace period.
 *
 * <p>One round: T = now; {@code sync} and find the exact set of live file ids at a moment S after
 * T ({@link LiveFileScanner}: the scan lists every bucket with its {@code pzxid} and re-lists
 * until a pass over all of them sees no change, so renames running meanwhile cannot hide a
 * file); read the deferred-delete queue and the id counter; then list every target and delete
 * each chunk whose file id is not live, not queued, below the id counter, and whose modified
 * time is before T − grace.
 *
 * <p>Why a live file's chunk is never deleted: a writer learns a file's id from the create that
 * made it, so a chunk of file F is written after F's create committed. If the chunk's modified
 * time is before T − grace, then (clocks agreeing within the grace) F's create committed before
 * T, and the {@code sync} makes it visible to the scan. F absent at S therefore means F was
 * removed before S; ids are never reused and a rename moves an id atomically, so F is dead for
 * ever and its chunks are garbage. Chunks written later by a writer that has not noticed the
 * removal are young, and wait for a later round. An id at or above the counter was never handed
 * out: such a chunk is logged, not deleted (another namespace's chunk, or a bug). Two managers
 * acting at once (a deposed leader that has not noticed yet) would both be right.
 */
final class OrphanCollector implements ManagerTask {
  private static final System.Logger LOG = System.getLogger(OrphanCollector.class.getName());
  private static final int IDS_LOGGED = 10;

  private final LiveFileScanner scanner;
  private final DeleteQueue queue;
  private final ChunkService chunks;
  private final ClusterManagerConfig config;
  private final ManagerCounters counters;
  private final LongSupplier clock;
  private final LiveFileScanner.Progress progress;

  /**
   * @param progress told of each bucket the scan reads (tests interleave renames); the scan
   *     goes on while it returns true and the task is acting
   */
  OrphanCollector(LiveFileScanner scanner, DeleteQueue queue,
      ChunkService chunks, ClusterManagerConfig config, ManagerCounters counters,
      LongSupplier clock, LiveFileScanner.Progress progress) {
    this.scanner = scanner;
    this.queue = queue;
    this.chunks = chunks;
    this.config = config;
    this.counters = counters;
    this.clock = clock;
    this.progress = progress;
  }

  @Override
  public String name() {
    return "orphan collection";
  }

  @Override
  public Duration interval() {
    return config.orphanInterval();
  }

  @Override
  public void runOnce(BooleanSupplier acting) throws Exception {
    long t = clock.getAsLong();
    long cutoff = t - config.orphanGrace().toMillis();
    Optional<LiveFiles> scanned = scanner.scan(config.scanMaxPasses(), config.scanInFlight(),
        (buckets, entries) -> progress.bucketRead(buckets, entries) && acting.getAsBoolean());
    if (scanned.isEmpty()) {
      if (acting.getAsBoolean()) {
        LOG.log(System.Logger.Level.WARNING, "orphan collection skipped: the namespace kept"
            + " changing for {0} verification passes", config.scanMaxPasses());
      }
      return;
    }
    LiveFiles live = scanned.get();
    long[] queued = queue.ids();
    long checked = 0;
    long found = 0;
    long deleted = 0;
    TreeSet<Long> unallocated = new TreeSet<>();
    List<String> targets = chunks.targets();
    int unreachable = 0;
    for (String target : targets) {
      long cursor = 0;
      try {
        while (true) {
          ChunkPage page = chunks.list(target, ChunkService.ALL_FILES, cursor,
              config.listPageSize());
          for (StoredChunk c : page.chunks()) {
            checked++;
            long id = c.fileId();
            if (live.contains(id) || Arrays.binarySearch(queued, id) >= 0
                || c.modifiedMillis() >= cutoff) {
              continue;
            }
            if (id >= live.idLimit()) {
              unallocated.add(id);
              continue;
            }
            if (!acting.getAsBoolean()) {
              return;
            }
            found++;
            counters.orphansFound.incrementAndGet();
            chunks.delete(target, id, c.index());
            deleted++;
            counters.orphansDeleted.incrementAndGet();
          }
          if (!page.hasMore()) {
            break;
          }
          cursor = page.nextCursor();
        }
      } catch (IOException e) {
        if (!acting.getAsBoolean()) {
          return; // e.g. interrupted by close: not the target's fault
        }
        unreachable++;
        LOG.log(System.Logger.Level.WARNING, "orphan collection: target {0} unreachable ({1});"
            + " skipped this round", target, e.getMessage());
      }
    }
    if (!unallocated.isEmpty()) {
      LOG.log(System.Logger.Level.WARNING, "orphan collection: {0} file ids at or above the id"
          + " counter {1} have chunks (never handed out; not deleted): {2}", unallocated.size(),
          live.idLimit(), unallocated.stream().limit(IDS_LOGGED).toList());
    }
    counters.orphanScans.incrementAndGet();
    counters.lastOrphanScanMillis.set(clock.getAsLong());
    LOG.log(System.Logger.Level.INFO, "orphan collection: {0} live files ({1} scan passes),"
        + " {2} chunks checked on {3} targets ({4} unreachable), {5} orphans found, {6}"
        + " deleted", live.size(), live.passes(), checked, targets.size(), unreachable, found,
        deleted);
  }
}
