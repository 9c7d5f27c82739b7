package io.parityfs.raid.array.repair;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.format.ObjectLayout;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.ShardHeader;
import io.parityfs.raid.array.object.ManifestCatalog;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ShardReader;
import io.parityfs.raid.array.object.StoreContext;
import io.parityfs.raid.codec.ParityCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * The scrub of one object version: reads every cell of every shard, a batch of stripes per
 * request, checks each cell's CRC32C and each stripe's parity (mirror: that the copies are equal),
 * and rewrites what is wrong in place with {@link ShardReader#rewriteCell}. See {@link Scrubber}
 * for the rules; this class applies them to one object and adds what it found to a {@link
 * Scrubber.Tally}. Single use, one thread.
 *
 * <p><b>Which cells are trusted.</b> A cell is usable when it passes its CRC. In a stripe whose
 * data cells are all usable the data is authoritative (it is what reads return): the parity is
 * re-encoded from it and every parity cell that differs is rewritten. When a data cell is unusable
 * it is reconstructed from the usable cells; if more usable cells survive than the codec needs,
 * the result is checked against the spare parity cells, and when they disagree the stripe is
 * reconstructed again leaving out one usable parity cell at a time: if exactly one choice agrees
 * with all the others, that parity cell was the wrong one and is rewritten too; otherwise the
 * stripe is unrecoverable and nothing of it is written. A mirror keeps the first copy that passes
 * its CRC (the one reads return) and rewrites the copies that differ from it.
 */
final class ObjectScrub {
  private static final System.Logger LOG = System.getLogger(ObjectScrub.class.getName());

  /** How the pass ended. */
  enum Outcome {
    /** Every stripe was checked. */
    COMPLETE,
    /** Stopped between two batches of stripes. */
    CANCELLED,
    /** The version was superseded or deleted meanwhile: what was found about it is dropped. */
    CHANGED
  }

  /** Why a shard is not being read. */
  private enum Shard {
    READABLE,
    /** Absent, or unreadable as a file, on a live drive: needs a rebuild. */
    MISSING,
    /** Its slot is failed or absent (before or during this pass). */
    ON_FAILED_DRIVE
  }

  private final StoreContext ctx;
  private final ManifestCatalog catalog;
  private final ObjectManifest manifest;
  private final Scrubber.Tally tally;
  private final Scrubber.Buffers buffers;
  private final int batchBytes;
  private final int width;
  private final int k;
  private final int cellSize;
  private final int stripes;
  private final boolean mirror;
  private final ParityCodec codec;
  private final ShardReader[] readers;
  private final Shard[] state;
  /** badCells[i][j]: cell j of the current batch of shard i failed its CRC. */
  private final boolean[][] badCells;
  private boolean unrecoverable;

  ObjectScrub(StoreContext ctx, ManifestCatalog catalog, ObjectManifest manifest, Scrubber.Tally tally,
      Scrubber.Buffers buffers, int batchBytes) {
    this.ctx = ctx;
    this.catalog = catalog;
    this.manifest = manifest;
    this.tally = tally;
    this.buffers = buffers;
    this.batchBytes = batchBytes;
    ObjectLayout layout = manifest.layout();
    this.width = layout.shards();
    this.k = layout.dataShards();
    this.cellSize = layout.cellSize();
    this.stripes = layout.stripes();
    this.mirror = layout.protection() instanceof Protection.Mirror;
    this.codec = ctx.codec();
    this.readers = new ShardReader[width];
    this.state = new Shard[width];
    this.badCells = new boolean[width][];
  }

  /**
   * Checks and repairs the whole version, stopping between batches when {@code stopping} says so.
   *
   * @throws InterruptedException when interrupted while the throttle holds the pass back
   */
  Outcome run(BooleanSupplier stopping) throws InterruptedException {
    try {
      for (int i = 0; i < width; i++) {
        open(i);
      }
      int perBatch = Math.max(1, Math.min(stripes, batchBytes / cellSize));
      for (int s0 = 0; s0 < stripes; s0 += perBatch) {
        if (stopping.getAsBoolean()) {
          return Outcome.CANCELLED;
        }
        int n = Math.min(perBatch, stripes - s0);
        readBatch(s0, n);
        for (int j = 0; j < n; j++) {
          checkStripe(s0 + j, j);
        }
        tally.bytesCovered.addAndGet((long) n * cellSize * width);
      }
      return finish(stopping);
    } finally {
      for (int i = 0; i < width; i++) {
        closeReader(i);
      }
    }
  }

  // ---- shards ----

  private void open(int i) {
    int slot = manifest.slotOf(i);
    Drive drive = ctx.drive(slot);
    if (drive == null) {
      state[i] = Shard.ON_FAILED_DRIVE;
      return;
    }
    String name = ObjectFiles.shard(manifest.objectId(), manifest.version(), i);
    try {
      ShardReader r = ShardReader.open(drive, name);
      ShardHeader h = r.header();
      if (h.objectId() != manifest.objectId() || h.objectVersion() != manifest.version()
          || h.shardIndex() != i || h.objectLength() != manifest.objectLength()
          || h.cellSize() != cellSize || h.cellCount() != stripes
          || !h.protection().equals(manifest.protection())) {
        r.close();
        state[i] = Shard.MISSING;
        LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: shard {2} on slot {3}"
            + " disagrees with the manifest ({4}); it needs a rebuild", hex(), manifest.version(),
            i, slot, h);
        return;
      }
      readers[i] = r;
      state[i] = Shard.READABLE;
    } catch (NoSuchFileException e) {
      state[i] = Shard.MISSING;
      LOG.log(System.Logger.Level.DEBUG, "object {0} version {1}: shard {2} on slot {3} is"
          + " missing", hex(), manifest.version(), i, slot);
    } catch (IOException e) {
      drop(i, e);
    }
  }

  /** Stops using shard i after {@code e}; a drive failure also fails the slot in the ctx. */
  private void drop(int i, IOException e) {
    int slot = manifest.slotOf(i);
    ctx.noteFailure(slot, e);
    if (Drive.isDriveFailure(e)) {
      tally.driveErrors.incrementAndGet();
      state[i] = Shard.ON_FAILED_DRIVE;
    } else {
      state[i] = Shard.MISSING;
    }
    LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: shard {2} on slot {3} not"
        + " usable: {4}", hex(), manifest.version(), i, slot, e.getMessage());
    closeReader(i);
  }

  private void closeReader(int i) {
    ShardReader r = readers[i];
    readers[i] = null;
    if (r != null) {
      try {
        r.close();
      } catch (IOException e) {
        LOG.log(System.Logger.Level.DEBUG, "closing {0}: {1}", r.name(), e);
      }
    }
  }

  /** Reads cells s0..s0+n-1 of every readable shard, one request per shard. */
  private void readBatch(int s0, int n) throws InterruptedException {
    long bytes = (long) n * cellSize;
    for (int i = 0; i < width; i++) {
      if (badCells[i] == null || badCells[i].length < n) {
        badCells[i] = new boolean[n];
      } else {
        Arrays.fill(badCells[i], false);
      }
      ShardReader r = readers[i];
      if (r == null) {
        continue;
      }
      ctx.throttle().acquire(bytes);
      try {
        int[] bad = r.readRange((long) s0 * cellSize, bytes, buffers.batch(i, (int) bytes));
        tally.cellsChecked.addAndGet(n);
        tally.bytesRead.addAndGet(bytes);
        for (int c : bad) {
          badCells[i][c - s0] = true;
          tally.crcErrors.incrementAndGet();
          LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: cell {2} of shard {3} on"
              + " slot {4} fails its CRC32C", hex(), manifest.version(), c, i,
              manifest.slotOf(i));
        }
      } catch (IOException e) {
        drop(i, e);
      }
    }
  }

  // ---- stripes ----

  private enum Cell {
    GOOD,
    /** Read, failed its CRC: to be rewritten. */
    BAD,
    /** Not read: its shard is missing or on a failed drive. */
    ABSENT
  }

  private void checkStripe(int stripe, int j) {
    tally.stripes.incrementAndGet();
    Cell[] cells = new Cell[width];
    int lost = 0;
    for (int i = 0; i < width; i++) {
      cells[i] = readers[i] == null ? Cell.ABSENT : badCells[i][j] ? Cell.BAD : Cell.GOOD;
      lost += cells[i] == Cell.GOOD ? 0 : 1;
    }
    if (mirror) {
      checkCopies(stripe, j, cells);
    } else if (lost > width - k) {
      lose(stripe, lost + " of its " + width + " cells are unusable");
    } else {
      checkParity(stripe, j, cells);
    }
  }

  private void checkCopies(int stripe, int j, Cell[] cells) {
    int first = -1;
    for (int i = 0; i < width && first < 0; i++) {
      first = cells[i] == Cell.GOOD ? i : -1;
    }
    if (first < 0) {
      lose(stripe, "no copy passes its CRC");
      return;
    }
    ByteBuffer keep = view(first, j);
    boolean mismatch = false;
    boolean fixed = true;
    for (int i = 0; i < width; i++) {
      if (i == first) {
        continue;
      }
      if (cells[i] == Cell.BAD) {
        repairCrc(i, stripe, keep);
      } else if (cells[i] == Cell.GOOD && keep.mismatch(view(i, j)) >= 0) {
        mismatch = true;
        fixed &= rewrite(i, stripe, keep, "differs from copy " + first);
      }
    }
    countMismatch(mismatch, fixed);
  }

  private void checkParity(int stripe, int j, Cell[] cells) {
    int m = width - k;
    ByteBuffer[] parity = buffers.parity(m, cellSize);
    boolean dataGood = true;
    for (int d = 0; d < k; d++) {
      dataGood &= cells[d] == Cell.GOOD;
    }
    if (dataGood) { // the data is authoritative: its CRCs hold and reads return it
      ByteBuffer[] data = new ByteBuffer[k];
      for (int d = 0; d < k; d++) {
        data[d] = view(d, j);
      }
      codec.encode(data, parity);
      boolean mismatch = false;
      boolean fixed = true;
      for (int p = k; p < width; p++) {
        if (cells[p] == Cell.BAD) {
          repairCrc(p, stripe, parity[p - k]);
        } else if (cells[p] == Cell.GOOD && parity[p - k].mismatch(view(p, j)) >= 0) {
          mismatch = true;
          fixed &= rewrite(p, stripe, parity[p - k], "disagrees with the data cells");
        }
      }
      countMismatch(mismatch, fixed);
      return;
    }
    int[] targets = IntStream.range(0, width).filter(i -> cells[i] != Cell.GOOD)
        .toArray();
    int wrong = -1; // a usable parity cell found wrong
    if (!reconstruct(j, cells, targets, -1, parity)) {
      int agreeing = 0;
      for (int p = k; p < width && targets.length < m; p++) {
        if (cells[p] == Cell.GOOD && reconstruct(j, cells, targets, p, parity)) {
          agreeing++;
          wrong = p;
        }
      }
      if (agreeing != 1) {
        lose(stripe, "its usable cells disagree and no single parity cell explains it");
        return;
      }
      reconstruct(j, cells, targets, wrong, parity);
    }
    for (int t : targets) {
      if (cells[t] == Cell.BAD) {
        repairCrc(t, stripe, buffers.scratch(t, cellSize));
      }
    }
    if (wrong >= 0) {
      countMismatch(true, rewrite(wrong, stripe, parity[wrong - k],
          "disagrees with the other cells of the stripe"));
    }
  }

  /**
   * Restores the {@code targets} of batch stripe j into the scratch buffers from the usable cells
   * except {@code leaveOut} (-1: none), re-encodes the parity from the resulting data cells into
   * {@code parity}, and returns whether every usable parity cell taken into account agrees.
   */
  private boolean reconstruct(int j, Cell[] cells, int[] targets, int leaveOut,
      ByteBuffer[] parity) {
    ByteBuffer[] shards = new ByteBuffer[width];
    for (int i = 0; i < width; i++) {
      shards[i] = i == leaveOut ? null : cells[i] == Cell.GOOD ? view(i, j) : null;
    }
    for (int t : targets) {
      shards[t] = buffers.scratch(t, cellSize);
    }
    codec.reconstruct(shards, targets);
    codec.encode(Arrays.copyOf(shards, k), parity);
    for (int p = k; p < width; p++) {
      if (p != leaveOut && cells[p] == Cell.GOOD && parity[p - k].mismatch(shards[p]) >= 0) {
        return false;
      }
    }
    return true;
  }

  private void repairCrc(int i, int stripe, ByteBuffer data) {
    if (rewrite(i, stripe, data, "failed its CRC32C")) {
      tally.crcErrorsRepaired.incrementAndGet();
    }
  }

  private void countMismatch(boolean mismatch, boolean fixed) {
    if (mismatch) {
      tally.parityMismatches.incrementAndGet();
      if (fixed) {
        tally.parityMismatchesRepaired.incrementAndGet();
      }
    }
  }

  /**
   * Rewrites cell {@code stripe} of shard i with the cell between {@code data}'s position and
   * limit; false when that failed.
   */
  private boolean rewrite(int i, int stripe, ByteBuffer data, String why) {
    ShardReader r = readers[i];
    if (r == null) {
      return false;
    }
    int slot = manifest.slotOf(i);
    try {
      r.rewriteCell(stripe, data.duplicate());
      ctx.invalidateReaders(manifest.objectId()); // cached readers hold the old CRC entry
      ctx.countRepair();
      LOG.log(System.Logger.Level.INFO, "object {0} version {1}: cell {2} of shard {3} on slot"
          + " {4} {5}: rewritten", hex(), manifest.version(), stripe, i, slot, why);
      return true;
    } catch (IOException e) {
      drop(i, e);
      return false;
    }
  }

  private void lose(int stripe, String why) {
    if (!unrecoverable) {
      LOG.log(System.Logger.Level.ERROR, "object {0} version {1}: stripe {2} is unrecoverable:"
          + " {3}; nothing written", hex(), manifest.version(), stripe, why);
    }
    unrecoverable = true;
  }

  /** Cell j of shard i's current batch: position and limit around it, the batch unmoved. */
  private ByteBuffer view(int i, int j) {
    return buffers.batch(i, 0).duplicate().limit((j + 1) * cellSize).position(j * cellSize);
  }

  // ---- the end ----

  /** Adds the per-object findings, unless the version is no longer the object's latest. */
  private Outcome finish(BooleanSupplier stopping) throws InterruptedException {
    long missing = 0;
    long away = 0;
    for (Shard s : state) {
      missing += s == Shard.MISSING ? 1 : 0;
      away += s == Shard.ON_FAILED_DRIVE ? 1 : 0;
    }
    // Listed before the check that the version is still the latest: a write committing after
    // the listing takes it off (Scrubber's listener), one before it is seen by the check.
    boolean listed = unrecoverable
        && tally.unrecoverable(manifest.objectId(), manifest.version());
    if ((missing > 0 || unrecoverable) && superseded()) {
      if (unrecoverable) {
        tally.withdraw(manifest.objectId(), manifest.version(), listed);
      }
      LOG.log(System.Logger.Level.DEBUG, "object {0} version {1} changed during the scrub",
          hex(), manifest.version());
      return Outcome.CHANGED;
    }
    if (missing > 0) {
      LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: {2} shards missing, need a"
          + " rebuild", hex(), manifest.version(), missing);
    }
    tally.missingShards.addAndGet(missing);
    for (int i = 0; i < width && missing > 0 && !unrecoverable; i++) {
      if (state[i] == Shard.MISSING) {
        recreate(i, stopping);
      }
    }
    tally.unavailableShards.addAndGet(away);
    return Outcome.COMPLETE;
  }

  /**
   * Writes shard {@code i}, missing on its live drive, from the survivors ({@link ShardRebuild}:
   * temp, publish and manifest under the object's lock, after a version check).
   */
  private void recreate(int i, BooleanSupplier stopping) throws InterruptedException {
    int slot = manifest.slotOf(i);
    Drive drive = ctx.drive(slot);
    if (drive == null) {
      return;
    }
    int perBatch = Math.max(1, Math.min(stripes, batchBytes / cellSize));
    ShardRebuild r = new ShardRebuild(ctx, catalog, manifest, i, drive, perBatch,
        stopping::getAsBoolean);
    try {
      r.run(n -> { });
      tally.shardsRecreated.incrementAndGet();
      LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: missing shard {2} on slot"
          + " {3} re-created from the survivors", hex(), manifest.version(), i, slot);
    } catch (ShardRebuild.Superseded | ShardRebuild.Stopped e) {
      // replaced, deleted or being written by another task meanwhile; or the scrub stops
    } catch (IOException e) {
      ctx.noteFailure(slot, e);
      LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: re-creating shard {2} on"
          + " slot {3} failed: {4}", hex(), manifest.version(), i, slot, e.getMessage());
    }
  }

  /** Whether a write or a delete replaced this version while it was being checked. */
  private boolean superseded() {
    try {
      Optional<ObjectManifest> now = catalog.stat(manifest.objectId());
      return now.isEmpty() || now.get().version() != manifest.version();
    } catch (IOException e) {
      return false; // stat notes drive failures itself; the findings stand
    }
  }

  private String hex() {
    return String.format("%016x", manifest.objectId());
  }
}
