package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveQueues;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.codec.ParityCodec;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the parts of one {@link ObjectStore} share: the array's configuration, codec and
 * placement, the slots and their drives ({@link SlotTracker}) with the failure accounting, the
 * I/O engine (per-drive queues, buffers, cached shard readers, the background throttle), the
 * per-object writer locks with the temp files background work claimed, and the counters. The
 * store's helpers ({@link ObjectWriter}, {@link RangeRead}, {@code ShardRebuild}, {@code
 * ObjectScrub}, {@code Rebuilder}, ...) take this instead of the store, so that none of them
 * calls back into the store's public operations. Thread-safe.
 */
public final class StoreContext {
  private static final System.Logger LOG = System.getLogger(StoreContext.class.getName());
  /** Idle bytes each pool of {@link #lendable} buffers keeps for reuse. */
  private static final int LENDABLE_KEPT_BYTES = 64 << 20;

  private final ArrayConfig config;
  private final ParityCodec codec;
  private final DrivePlacement placement;
  private final StoreOptions options;
  private final DriveQueues queues;
  private final BufferPool buffers;
  /** Smaller buffers for reads that lend their bytes ({@link #lendable}), by size, ascending. */
  private final BufferPool[] lendable;
  private final ShardReaderCache readerCache = new ShardReaderCache(1024);
  private final SlotTracker slots;
  private final ObjectLocks locks = new ObjectLocks();
  /**
   * Temp files that background work (a rebuild) is writing outside the object's lock, by path:
   * deletes and garbage collection leave them to their owner, which deletes or publishes them
   * itself.
   */
  private final Set<String> claimedTemps = ConcurrentHashMap.newKeySet();
  private final AtomicLong cellsRepaired = new AtomicLong();
  private final AtomicLong degradedReads = new AtomicLong();
  private volatile BackgroundThrottle throttle = BackgroundThrottle.UNLIMITED;
  private final List<ObjectChangeListener> changeListeners = new CopyOnWriteArrayList<>();

  /**
   * The context of a store over {@code drives}, indexed by data slot ({@code null}: slot failed
   * or missing), protected as {@code config} says; {@code codec} computes the parity (null for a
   * mirror).
   */
  StoreContext(ArrayConfig config, Drive[] drives, ParityCodec codec, StoreOptions options) {
    if (config.protection() instanceof Protection.Parity p) {
      if (codec == null || !codec.geometry().equals(p.geometry())) {
        throw new IllegalArgumentException("codec (" + (codec == null ? null : codec.geometry())
            + ") must be for " + p.geometry());
      }
    }
    this.config = config;
    this.codec = codec;
    this.placement = DrivePlacement.of(drives.length, config.protection().width());
    this.slots = new SlotTracker(drives, readerCache);
    this.options = Objects.requireNonNull(options, "options");
    this.queues = new DriveQueues(drives.length, options.threadsPerDrive());
    this.buffers = new BufferPool(options.stripesPerBatch(config.cellSize()) * config.cellSize(),
        Math.min(512, 4 * drives.length * options.threadsPerDrive()));
    List<BufferPool> classes = new ArrayList<>();
    for (int size = buffers.bufferBytes(); ; size /= 2) {
      // lent buffers wait in outbound frames, so more of them are out at once than windows
      // are read: each size keeps up to LENDABLE_KEPT_BYTES idle for reuse (the node benchmark's
      // 8 streams allocated 108 of 256 KiB in all, then reused them), 16 to 1024 buffers
      int kept = Math.min(1024, Math.max(16, LENDABLE_KEPT_BYTES / size));
      classes.add(0, new BufferPool(size, kept));
      if (size % 8192 != 0) {
        break; // half of it would not be a whole number of 4 KiB blocks
      }
    }
    this.lendable = classes.toArray(new BufferPool[0]);
  }

  /** The array's configuration. */
  ArrayConfig config() {
    return config;
  }

  public ParityCodec codec() {
    return codec;
  }

  /** The placement of objects over the data slots. */
  DrivePlacement placement() {
    return placement;
  }

  /** How this store drives its I/O. */
  StoreOptions options() {
    return options;
  }

  /** The per-drive request queues. */
  public DriveQueues queues() {
    return queues;
  }

  /** Aligned buffers of one read window per shard ({@link StoreOptions#stripesPerBatch} cells). */
  BufferPool buffers() {
    return buffers;
  }

  /**
   * Aligned buffers of at least {@code bytes} (at most a window, {@link #buffers}) for a read
   * that lends its views to the caller ({@link PieceSink}): the smallest of the window halved
   * down to 4 KiB that fits, so a lent read holds about what it sends, not a whole window per
   * shard.
   */
  BufferPool lendable(int bytes) {
    for (BufferPool p : lendable) {
      if (p.bufferBytes() >= bytes) {
        return p;
      }
    }
    return buffers;
  }

  /** Open shard readers kept between reads. */
  ShardReaderCache readerCache() {
    return readerCache;
  }

  /**
   * Forgets the cached readers of {@code objectId}'s files: call after changing a shard file by
   * other means than a read of this store (a scrub's repair, a rebuild).
   */
  public void invalidateReaders(long objectId) {
    readerCache.invalidate(objectId);
  }

  /** The slots, their drives, and the writers and rebuilds that track them. */
  public SlotTracker slots() {
    return slots;
  }

  /** The throttle pacing background work (rebuild, scrub) against foreground requests. */
  public BackgroundThrottle throttle() {
    return throttle;
  }

  /** Replaces the throttle; see {@link BackgroundThrottle}. */
  void throttle(BackgroundThrottle throttle) {
    this.throttle = Objects.requireNonNull(throttle, "throttle");
  }

