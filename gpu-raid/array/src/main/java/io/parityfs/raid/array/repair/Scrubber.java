package io.parityfs.raid.array.repair;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.ManifestCatalog;
import io.parityfs.raid.array.object.ObjectChangeListener;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ShardReader;
import io.parityfs.raid.array.object.StoreContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Scrubs an {@link ObjectStore}: reads every cell of the latest committed version of every
 * object, checks each cell against its CRC32C and each stripe's parity (a mirror: that its copies
 * are equal), and repairs in place what is wrong. See "Scrub" in {@code docs/array.md}.
 *
 * <ul>
 *   <li><b>A cell failing its CRC</b> is reconstructed from the stripe's other usable cells (a
 *       mirror: copied from a good copy) and rewritten with its CRC entry ({@link
 *       ShardReader#rewriteCell}, crash-safe).
 *   <li><b>A stripe whose cells all pass their CRC but whose parity disagrees</b> (a lost or
 *       misdirected write that left a self-consistent cell behind): the data cells are
 *       authoritative, the parity is re-encoded and the wrong parity cells rewritten (a mirror
 *       keeps the first good copy, the one reads return). Counted as a parity mismatch.
 *   <li><b>A missing shard file</b> (or one whose header is corrupt or disagrees with the
 *       manifest) on a live drive is counted, the stripes checked from the other shards, and then
 *       re-created from the survivors as a rebuild would ({@link ShardRebuild}); it is counted
 *       re-created when that succeeds. (A node crash between a drive error and its label update,
 *       or a drive put back by hand, leaves an ONLINE slot without some shards: nothing else
 *       writes them.)
 *   <li><b>More unusable cells in a stripe than the protection tolerates</b>, or usable cells that
 *       disagree in a way no single wrong parity cell explains: the object is reported
 *       unrecoverable and nothing of that stripe is written (never guessed data).
 *   <li><b>A drive error</b> (DRIVE_IO) marks the slot failed in the store ({@link
 *       ObjectStore#failedSlots}); its shards are then left out, as a read would.
 * </ul>
 *
 * <p>Objects are walked in id order; objects without a committed version are skipped (garbage
 * collection's job), and so is a version that a write or delete replaces while it is checked. I/O
 * is paced by the store's {@link BackgroundThrottle} (each batch read asks it first), reading up
 * to {@value #DEFAULT_BATCH_BYTES} bytes of each shard per request.
 *
 * <p><b>Cancellation and progress.</b> {@link #stop} ends the scrub in progress at the next batch
 * of stripes; its report says it was cancelled. {@link #progress} may be called from any thread.
 * Interrupting the scrubbing thread is not the way to stop it: an interrupt during file I/O
 * closes the channel for every user of the drive (see {@link Drive}); it is honoured only while
 * the throttle holds the scrub back.
 *
 * <p><b>What is kept.</b> The scrubber keeps the report of the last scrub that ran ({@link
 * #lastReport}), on demand or scheduled, so that whoever started it (an operator's command that
 * returned at once) can learn what it found; the standing damage ({@link #damage}): the objects
 * found unrecoverable, which each whole scrub, and each cancelled scrub that found some,
 * replaces, and from which each listed object goes as soon as it is rewritten or deleted (see
 * below); and running totals of repairs and unrecoverable objects since the scrubber was made,
 * for metrics.
 *
 * <p><b>Damage cleared object by object.</b> The scrubber listens to the store ({@link
 * ObjectChangeListener}, called where every commit of a new version and every delete passes).
 * When a new version of an object the damage lists commits, or the object is deleted, the
 * version found unrecoverable is no longer what reads get: the object leaves the listed ids and
 * the count drops by one. Objects counted beyond the {@value #MAX_LISTED_IDS} listed cannot be
 * told apart and stay counted until the next scrub. The same holds for the scrub in progress: an
 * object it already found unrecoverable and that is then rewritten leaves its report; one it
 * finds unrecoverable just as a write replaces it is dropped when it sees the version replaced
 * (a listing comes before that check, and a listener call after the change is visible to it, so
 * one of the two sees the other). At worst (a delete racing with the scrub's check of the object,
 * or an object beyond the listed ones) an object stays reported until the next scrub; a lost
 * object is never left out.
 *
 * <p><b>Thread safety.</b> One scrub runs at a time per scrubber: {@link #run} refuses a second
 * concurrent call, {@link #tryRun} returns empty instead. A scrub may run alongside reads and
 * writes of the store, and alongside garbage collection, which deletes only versions that are not
 * the latest committed one (a scrub treats them as replaced) and skips temps a scrub claimed.
 */
public final class Scrubber {
  private static final System.Logger LOG = System.getLogger(Scrubber.class.getName());

  /** Bytes of one shard read per request (fewer for a smaller object, one cell at least). */
  public static final int DEFAULT_BATCH_BYTES = 1 << 20;
  /** The most unrecoverable object ids a report lists. */
  public static final int MAX_LISTED_IDS = 100;

  private final StoreContext ctx;
  private final ManifestCatalog catalog;
  private final int batchBytes;
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile boolean stopRequested;
  private volatile Tally current;
  private volatile ScrubProgress finished = ScrubProgress.IDLE;
  private volatile ScrubReport last;
  /** Guards {@link #damage} and the listing of the scrub in progress against the listener. */
  private final Object damageLock = new Object();
  private volatile Damage damage;
  private final AtomicLong repairsTotal = new AtomicLong();
  private final AtomicLong unrecoverableTotal = new AtomicLong();

  /** A scrubber of {@code store} reading {@value #DEFAULT_BATCH_BYTES} bytes per request. */
  public Scrubber(ObjectStore store) {
    this(store, DEFAULT_BATCH_BYTES);
  }

  /**
   * A scrubber reading up to {@code batchBytes} of one shard per request.
   *
   * @throws IllegalArgumentException when batchBytes is not positive
   */
  public Scrubber(ObjectStore store, int batchBytes) {
    if (batchBytes <= 0) {
      throw new IllegalArgumentException("batchBytes (" + batchBytes + ") must be positive");
    }
    Objects.requireNonNull(store, "store");
    this.ctx = store.context();
    this.catalog = store.catalog();
    this.batchBytes = batchBytes;
    store.onObjectChange(new ObjectChangeListener() {
      @Override
      public void committed(long objectId, long version) {
        replaced(objectId, version);
      }

      @Override
      public void deleted(long objectId) {
        replaced(objectId, Long.MAX_VALUE);
      }
    });
  }

  /**
   * Scrubs every object once and returns the report.
   *
   * @throws IllegalStateException when a scrub of this scrubber is already running
   */
  public ScrubReport run() {
    return tryRun().orElseThrow(
        () -> new IllegalStateException("a scrub is already running on this array"));
  }

  /** Scrubs every object once, unless a scrub is already running (then empty). */
  public Optional<ScrubReport> tryRun() {
    return tryRun(() -> false);
  }

  /** As {@link #tryRun()}, also stopping when {@code cancelled} says so (between batches). */
  Optional<ScrubReport> tryRun(BooleanSupplier cancelled) {
    if (!running.compareAndSet(false, true)) {
      return Optional.empty();
    }
    stopRequested = false;
    Tally tally = new Tally();
    current = tally;
    try {
      boolean stopped = scrub(tally, () -> stopRequested || cancelled.getAsBoolean());
      return Optional.of(keep(tally, stopped));
    } finally {
      finished = tally.progress(false);
      current = null;
      running.set(false);
    }
  }

  /** Stops the scrub in progress, if any, at its next batch of stripes; it reports cancelled. */
  public void stop() {
    stopRequested = true;
  }

  /** Whether a scrub is running. */
  public boolean running() {
    return running.get();
  }

  /** The report of the last scrub that ran to its end or was cancelled; empty before one. */
  public Optional<ScrubReport> lastReport() {
    return Optional.ofNullable(last);
  }

  /**
   * The report that says which objects are known unrecoverable now: the last whole scrub's, or a
   * later cancelled one's that found some (a scrub that stopped early cannot clear what it did not
   * reach), less the listed objects rewritten or deleted since ({@link
   * ScrubReport#unrecoverableObjects} and {@link ScrubReport#unrecoverableIds} both drop; see
   * "Damage cleared object by object" above). Empty while no scrub found any, or once every
   * object it counted was cleared. Unlike {@link #lastReport}, a clean cancelled scrub leaves it
   * as it was.
   */
  public Optional<ScrubReport> damage() {
    Damage d = damage;
    return d == null || d.report().unrecoverableObjects() == 0
        ? Optional.empty() : Optional.of(d.report());
  }

  /** Repairs made by every scrub of this scrubber so far (see {@link ScrubReport#repaired}). */
  public long repairsTotal() {
    return repairsTotal.get();
  }

  /** Unrecoverable objects found by every scrub of this scrubber so far, each scrub counted. */
  public long unrecoverableTotal() {
    return unrecoverableTotal.get();
  }

  /**
   * The report of the scrub {@code tally} counted, kept as the last report and, when it is whole
   * or found some, as the standing damage: made and kept under {@link #damageLock}, so that a
   * write committing meanwhile is taken off either the tally before or the damage after.
   */
  private ScrubReport keep(Tally tally, boolean cancelled) {
    ScrubReport r;
    synchronized (damageLock) {
      r = tally.report(cancelled, ctx.failedSlots());
      if (!r.cancelled() || r.unrecoverableObjects() > 0) {
        damage = new Damage(r, tally.listedVersions());
      }
      last = r;
    }
    repairsTotal.addAndGet(r.repaired());
    unrecoverableTotal.addAndGet(r.unrecoverableObjects());
    LOG.log(r.clean() ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "{0}", r);
    return r;
  }

  /**
   * The store's listener: every version of {@code objectId} below {@code newVersion} is replaced
   * (a commit of newVersion; a delete: {@link Long#MAX_VALUE}). Takes the object off the standing
   * damage and off the scrub in progress where they list it at such a version.
   */
  private void replaced(long objectId, long newVersion) {
    synchronized (damageLock) {
      Tally t = current;
      if (t != null) {
        t.replaced(objectId, newVersion);
      }
      Damage d = damage;
      if (d != null) {
        Damage now = d.replaced(objectId, newVersion);
        if (now != d) {
          damage = now;
          LOG.log(System.Logger.Level.INFO, "object {0}, found unrecoverable by a scrub, was {1}:"
              + " no longer lost; {2} lost objects left", String.format("%016x", objectId),
              newVersion == Long.MAX_VALUE ? "deleted" : "rewritten (version " + newVersion + ")",
              now.report().unrecoverableObjects());
        }
      }
    }
  }

  /**
   * The standing damage: a scrub's report, less the objects cleared since, and the version of
   * each listed object that was found unrecoverable. Immutable.
   */
  private record Damage(ScrubReport report, Map<Long, Long> versions) {
    Damage {
      versions = Map.copyOf(versions);
    }

    /** This damage less {@code objectId} if it lists a version of it below newVersion. */
    Damage replaced(long objectId, long newVersion) {
      Long v = versions.get(objectId);
      if (v == null || v >= newVersion) {
        return this;
      }
      Map<Long, Long> left = new LinkedHashMap<>(versions);
      left.remove(objectId);
      return new Damage(report.without(objectId), left);
    }
  }

  /** Where the running scrub is; when none runs, the last one's final figures. */
  public ScrubProgress progress() {
    Tally t = current;
    return t != null ? t.progress(true) : finished;
  }

  /** Scrubs every object, counting into {@code tally}; whether it was cancelled. */
  private boolean scrub(Tally tally, BooleanSupplier stopping) {
    List<ObjectManifest> objects = new ArrayList<>();
    boolean cancelled = false;
    for (long id : catalog.objectIds()) {
      if (stopping.getAsBoolean()) {
        cancelled = true;
        break;
      }
      Optional<ObjectManifest> m = stat(id);
      if (m.isPresent()) {
        objects.add(m.get());
        tally.bytesTotal.addAndGet(
            (long) m.get().layout().stripes() * m.get().cellSize() * m.get().layout().shards());
      } else {
        tally.objectsSkipped.incrementAndGet();
      }
    }
    tally.objectsTotal.set(objects.size());
    LOG.log(System.Logger.Level.INFO, "scrub started: {0} objects, {1} MiB of cells",
        objects.size(), tally.bytesTotal.get() >> 20);
    Buffers buffers = new Buffers();
    for (ObjectManifest listed : objects) {
      if (cancelled || stopping.getAsBoolean()) {
        cancelled = true;
        break;
      }
      // the latest version now: a write since the listing is checked in its place
      Optional<ObjectManifest> m = stat(listed.objectId());
      if (m.isEmpty()) {
        tally.objectsSkipped.incrementAndGet();
        tally.objectsDone.incrementAndGet();
        continue;
      }
      ObjectScrub.Outcome outcome;
      try {
        outcome = new ObjectScrub(ctx, catalog, m.get(), tally, buffers, batchBytes).run(stopping);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        tally.objectsScanned.incrementAndGet();
        cancelled = true;
        break;
      }
      switch (outcome) {
        case COMPLETE -> tally.objectsScanned.incrementAndGet();
        case CHANGED -> tally.objectsSkipped.incrementAndGet();
        case CANCELLED -> {
          tally.objectsScanned.incrementAndGet();
          cancelled = true;
        }
      }
      if (cancelled) {
        break;
      }
      tally.objectsDone.incrementAndGet();
    }
    return cancelled;
  }

  private Optional<ObjectManifest> stat(long id) {
    try {
      return catalog.stat(id);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "scrub: object {0} skipped: {1}",
          String.format("%016x", id), e.getMessage());
      return Optional.empty();
    }
  }

  /** The counters of one scrub, updated as it goes, read by {@link #progress}. */
  static final class Tally {
    final Instant started = Instant.now();
    final long startNanos = System.nanoTime();
    final AtomicLong objectsTotal = new AtomicLong();
    final AtomicLong objectsDone = new AtomicLong();
    final AtomicLong bytesTotal = new AtomicLong();
    final AtomicLong bytesCovered = new AtomicLong();
    final AtomicLong objectsScanned = new AtomicLong();
    final AtomicLong objectsSkipped = new AtomicLong();
    final AtomicLong stripes = new AtomicLong();
    final AtomicLong cellsChecked = new AtomicLong();
    final AtomicLong bytesRead = new AtomicLong();
    final AtomicLong crcErrors = new AtomicLong();
    final AtomicLong crcErrorsRepaired = new AtomicLong();
    final AtomicLong parityMismatches = new AtomicLong();
    final AtomicLong parityMismatchesRepaired = new AtomicLong();
    final AtomicLong missingShards = new AtomicLong();
    final AtomicLong shardsRecreated = new AtomicLong();
    final AtomicLong unavailableShards = new AtomicLong();
    final AtomicLong driveErrors = new AtomicLong();
    private final AtomicLong unrecoverable = new AtomicLong();
    /** The listed unrecoverable objects, in the order found: id to the version found so. */
    private final Map<Long, Long> unrecoverableIds = new LinkedHashMap<>();

    /**
     * Counts {@code version} of {@code objectId} unrecoverable, listing it while fewer than
     * {@link #MAX_LISTED_IDS} are; returns whether it was listed (for {@link #withdraw}).
     */
    synchronized boolean unrecoverable(long objectId, long version) {
      unrecoverable.incrementAndGet();
      if (unrecoverableIds.size() < MAX_LISTED_IDS
          && !unrecoverableIds.containsKey(objectId)) {
        unrecoverableIds.put(objectId, version);
        return true;
      }
      return false;
    }

    /**
     * Takes back what {@link #unrecoverable} counted ({@code listed}: what it returned), the
     * version having been replaced meanwhile, unless {@link #replaced} did already.
     */
    synchronized void withdraw(long objectId, long version, boolean listed) {
      if (!listed || unrecoverableIds.remove(objectId, version)) {
        unrecoverable.decrementAndGet();
      }
    }

    /** Drops {@code objectId} if listed at a version below {@code newVersion}. */
    synchronized void replaced(long objectId, long newVersion) {
      Long v = unrecoverableIds.get(objectId);
      if (v != null && v < newVersion) {
        unrecoverableIds.remove(objectId);
        unrecoverable.decrementAndGet();
      }
    }

    /** The listed objects: id to the version found unrecoverable. */
    synchronized Map<Long, Long> listedVersions() {
      return new LinkedHashMap<>(unrecoverableIds);
    }

    ScrubProgress progress(boolean running) {
      return new ScrubProgress(running, objectsDone.get(), objectsTotal.get(), bytesCovered.get(),
          bytesTotal.get(), Duration.ofNanos(System.nanoTime() - startNanos));
    }

    synchronized ScrubReport report(boolean cancelled, long failedSlots) {
      return new ScrubReport(started, Duration.ofNanos(System.nanoTime() - startNanos), cancelled,
          objectsScanned.get(), objectsSkipped.get(), stripes.get(), cellsChecked.get(),
          bytesRead.get(), crcErrors.get(), crcErrorsRepaired.get(), parityMismatches.get(),
          parityMismatchesRepaired.get(), missingShards.get(), shardsRecreated.get(),
          unavailableShards.get(),
          unrecoverable.get(), new ArrayList<>(unrecoverableIds.keySet()), driveErrors.get(),
          failedSlots);
    }
  }

  /**
   * Buffers reused from object to object: per shard, a batch of cells and a scratch cell (a
   * reconstruction target), and the m cells of re-encoded parity. Aligned for O_DIRECT.
   */
  static final class Buffers {
    private final ByteBuffer[] batch = new ByteBuffer[DrivePlacement.MAX_SLOTS];
    private final ByteBuffer[] scratch = new ByteBuffer[DrivePlacement.MAX_SLOTS];
    private final ByteBuffer[] parity = new ByteBuffer[DrivePlacement.MAX_SLOTS];

    /** Shard i's batch buffer, at least {@code bytes} long, cleared. */
    ByteBuffer batch(int i, int bytes) {
      return get(batch, i, bytes).clear();
    }

    /** Shard i's scratch cell: position 0, limit cellSize. */
    ByteBuffer scratch(int i, int cellSize) {
      return get(scratch, i, cellSize).clear().limit(cellSize);
    }

    /** m parity cells, each at position 0 with limit cellSize. */
    ByteBuffer[] parity(int m, int cellSize) {
      ByteBuffer[] out = new ByteBuffer[m];
      for (int p = 0; p < m; p++) {
        out[p] = get(parity, p, cellSize).clear().limit(cellSize);
      }
      return out;
    }

    private static ByteBuffer get(ByteBuffer[] pool, int i, int bytes) {
      if (pool[i] == null || pool[i].capacity() < bytes) {
        pool[i] = ByteBuffer.allocateDirect(bytes + ShardFormat.BLOCK)
            .alignedSlice(ShardFormat.BLOCK).limit(bytes).slice();
      }
      return pool[i];
    }
  }
}
