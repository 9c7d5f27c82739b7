package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.format.ArrayError;
import java.io.IOException;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;

/**
 * The state of the store's data slots: which drive each slot holds, whether it failed, the
 * writers open on them, and the objects committed without their shard on a slot's drive (for
 * that drive's rebuild).
 *
 * <p><b>Lock story: there is no lock.</b> Every piece of a slot's state is one atomic value that
 * is replaced whole: its drive ({@link #drives}), its failed flag ({@link #failed}: set once by
 * compare-and-set, so a failure is noted and told to the listener once; cleared only by {@link
 * #attachDrive}), its record of missed shards ({@link #missed}: the drive it is for and the ids,
 * a concurrent set) and the set of open writers. What makes a rebuild of a newly attached drive
 * miss no object written around its attach is the order of the steps, each a single atomic
 * write or read:
 *
 * <ol>
 *   <li>{@link #attachDrive} installs the new drive's empty record <em>before</em> the drive goes
 *       live, so a writer that later reports a shard missed on it finds that record;
 *   <li>a writer registers ({@link #writerOpened}) <em>before</em> it looks its drives up, and
 *       deregisters ({@link #writerClosed}) only <em>after</em> its commit has reported every
 *       shard left off the drive its slot now holds ({@link #committedWithout});
 *   <li>the rebuild lists the objects, waits until {@link #writersSkipping} is zero, then takes
 *       the reported objects ({@link #takeMissedShards}), and repeats until none was reported.
 * </ol>
 *
 * A writer that opened before the attach either is still open when the rebuild polls (it waits)
 * or has reported its shards to the new drive's record (they are taken); a writer that opened
 * after it sees the new drive and writes its shard there. Thread-safe.
 */
public final class SlotTracker {
  private static final System.Logger LOG = System.getLogger(SlotTracker.class.getName());

  private final AtomicReferenceArray<Drive> drives;
  private final AtomicLongArray failed;
  /** Per slot: its drive and the objects committed without their shard on it (for its rebuild). */
  private final AtomicReferenceArray<MissedShards> missed;
  /** Writers between open and commit or abort; a rebuild waits for those that skip its drive. */
  private final Set<ObjectWriter> openWriters = ConcurrentHashMap.newKeySet();
  private final ShardReaderCache readerCache;
  private final AtomicLong driveFailures = new AtomicLong();
  private volatile IntConsumer failureListener = slot -> { };

  /** Objects committed, while {@code drive} was in their slot, without their shard on it. */
  private record MissedShards(Drive drive, Set<Long> objectIds) {
    MissedShards(Drive drive) {
      this(drive, ConcurrentHashMap.newKeySet());
    }
  }

  /**
   * Slots holding {@code drives} ({@code null}: slot failed or missing); {@code readerCache}
   * forgets a slot's readers when it fails or gets another drive.
   */
  SlotTracker(Drive[] drives, ShardReaderCache readerCache) {
    this.drives = new AtomicReferenceArray<>(drives.clone());
    this.failed = new AtomicLongArray(drives.length);
    this.missed = new AtomicReferenceArray<>(drives.length);
    for (int s = 0; s < drives.length; s++) {
      missed.set(s, new MissedShards(drives[s]));
    }
    this.readerCache = readerCache;
  }

  /** The number of data slots. */
  int dataSlots() {
    return drives.length();
  }

  /** Whether {@code slot} holds a drive that has not failed. */
  boolean alive(int slot) {
    return slot >= 0 && slot < drives.length() && drives.get(slot) != null && failed.get(slot) == 0;
  }

  /** The drive of {@code slot}, or null when it is absent or failed. */
  Drive drive(int slot) {
    return alive(slot) ? drives.get(slot) : null;
  }

  /** The drive installed in {@code slot}, failed or not (null: none); after {@link #alive}. */
  Drive installed(int slot) {
    return drives.get(slot);
  }

  /** Bit i set: slot i failed (DRIVE_IO) during this store's life, or was absent at open. */
  long failedSlots() {
    long mask = 0;
    for (int s = 0; s < drives.length(); s++) {
      if (drives.get(s) == null || failed.get(s) != 0) {
        mask |= 1L << s;
      }
    }
    return mask;
  }

  /**
   * Sets what to call (once per slot, on the I/O thread that saw it: hand heavy work to another
   * thread) when a drive fails ({@link ArrayError#DRIVE_IO}) and this store stops using it.
   */
  void onDriveFailure(IntConsumer listener) {
    this.failureListener = Objects.requireNonNull(listener, "listener");
  }

