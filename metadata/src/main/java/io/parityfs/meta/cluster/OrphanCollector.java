package io.parityfs.meta.cluster;

import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.LiveFileScanner;
import io.parityfs.meta.LiveFiles;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.chunks.StoredChunk;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes orphan chunks: chunks whose file id belongs to no file, seen so in two rounds at least
 * the grace period apart by the manager's own clock. No storage node's clock is read.
 *
 * <p>One round: {@code sync} and find the exact set of live file ids at a moment S
 * ({@link LiveFileScanner}: the scan lists every bucket with its {@code pzxid} and re-lists until
 * a pass over all of them sees no change, so renames running meanwhile cannot hide a file); read
 * the deferred-delete queue and the id counter; then list every target. A chunk is a
 * <em>suspect</em> if its file id is not live, not queued, below the id counter and not in a
 * range the counter skipped ({@link LiveFiles#neverIssued}). A suspect
 * whose file id was already a suspect in an earlier round, first seen at least {@code grace}
 * ago, is deleted; the others are remembered (file id, and when the manager first listed it).
 *
 * <p>Why a live file's chunk is never deleted: a writer learns a file's id from the create that
 * made it, so a chunk of file F exists only after F's create committed. Round p listed a chunk
 * of F at a moment L<sub>p</sub>, so F was created before L<sub>p</sub>. A later round r begins
 * after round p ended (one thread runs the rounds; the suspects a round uses are those stored
 * before its {@code sync}), so its scan's S<sub>r</sub> is after L<sub>p</sub> and sees F's
 * create. F absent at S<sub>r</sub> therefore means F was removed before S<sub>r</sub>; ids are
 * never reused and a rename moves an id atomically, so F is dead for ever and every chunk of it,
 * whenever written, is garbage. This holds whatever the clocks say: the grace only spaces the
 * two sightings (by the manager's clock) as a margin; a node's clock, ahead or behind, plays no
 * part. An id at or above the counter, or in a range it skipped, was never handed out: such a
 * chunk is logged, not deleted (another namespace's chunk, one kept from before a rollback of
 * the namespace, or a bug). Two managers acting at once (a deposed leader that has
 * not noticed yet) would both be right. Suspects live in memory: a new leader starts without
 * them and deletes nothing in its first round.
 */
final class OrphanCollector implements ManagerTask {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanCollector.class);
  private static final int IDS_LOGGED = 10;

  private final LiveFileScanner scanner;
  private final DeleteQueue queue;
  private final ChunkService chunks;
  private final ClusterManagerConfig config;
  private final ManagerCounters counters;
  private final LongSupplier clock;
  private final LiveFileScanner.Progress progress;
  /**
   * File id → the manager's clock when one of its chunks was first listed as a suspect, as of
   * the end of the last round; replaced whole at the end of a round that ran to its end.
   */
  private volatile Map<Long, Long> suspects = Map.of();

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
    Map<Long, Long> earlier = suspects; // stored before this round's sync: see the comment
    long grace = config.orphanGrace().toMillis();
    Map<Long, Long> seen = new HashMap<>();
    boolean complete = true;
    Optional<LiveFiles> scanned = scanner.scan(config.scanMaxPasses(), config.scanInFlight(),
        (buckets, entries) -> progress.bucketRead(buckets, entries) && acting.getAsBoolean());
    if (scanned.isEmpty()) {
      if (acting.getAsBoolean()) {
        LOG.warn("orphan collection skipped: the namespace kept"
            + " changing for {} verification passes", config.scanMaxPasses());
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
          long listed = clock.getAsLong();
          for (StoredChunk c : page.chunks()) {
            checked++;
            long id = c.fileId();
            if (live.contains(id) || Arrays.binarySearch(queued, id) >= 0) {
              continue;
            }
            if (live.neverIssued(id)) {
              unallocated.add(id);
              continue;
            }
            Long first = earlier.get(id);
            long firstSeen = first != null ? first : seen.getOrDefault(id, listed);
            seen.merge(id, firstSeen, Math::min);
            if (first == null || listed - first < grace) {
              continue; // a suspect, not yet proven dead
            }
            if (!acting.getAsBoolean()) {
              return; // this round's sightings are dropped; the earlier ones stay
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
        complete = false;
        LOG.warn("orphan collection: target {} unreachable ({});"
            + " skipped this round", target, e.getMessage());
      }
    }
    if (!unallocated.isEmpty()) {
      LOG.warn("orphan collection: {} file ids at or above the id"
          + " counter {}, or in a range it skipped, have chunks (never handed out by this"
          + " namespace; not deleted): {}", unallocated.size(),
          live.idLimit(), unallocated.stream().limit(IDS_LOGGED).toList());
    }
    if (!complete) {
      // a target not listed: keep its earlier sightings (a sighting is a fact for ever)
      for (Map.Entry<Long, Long> e : earlier.entrySet()) {
        seen.merge(e.getKey(), e.getValue(), Math::min);
      }
    }
    suspects = Map.copyOf(seen);
    counters.orphanScans.incrementAndGet();
    counters.lastOrphanScanMillis.set(clock.getAsLong());
    LOG.info("orphan collection: {} live files ({} scan passes),"
        + " {} chunks checked on {} targets ({} unreachable), {} orphans found, {}"
        + " deleted, {} suspect files remembered", live.size(), live.passes(), checked,
        targets.size(), unreachable, found, deleted, seen.size());
  }
}
