package io.parityfs.raid.array.repair;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveQueues;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ObjectLayout;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.ShardHeader;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.ManifestCatalog;
import io.parityfs.raid.array.object.ManifestFile;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ShardReader;
import io.parityfs.raid.array.object.ShardWriter;
import io.parityfs.raid.array.object.StoreContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * Restores one shard of one object version onto the drive being rebuilt: reads the surviving
 * shards in batches of stripes ({@link ShardReader#readRange}, one request per shard per batch,
 * paced by the store's {@link BackgroundThrottle}), reconstructs the missing cell of each stripe
 * (or copies a good mirror copy), and streams it into a {@link ShardWriter} on the new drive;
 * then finishes, publishes and writes the version's manifest there. The shard is written under its
 * temp name and published only when complete, so a crash or a stop leaves a temp file (deleted by
 * garbage collection, or truncated by the next attempt) or the whole shard.
 *
 * <p>Survivors: data shards are read first, then parity, only as many as needed (k good cells
 * per stripe). A corrupt cell (CRC mismatch) makes one more shard be read for that batch, and is
 * rewritten in place from the reconstruction; a shard that cannot be opened or fails (a drive
 * error marks its slot failed in the store) is dropped for the rest of the object. Fewer than k
 * good cells in a stripe is {@link ArrayError#OBJECT_LOST}.
 *
 * <p>Single use, one thread.
 */
final class ShardRebuild {
  private static final System.Logger LOG = System.getLogger(ShardRebuild.class.getName());

  /** Thrown (and caught by {@link Rebuilder}) when a newer version made this one obsolete. */
  static final class Superseded extends Exception {
    Superseded() {
      super(null, null, false, false);
    }
  }

  /** Whether to go on: false once the rebuild is asked to stop. */
  interface Stop {
    boolean requested();
  }

  /** Thrown when the rebuild was asked to stop part way through an object. */
  static final class Stopped extends Exception {
    Stopped() {
      super(null, null, false, false);
    }
  }

  /** Pacing granularity: a stop is noticed within one such piece at the throttled rate. */
  private static final long PACE_PIECE = 256 << 10;
  /** Marks a corrupt survivor cell in a stripe returned by {@link #readBatch}. */
  private static final ByteBuffer CORRUPT = ByteBuffer.allocate(0);

  private final StoreContext ctx;
  private final ManifestCatalog catalog;
  private final ObjectManifest manifest;
  private final int target;
  private final Drive out;
  private final ObjectLayout layout;
  private final int width;
  private final int k;
  private final boolean mirror;
  private final int cellSize;
  private final int batchStripes;
  private final ShardReader[] readers;
  private final String[] unavailable;
  private final ByteBuffer[] buffers;
  private final Stop stop;
  private long repaired;

  /**
   * @param target the shard index to restore (the one on the rebuilt slot)
   * @param out the drive being rebuilt
   * @param batchStripes stripes read per request
   * @param stop asked between batches and while pacing
   */
  ShardRebuild(StoreContext ctx, ManifestCatalog catalog, ObjectManifest manifest, int target, Drive out,
      int batchStripes, Stop stop) {
    this.stop = stop;
    this.ctx = ctx;
    this.catalog = catalog;
    this.manifest = manifest;
    this.target = target;
    this.out = out;
    this.layout = manifest.layout();
    this.width = layout.shards();
    this.k = layout.dataShards();
    this.mirror = layout.protection() instanceof Protection.Mirror;
    this.cellSize = layout.cellSize();
    this.batchStripes = Math.max(1, Math.min(batchStripes, Math.max(1, layout.stripes())));
    this.readers = new ShardReader[width];
    this.unavailable = new String[width];
    this.buffers = new ByteBuffer[width];
  }

  /** Corrupt survivor cells rewritten so far. */
  long repaired() {
    return repaired;
  }

  /**
   * Rebuilds the shard; {@code written} is told each cell's bytes as it is written.
   *
   * @throws ArrayException OBJECT_LOST when a stripe has fewer than k good cells; DRIVE_IO from
   *     the new drive (the caller's rebuild cannot go on)
   * @throws Superseded when a newer version was committed before the shard was published
   * @throws Stopped when {@code stop} said so
   */
  void run(LongConsumer written)
      throws IOException, InterruptedException, Superseded, Stopped {
    long id = manifest.objectId();
    long version = manifest.version();
    String name = ObjectFiles.shard(id, version, target);
    try {
      Instant created = manifest.created();
      for (int j = 0; j < width; j++) {
        if (j != target && open(j) != null) {
          created = readers[j].header().created(); // so the shard matches its siblings
          break;
        }
      }
      // The temp is created under the object's lock, after checking the version is still the
      // committed one, and claimed: no delete or garbage collection removes it, and no writer
      // opened later reuses its version (a writer picks a version above every file it lists,
      // temps included), so the name stays this rebuild's until it publishes or aborts.
      String tempName = ObjectFiles.temp(name);
      ShardWriter w;
      Runnable unlock = ctx.lockObject(id);
      try {
        if (superseded()) {
          throw new Superseded();
        }
        if (!ctx.claimTemp(out, tempName)) {
          throw new Superseded(); // another task is writing this shard right now
        }
        try {
          w = new ShardWriter(out, name,
              ShardHeader.of(id, version, target, layout, created, manifest.tag()));
        } catch (IOException | RuntimeException e) {
          ctx.releaseTemp(out, tempName);
          throw e;
        }
      } finally {
        unlock.run();
      }
      boolean published = false;
      unlock = null;
      try {
        ByteBuffer batch = out.allocateAligned(batchStripes * cellSize);
        for (int first = 0; first < layout.stripes(); first += batchStripes) {
          if (stop.requested()) {
            throw new Stopped();
          }
          int n = Math.min(batchStripes, layout.stripes() - first);
          ByteBuffer[][] stripes = readBatch(first, n);
          for (int s = 0; s < n; s++) {
            restore(first + s, stripes[s], batch.slice(s * cellSize, cellSize));
          }
          w.writeCells(batch.duplicate().position(0).limit(n * cellSize));
          written.accept((long) n * cellSize);
        }
        String temp = w.finish(manifest.objectLength(), layout.shardDataLength(target));
        // Publishing and the manifest happen under the object's lock, so no write or delete of
        // the object can slip between the version check and the manifest.
        unlock = ctx.lockObject(id);
        if (superseded()) {
          throw new Superseded();
        }
        ShardWriter.publish(out, temp, name);
        published = true;
        ManifestFile.write(out, manifest);
      } finally {
        try {
          if (!published) {
            abort(w);
          }
        } finally {
          ctx.releaseTemp(out, tempName);
          if (unlock != null) {
            unlock.run();
          }
        }
      }
      ctx.invalidateReaders(id);
    } finally {
      for (ShardReader r : readers) {
        close(r);
      }
    }
  }

  /**
   * Whether the object's latest committed version is no longer this one: a newer version, the
   * object deleted, or deleted and written again (versions restart at 0, so the whole manifest is
   * compared, its creation time included).
   */
  boolean superseded() throws IOException {
    return superseded(catalog, manifest);
  }

  /** Whether {@code m} is no longer the committed version of its object in {@code catalog}. */
  static boolean superseded(ManifestCatalog catalog, ObjectManifest m) throws IOException {
    return !catalog.stat(m.objectId()).map(m::equals).orElse(false);
  }

  /**
   * Reads stripes {@code [first, first + n)} from as few survivors as give every stripe k good
   * cells; returns per stripe the width entries of good cells (null: not read, bad, unavailable).
   */
  private ByteBuffer[][] readBatch(int first, int n)
      throws IOException, InterruptedException, Stopped {
    ByteBuffer[][] good = new ByteBuffer[n][width];
    boolean[][] corrupt = new boolean[n][width];
    int[] count = new int[n];
    long bytes = (long) n * cellSize;
    long at = (long) first * cellSize;
    // The first k survivors are read in parallel, one request per drive; more are read one by
    // one only when corrupt cells leave a stripe short of k good cells.
    Map<Integer, CompletableFuture<int[]>> pending =
        new HashMap<>();
    for (int j = 0; j < width && pending.size() < k; j++) {
      if (j != target && open(j) != null) {
        pending.put(j, null);
      }
    }
    pace(bytes * pending.size());
    for (int j : pending.keySet()) {
      ShardReader r = readers[j];
      ByteBuffer buf = buffer(j).clear();
      pending.put(j, ctx.queues().submit(manifest.slotOf(j), () -> r.readRange(at, bytes,
          buf)));
    }
    try {
      readSurvivors(first, n, good, corrupt, count, pending);
    } finally {
      for (CompletableFuture<int[]> f : pending.values()) {
        try {
          DriveQueues.join(f); // the buffers are reused by the next batch
        } catch (IOException e) {
          LOG.log(System.Logger.Level.DEBUG, "survivor read not used: {0}", e);
        }
      }
    }
    for (int s = 0; s < n; s++) {
      if (count[s] < k) {
        throw lost(first + s);
      }
    }
    // Corrupt cells ride along as repair targets: mark them so restore() rewrites them.
    for (int s = 0; s < n; s++) {
      for (int j = 0; j < width; j++) {
        if (corrupt[s][j]) {
          good[s][j] = CORRUPT;
        }
      }
    }
    return good;
  }

  /** Takes the survivors' cells, the pending parallel reads first, then more if needed. */
  private void readSurvivors(int first, int n, ByteBuffer[][] good, boolean[][] corrupt,
      int[] count, Map<Integer, CompletableFuture<int[]>> pending)
      throws IOException, InterruptedException, Stopped {
    long bytes = (long) n * cellSize;
    for (int j = 0; j < width && min(count) < k; j++) {
      if (j == target) {
        continue;
      }
      CompletableFuture<int[]> f = pending.remove(j);
      if (f == null && open(j) == null) {
        continue;
      }
      ByteBuffer buf = f != null ? buffers[j] : buffer(j).clear();
      int[] bad;
      try {
        if (f != null) {
          bad = DriveQueues.join(f);
        } else {
          pace(bytes);
          bad = readers[j].readRange((long) first * cellSize, bytes, buf);
        }
      } catch (IOException e) {
        drop(j, e);
        continue;
      }
      int b = 0;
      for (int s = 0; s < n; s++) {
        if (b < bad.length && bad[b] == first + s) {
          b++;
          corrupt[s][j] = true;
          LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: cell {2} of shard {3} on"
              + " slot {4} fails its checksum; rebuilding around it", hex(), manifest.version(),
              first + s, j, manifest.slotOf(j));
          continue;
        }
        good[s][j] = buf.duplicate().position(s * cellSize).limit((s + 1) * cellSize).slice();
        count[s]++;
      }
    }
  }

  /** Fills {@code cell} with the target's cell of {@code stripe}; repairs corrupt survivors. */
  private void restore(int stripe, ByteBuffer[] cells, ByteBuffer cell) {
    List<Integer> corrupt = new ArrayList<>();
    ByteBuffer[] shards = new ByteBuffer[width];
    ByteBuffer any = null;
    for (int j = 0; j < width; j++) {
      if (cells[j] == CORRUPT) {
        corrupt.add(j);
      } else if (cells[j] != null) {
        shards[j] = cells[j];
        any = any == null ? cells[j] : any;
      }
    }
    cell.clear();
    if (mirror) {
      cell.put(any.duplicate()).clear();
      for (int j : corrupt) {
        repair(j, stripe, any);
      }
      return;
    }
    int[] targets = new int[1 + corrupt.size()];
    targets[0] = target;
    shards[target] = cell;
    ByteBuffer[] repairs = new ByteBuffer[width];
    for (int t = 0; t < corrupt.size(); t++) {
      int j = corrupt.get(t);
      targets[t + 1] = j;
      repairs[j] = ByteBuffer.allocateDirect(cellSize);
      shards[j] = repairs[j];
    }
    ctx.codec().reconstruct(shards, targets);
    for (int j : corrupt) {
      repair(j, stripe, repairs[j]);
    }
  }

  private void repair(int shard, int stripe, ByteBuffer data) {
    ShardReader r = readers[shard];
    if (r == null) {
      return;
    }
    try {
      r.rewriteCell(stripe, data.duplicate().position(0).limit(cellSize));
      ctx.countRepair();
      repaired++;
      LOG.log(System.Logger.Level.INFO, "object {0} version {1}: repaired cell {2} of shard {3}"
          + " on slot {4}", hex(), manifest.version(), stripe, shard, manifest.slotOf(shard));
    } catch (IOException e) {
      ctx.noteFailure(manifest.slotOf(shard), e);
      LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: repairing cell {2} of shard"
          + " {3} failed: {4}", hex(), manifest.version(), stripe, shard, e.getMessage());
    }
  }

  /** The reader of survivor {@code j}, opened on first use; null when it is unavailable. */
  private ShardReader open(int j) {
    if (unavailable[j] != null) {
      return null;
    }
    if (readers[j] != null) {
      return readers[j];
    }
    int slot = manifest.slotOf(j);
    Drive d = ctx.drive(slot);
    if (d == null) {
      unavailable[j] = "slot " + slot + " is failed or missing";
      return null;
    }
    String name = ObjectFiles.shard(manifest.objectId(), manifest.version(), j);
    try {
      ShardReader r = ShardReader.open(d, name);
      ShardHeader h = r.header();
      if (!matches(h, manifest, j)) {
        close(r);
        unavailable[j] = "shard " + d.root().resolve(name) + " disagrees with the manifest: " + h;
        return null;
      }
      readers[j] = r;
      return r;
    } catch (NoSuchFileException e) {
      unavailable[j] = "shard " + d.root().resolve(name) + " is missing";
    } catch (IOException e) {
      drop(j, e);
    }
    return null;
  }

  /** Whether {@code h} is the header of shard {@code shard} of the version {@code m} describes. */
  static boolean matches(ShardHeader h, ObjectManifest m, int shard) {
    return h.objectId() == m.objectId() && h.objectVersion() == m.version()
        && h.shardIndex() == shard && h.objectLength() == m.objectLength()
        && h.cellSize() == m.cellSize() && h.protection().equals(m.protection())
        && h.created().equals(m.created()); // not another incarnation's (versions restart at 0)
  }

  private void drop(int j, IOException e) {
    int slot = manifest.slotOf(j);
    ctx.noteFailure(slot, e);
    unavailable[j] = e.getMessage();
    LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: shard {2} on slot {3}"
        + " unavailable for the rebuild: {4}", hex(), manifest.version(), j, slot, e.getMessage());
    close(readers[j]);
    readers[j] = null;
  }

  private ByteBuffer buffer(int j) {
    if (buffers[j] == null) {
      buffers[j] = out.allocateAligned(batchStripes * cellSize);
    }
    return buffers[j];
  }

  private ArrayException lost(int stripe) {
    StringBuilder why = new StringBuilder();
    for (int j = 0; j < width; j++) {
      if (j == target) {
        why.append("; shard ").append(j).append(" (slot ").append(manifest.slotOf(j))
            .append("): being rebuilt");
      } else if (unavailable[j] != null) {
        why.append("; shard ").append(j).append(" (slot ").append(manifest.slotOf(j))
            .append("): ").append(unavailable[j]);
      }
    }
    return new ArrayException(ArrayError.OBJECT_LOST, null, String.format(
        "object %s version %d stripe %d cannot be rebuilt: fewer than %d of its %d shards are"
            + " readable (%s tolerates %d lost)%s", hex(), manifest.version(), stripe, k, width,
        manifest.protection(), manifest.protection().tolerates(), why));
  }

  /** Takes {@code bytes} from the store's throttle, in pieces, giving up when stopped. */
  private void pace(long bytes) throws InterruptedException, Stopped {
    BackgroundThrottle t = ctx.throttle();
    for (long left = bytes; left > 0; left -= PACE_PIECE) {
      if (stop.requested()) {
        throw new Stopped();
      }
      t.acquire(Math.min(left, PACE_PIECE));
    }
  }

  private static int min(int[] a) {
    int m = Integer.MAX_VALUE;
    for (int x : a) {
      m = Math.min(m, x);
    }
    return m;
  }

  private static void abort(ShardWriter w) {
    try {
      w.abort();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "aborting {0}: {1}", w.tempName(), e);
    }
  }

  private static void close(ShardReader r) {
    if (r == null) {
      return;
    }
    try {
      r.close();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "closing {0}: {1}", r.name(), e);
    }
  }

  private String hex() {
    return String.format("%016x", manifest.objectId());
  }
}