  /** Marks {@code slot} failed when {@code e} is a drive failure; returns e. */
  <E extends IOException> E noteFailure(int slot, E e) {
    if (Drive.isDriveFailure(e) && failed.compareAndSet(slot, 0, 1)) {
      readerCache.invalidateSlot(slot);
      try {
        failureListener.accept(slot);
      } catch (RuntimeException listenerFailure) {
        LOG.log(System.Logger.Level.ERROR, "drive failure listener failed", listenerFailure);
      }
      driveFailures.incrementAndGet();
      LOG.log(System.Logger.Level.WARNING, "slot {0} failed: {1}", slot, e.getMessage());
    }
    return e;
  }

  /**
   * Puts {@code drive} into {@code slot} (a replacement, or a hot spare taking the slot over) and
   * makes the slot live again; the drive previously there, if any, is closed. Objects whose shard
   * on the slot is absent read degraded until a rebuild writes it.
   */
  void attachDrive(int slot, Drive drive) {
    Objects.requireNonNull(drive, "drive");
    // Before the drive goes live: a writer reporting a shard missed on it finds its record.
    missed.set(slot, new MissedShards(drive));
    Drive old = drives.getAndSet(slot, drive);
    failed.set(slot, 0);
    readerCache.invalidateSlot(slot);
    if (old != null && old != drive) {
      try {
        old.close();
      } catch (IOException e) {
        LOG.log(System.Logger.Level.DEBUG, "closing the old drive of slot {0}: {1}", slot, e);
      }
    }
  }

  /**
   * Stops using {@code slot}'s drive (an admin failed it), as a drive failure would, without
   * calling the failure listener.
   */
  void detachDrive(int slot) {
    if (failed.compareAndSet(slot, 0, 1)) {
      readerCache.invalidateSlot(slot);
      LOG.log(System.Logger.Level.WARNING, "slot {0} taken out of service", slot);
    }
  }

  /** Registers a writer from its opening (before it looks its drives up) to its end. */
  void writerOpened(ObjectWriter w) {
    openWriters.add(w);
  }

  /** Ends {@link #writerOpened}; after a commit, once the writer reported its missed shards. */
  void writerClosed(ObjectWriter w) {
    openWriters.remove(w);
  }

  /** How many open writers leave {@code slot}'s shard off {@code drive} ({@code skips}). */
  public int writersSkipping(int slot, Drive drive) {
    int n = 0;
    for (ObjectWriter w : openWriters) {
      n += w.skips(slot, drive) ? 1 : 0;
    }
    return n;
  }

  /**
   * Called after {@code objectId}'s new version is committed (its manifest durable), with the
   * drive its shard on {@code slot} was published to ({@code null}: the shard was left out). When
   * the slot now holds another live drive (a replacement or a spare attached during the write),
   * the object is recorded for that drive's rebuild, which may have listed the objects before
   * this commit. A drive attached after this call lists the object itself.
   */
  void committedWithout(int slot, long objectId, Drive writtenTo) {
    MissedShards m = missed.get(slot);
    Drive now = drive(slot);
    if (now != null && now != writtenTo && m.drive() == now) {
      m.objectIds().add(objectId);
    }
  }

  /**
   * Takes the objects recorded by {@link #committedWithout} for {@code drive} in {@code slot}
   * (empty if the slot holds another drive now), for its rebuild to write their shards.
   */
  public Set<Long> takeMissedShards(int slot, Drive drive) {
    MissedShards m = missed.get(slot);
    Set<Long> taken = new TreeSet<>(Long::compareUnsigned);
    if (m.drive() != drive) {
      return taken;
    }
    for (Long id : m.objectIds()) {
      if (m.objectIds().remove(id)) {
        taken.add(id);
      }
    }
    return taken;
  }

  /** Empties every slot and returns the drives that were in them, for the caller to close. */
  Drive[] removeAll() {
    Drive[] all = new Drive[drives.length()];
    for (int s = 0; s < all.length; s++) {
      all[s] = drives.getAndSet(s, null);
    }
    return all;
  }

  /** Closes every non-null drive of {@code drives}; throws the first failure after trying all. */
  static void closeAll(Drive[] drives) throws IOException {
    IOException first = null;
    for (Drive d : drives) {
      if (d == null) {
        continue;
      }
      try {
        d.close();
      } catch (IOException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