  // ---- slots and failure accounting (see SlotTracker) ----

  /** The number of data slots. */
  public int dataSlots() {
    return slots.dataSlots();
  }

  /** Whether {@code slot} holds a drive that has not failed. */
  boolean alive(int slot) {
    return slots.alive(slot);
  }

  /** The drive of {@code slot}, or null when it is absent or failed. */
  public Drive drive(int slot) {
    return slots.drive(slot);
  }

  /** Bit i set: slot i failed (DRIVE_IO) during this store's life, or was absent at open. */
  public long failedSlots() {
    return slots.failedSlots();
  }

  /** Marks {@code slot} failed when {@code e} is a drive failure; returns e. */
  public <E extends IOException> E noteFailure(int slot, E e) {
    return slots.noteFailure(slot, e);
  }

  /** A call on one drive. */
  interface DriveCall<T> {
    T call() throws IOException;
  }

  /**
   * Runs {@code call} on {@code slot}'s drive; a drive failure marks the slot failed and gives
   * {@code fallback} (the caller goes on without the drive); other errors propagate.
   */
  <T> T tolerant(int slot, DriveCall<T> call, T fallback) throws IOException {
    try {
      return call.call();
    } catch (IOException e) {
      if (!Drive.isDriveFailure(e)) {
        throw e;
      }
      noteFailure(slot, e);
      return fallback;
    }
  }

  /** Runs {@code call} on {@code slot}'s drive; a drive failure marks the slot failed. */
  <T> T guard(int slot, DriveCall<T> call) throws IOException {
    try {
      return call.call();
    } catch (IOException e) {
      throw noteFailure(slot, e);
    }
  }

  /**
   * Refuses the write when more drives of the placement are unavailable than the protection
   * tolerates ({@code dropped[i]}: shard i is not being written).
   */
  void checkEnoughDrives(long objectId, int[] slots, boolean[] dropped)
      throws ArrayException {
    int lost = 0;
    StringBuilder which = new StringBuilder();
    for (int i = 0; i < slots.length; i++) {
      if (dropped[i]) {
        lost++;
        which.append(which.length() == 0 ? "" : ", ").append(slots[i]);
      }
    }
    int tolerates = config.protection().tolerates();
    if (lost > tolerates) {
      throw new ArrayException(ArrayError.NOT_ENOUGH_DRIVES, null, String.format(
          "object %016x: %d drives of its placement %s are unavailable (slots %s); %s tolerates"
              + " %d", objectId, lost, Arrays.toString(slots), which,
          config.protection(), tolerates));
    }
  }

  // ---- object locks and claimed temps ----

  /** The per-object writer locks (held by writers, overwrites, appends, deletes, collection). */
  ObjectLocks locks() {
    return locks;
  }

  /**
   * Takes the object's writer lock (the one {@link ObjectStore#openWriter}, overwrite, append and
   * delete hold) and returns the unlock; for background work that publishes files of the object.
   */
  public Runnable lockObject(long objectId) throws InterruptedIOException {
    return locks.lock(objectId);
  }

  /**
   * Marks temp file {@code name} on {@code drive} as owned by its (background) writer until
   * {@link #releaseTemp}; call under the object's lock, before creating the file, so no delete
   * or garbage collection removes it and no writer reuses its version meanwhile. False when
   * another task (a rebuild, a scrub) has it already.
   */
  public boolean claimTemp(Drive drive, String name) {
    return claimedTemps.add(drive.root().resolve(name).toString());
  }

  /** Ends {@link #claimTemp}: the temp was published or deleted. */
  public void releaseTemp(Drive drive, String name) {
    claimedTemps.remove(drive.root().resolve(name).toString());
  }

  /** Whether {@code name} on {@code d} is a temp another task owns ({@link #claimTemp}). */
  boolean claimed(Drive d, ObjectFiles.Name name, String fileName) {
    return name.temp() && claimedTemps.contains(d.root().resolve(fileName).toString());
  }

  // ---- changes of objects' latest versions ----

  /**
   * Calls {@code listener} on every commit of a new version and every delete of an object from
   * now on, for the store's life (see {@link ObjectChangeListener}).
   */
  public void onObjectChange(ObjectChangeListener listener) {
    changeListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Tells the listeners that {@code version} of {@code objectId} was committed. */
  void objectCommitted(long objectId, long version) {
    for (ObjectChangeListener l : changeListeners) {
      try {
        l.committed(objectId, version);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "object " + String.format("%016x", objectId)
            + ": a listener failed on the commit of version " + version, e);
      }
    }
  }

  /** Tells the listeners that {@code objectId} was deleted. */
  void objectDeleted(long objectId) {
    for (ObjectChangeListener l : changeListeners) {
      try {
        l.deleted(objectId);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "object " + String.format("%016x", objectId)
            + ": a listener failed on its delete", e);
      }
    }
  }

  // ---- counters ----

  public void countRepair() {
    cellsRepaired.incrementAndGet();
  }

  void countDegraded() {
    degradedReads.incrementAndGet();
  }

  /** Cells found bad (CRC mismatch) and rewritten from parity or another copy. */
  long cellsRepaired() {
    return cellsRepaired.get();
  }

  /** Cell reads served by a reconstruction from parity, or by another mirror copy. */
  long degradedReads() {
    return degradedReads.get();
  }

  /** Empties the slots, stops the queues and the reader cache, and closes the drives. */
  void close() throws IOException {
    Drive[] all = slots.removeAll();
    queues.close();
    readerCache.close();
    SlotTracker.closeAll(all);
  }
}
