package io.parityfs.raid.array;

import io.parityfs.raid.array.assembly.ArrayHealth;
import io.parityfs.raid.array.assembly.ArrayLabels;
import io.parityfs.raid.array.assembly.ArraySlot;
import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.array.assembly.AssembledArray;
import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveLocks;
import io.parityfs.raid.array.drive.DriveQueues;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.array.repair.GarbageSchedule;
import io.parityfs.raid.array.repair.RebuildProgress;
import io.parityfs.raid.array.repair.Rebuilder;
import io.parityfs.raid.array.repair.ScrubReport;
import io.parityfs.raid.array.repair.ScrubSchedule;
import io.parityfs.raid.array.repair.Scrubber;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A running array: its labels, its {@link ObjectStore}, and the admin work that keeps it healthy.
 * This is what a storage node holds per storage target.
 *
 * <ul>
 *   <li><b>Open</b> ({@link #create}, {@link #open}): assembles the drives from their labels, fails
 *       MISSING slots in the labels (so a drive that comes back later is stale, not trusted with
 *       outdated shards), opens the store, collects its garbage ({@link
 *       ObjectStore#collectGarbage}) and then resumes every rebuild the labels record. Each
 *       member drive is locked exclusively ({@link DriveLocks}) until {@link #close}: a second
 *       open of one of them fails with {@link ArrayError#DRIVE_IN_USE}.
 *   <li><b>Drive failure</b>: when the store sees a drive fail ({@link ArrayError#DRIVE_IO}) or an
 *       admin calls {@link #failDrive}, the slot is marked FAILED in the labels (a generation
 *       bump); if a hot spare is present it takes the slot over ({@link
 *       ArrayLabels#promoteSpare}) and a rebuild starts at once.
 *   <li><b>Replacement</b> ({@link #replaceDrive}): a blank drive takes a FAILED or MISSING slot and
 *       is rebuilt.
 *   <li><b>Rebuild</b>: one {@link Rebuilder} per slot being rebuilt, paced by the store's
 *       {@link BackgroundThrottle}; when it completes the slot is marked ONLINE ({@link
 *       ArrayLabels#finishRebuild}). {@link #rebuilds()} gives the progress of each, {@link
 *       #endedRebuilds()} the result of the last one of each slot. A rebuild that
 *       ends FAILED while its drive is healthy is planned again after a backoff (doubling, at
 *       most {@link #MAX_REBUILD_ATTEMPTS} attempts in a row).
 *   <li><b>Scrub</b>: {@link #scrub()} on demand, {@link #scheduleScrub} on a schedule.
 *   <li><b>Garbage</b>: collected at open, and then every interval if {@link
 *       #scheduleGarbageCollection} was called (a long-lived node).
 * </ul>
 *
 * Label changes run one at a time on an admin thread, never on an I/O thread. Thread-safe.
 */
public final class RaidArray implements Closeable {
  private static final System.Logger LOG = System.getLogger(RaidArray.class.getName());

  /** Attempts of a slot's rebuild that end FAILED (the new drive healthy) before giving up. */
  static final int MAX_REBUILD_ATTEMPTS = 8;

  /** Opens a drive directory as the array's {@link Drive}; tests wrap it with faults. */
  interface DriveOpener {
    Drive open(Path dir) throws IOException;
  }

  static final DriveOpener FILE_DRIVES = dir -> FileDrive.open(dir, Drive.IoMode.DIRECT);

  private final ObjectStore store;
  private final DriveOpener opener;
  private final ScheduledExecutorService admin;
  private final Map<Integer, Rebuilder> rebuilds = new ConcurrentHashMap<>();
  /** Per slot, the final progress of its last rebuild that ended: see {@link #endedRebuilds}. */
  private final Map<Integer, RebuildProgress> ended = new ConcurrentHashMap<>();
  /** Per slot: the rebuild attempts that ended FAILED in a row (admin thread). */
  private final Map<Integer, Integer> failedAttempts = new ConcurrentHashMap<>();
  /** The wait before the first retry of a failed rebuild; doubled per attempt, up to 64 times. */
  private volatile Duration retryBackoff = Duration.ofSeconds(1);
  private final long garbageAtOpen;
  /** The drive directories' exclusive locks, held from open to close. */
  private final DriveLocks locks;
  private final Scrubber scrubber;
  private volatile AssembledArray labels;
  private volatile ScrubSchedule schedule;
  private volatile GarbageSchedule garbageSchedule;
  private volatile boolean closed;

  private RaidArray(AssembledArray labels, ObjectStore store, DriveOpener opener,
      long garbageAtOpen, DriveLocks locks) {
    this.locks = locks;
    this.labels = labels;
    this.store = store;
    this.opener = opener;
    this.garbageAtOpen = garbageAtOpen;
    this.scrubber = new Scrubber(store);
    ScheduledThreadPoolExecutor pool =
        new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "pfs-array-admin-" + labels.arrayId().toString().substring(0, 8));
      t.setDaemon(true);
      return t;
    });
    pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // pending retries: dropped
    this.admin = pool;
  }

  /**
   * Creates an array on blank drives ({@link ArrayLabels#create}) and opens it.
   *
   * @throws ArrayException NOT_EMPTY when a drive is labelled or holds files
   */
  public static RaidArray create(ArrayConfig config, List<Path> drives, ParityCodecFactory codecs,
      StoreOptions options) throws IOException {
    DriveLocks locks = new DriveLocks();
    try {
      for (Path d : drives) {
        locks.lock(d);
      }
      return start(ArrayLabels.create(config, drives), codecs, options, FILE_DRIVES, locks);
    } catch (IOException | RuntimeException e) {
      locks.close();
      throw e;
    }
  }

  /**
   * Assembles the array found among {@code candidates} (any order; {@code arrayId} empty: the only
   * array there) and opens it; see the class comment for what opening does.
   */
  public static RaidArray open(Collection<Path> candidates, Optional<UUID> arrayId,
      ParityCodecFactory codecs, StoreOptions options) throws IOException {
    return open(candidates, arrayId, codecs, options, FILE_DRIVES);
  }

  /** {@link #open}, with the drives opened by {@code opener} (tests). */
  static RaidArray open(Collection<Path> candidates, Optional<UUID> arrayId,
      ParityCodecFactory codecs, StoreOptions options, DriveOpener opener) throws IOException {
    AssembledArray a = arrayId.isPresent() ? ArrayLabels.assemble(candidates, arrayId.get())
        : ArrayLabels.assemble(candidates);
    DriveLocks locks = new DriveLocks();
    try {
      for (ArraySlot slot : a.slots()) {
        if (slot.drivePath().isPresent()) {
          locks.lock(slot.drivePath().get()); // before anything is written on them
        }
      }
      return start(a, codecs, options, opener, locks);
    } catch (IOException | RuntimeException e) {
      locks.close();
      throw e;
    }
  }

  private static RaidArray start(AssembledArray a, ParityCodecFactory codecs,
      StoreOptions options, DriveOpener opener, DriveLocks locks) throws IOException {
    int[] missing = slotsIn(a, DriveState.MISSING);
    if (missing.length > 0) {
      LOG.log(System.Logger.Level.WARNING, "array {0}: slots {1} missing; failing them in the"
          + " labels", a.arrayId(), Arrays.toString(missing));
      a = ArrayLabels.markFailed(a, missing);
    }
    ObjectStore store = ObjectStore.open(a, codecs, options, opener::open);
    long garbage;
    try {
      // Before any rebuild or spare starts: the collection deletes every temp file it finds,
      // and rolls manifests forward onto the drives that lack them.
      garbage = store.collectGarbage();
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
    RaidArray array = new RaidArray(a, store, opener, garbage, locks);
    store.onDriveFailure(array::driveFailed);
    for (int slot : slotsIn(a, DriveState.REBUILDING)) {
      LOG.log(System.Logger.Level.INFO, "array {0}: resuming the rebuild of slot {1}",
          a.arrayId(), slot);
      array.startRebuild(slot);
    }
    for (int slot : slotsIn(a, DriveState.FAILED)) {
      array.admin.submit(() -> {
        try {
          return array.useSpare(slot);
        } catch (IOException | RuntimeException e) {
          LOG.log(System.Logger.Level.ERROR, "array {0}: a spare for slot {1}: {2}", array.id(),
              slot, e.toString());
          return null;
        }
      });
    }
    return array;
  }

  /** The object store: reads and writes. */
  public ObjectStore store() {
    return store;
  }

  /**
   * The files {@link ObjectStore#collectGarbage} deleted when the array opened (it runs then,
   * before any rebuild resumes; later passes are {@link #scheduleGarbageCollection}'s).
   */
  public long garbageAtOpen() {
    return garbageAtOpen;
  }

  /** The array's id. */
  public UUID id() {
    return labels.arrayId();
  }

  /** The labels as of the last membership change: configuration, generation, slots. */
  public AssembledArray labels() {
    return labels;
  }

  /**
   * Each slot's state now: the labels' view, with a slot the store stopped using (a drive failure
   * not yet recorded in the labels) shown FAILED.
   */
  public DriveState[] driveStates() {
    DriveState[] d = labels.driveStates();
    long failedNow = store.failedSlots();
    for (int s = 0; s < labels.dataSlots(); s++) {
      if ((failedNow & (1L << s)) != 0 && d[s] != DriveState.MISSING) {
        d[s] = DriveState.FAILED;
      }
    }
    return d;
  }

  /** OPTIMAL, DEGRADED, REBUILDING or FAILED (see {@link ArrayHealth#arrayState}). */
  public ArrayState state() {
    DriveState[] data = Arrays.copyOf(driveStates(), labels.dataSlots());
    return ArrayHealth.arrayState(data, labels.config().protection().tolerates(),
        !rebuilds.isEmpty());
  }

  /** The rebuilds running (or just ended), by slot, with their progress. */
  public Map<Integer, RebuildProgress> rebuilds() {
    Map<Integer, RebuildProgress> out = new TreeMap<>();
    rebuilds.forEach((slot, r) -> out.put(slot, r.progress()));
    return out;
  }

  /**
   * The result of each slot's last rebuild that ended (DONE, STOPPED or FAILED), by slot: its
   * final progress (objects, bytes, time taken). What an admin asks after the end, since
   * {@link #rebuilds()} drops a rebuild once it ended: a fast one can end before anyone polls.
   * A slot's result is put here before its rebuild leaves {@link #rebuilds()} (so a poll finds
   * the slot in one or the other) and dropped when the slot is rebuilt again or fails.
   */
  public Map<Integer, RebuildProgress> endedRebuilds() {
    return new TreeMap<>(ended);
  }

  /**
   * Marks {@code slot} FAILED (an admin's decision, or a drive the node distrusts): the store
   * stops using it, the labels record it, and a hot spare takes over if there is one. Refused
   * when it would leave more data slots unavailable (failed, missing or still rebuilding) than
   * the protection tolerates; see {@link #failDrive(int, boolean)}.
   *
   * @throws IllegalStateException when failing the slot would exceed the array's tolerance
   */
  public void failDrive(int slot) throws IOException {
    failDrive(slot, false);
  }

  /**
   * {@link #failDrive(int)}; {@code force} fails the slot even when that leaves the array beyond
   * its tolerance (FAILED: objects with more shards there than the protection tolerates are
   * unreadable, and the failed slots' drives are stale at the next assembly).
   *
   * @throws IllegalStateException when force is false and failing the slot would leave more
   *     data slots unavailable than the protection tolerates (the message names them)
   */
  public void failDrive(int slot, boolean force) throws IOException {
    checkDataSlot(slot);
    admin(() -> {
      if (!force) {
        checkTolerance(slot);
      }
      Rebuilder r = rebuilds.remove(slot);
      if (r != null) {
        r.stop();
      }
      ended.remove(slot);
      store.detachDrive(slot);
      recordFailure(slot);
      useSpare(slot);
      return null;
    });
  }

  /**
   * Puts the blank drive {@code newDrive} into the FAILED or MISSING data slot {@code slot} and
   * starts its rebuild. {@code force} reuses a drive that holds a label or files (they are kept).
   *
   * @throws IllegalArgumentException when the slot is ONLINE, REBUILDING or a spare slot
   * @throws ArrayException NOT_EMPTY when the drive is not blank and force is false
   */
  public Rebuilder replaceDrive(int slot, Path newDrive, boolean force) throws IOException {
    checkDataSlot(slot);
    return admin(() -> {
      if ((store.failedSlots() & (1L << slot)) != 0
          && labels.slot(slot).state() == DriveState.ONLINE) {
        recordFailure(slot);
      }
      locks.lock(newDrive);
      labels = ArrayLabels.replaceDrive(labels, slot, newDrive, force);
      store.attachDrive(slot, opener.open(newDrive));
      failedAttempts.remove(slot);
      return startRebuild(slot);
    });
  }

  /** Stops the rebuild of {@code slot}, if one runs; it resumes at the next open. */
  public void stopRebuild(int slot) {
    Rebuilder r = rebuilds.get(slot);
    if (r != null) {
      r.stop();
    }
  }

  /** The scrubber: {@link Scrubber#run} checks every object now; progress while it runs. */
  public Scrubber scrubber() {
    return scrubber;
  }

  /** Runs a scrub now and returns its report. */
  public ScrubReport scrub() {
    return scrubber.run();
  }

  /** Scrubs every {@code interval} from now on (replacing an earlier schedule). */
  public synchronized ScrubSchedule scheduleScrub(Duration interval) {
    if (schedule != null) {
      schedule.close();
    }
    schedule = ScrubSchedule.start(scrubber, interval);
    return schedule;
  }

  /**
   * Collects garbage every {@code interval} while the array is open ({@link
   * ObjectStore#collectGarbageOnline}: safe alongside writes, deletes, rebuilds and scrubs),
   * replacing the schedule already running, if any; the first pass one interval from now.
   *
   * @throws IllegalArgumentException when the interval is not positive
   */
  public synchronized GarbageSchedule scheduleGarbageCollection(Duration interval) {
    if (garbageSchedule != null) {
      garbageSchedule.close();
    }
    garbageSchedule = GarbageSchedule.start(store, interval);
    return garbageSchedule;
  }

  /** The running garbage collection schedule, if any. */
  public Optional<GarbageSchedule> garbageSchedule() {
    return Optional.ofNullable(garbageSchedule);
  }

  /** Stops the background work (rebuilds resume at the next open) and closes the drives. */
  @Override
  public void close() throws IOException {
    closed = true;
    ScrubSchedule s = schedule;
    if (s != null) {
      s.close();
    }
    GarbageSchedule g = garbageSchedule;
    if (g != null) {
      g.close();
    }
    scrubber.stop();
    rebuilds.values().forEach(Rebuilder::stop);
    for (Rebuilder r : rebuilds.values()) {
      try {
        r.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    admin.shutdown();
    try {
      // Label changes already queued (a rebuild that just ended) finish before the drives are
      // closed and unlocked: the next open must not race them on the label files.
      if (!admin.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.log(System.Logger.Level.WARNING, "array {0}: admin thread still busy at close",
            id());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      store.close();
    } finally {
      locks.close();
    }
  }

  // ---- internals ----

  /** Refuses to fail {@code slot} when that would leave the array beyond its tolerance. */
  private void checkTolerance(int slot) {
    DriveState[] states = driveStates();
    List<Integer> unavailable = new ArrayList<>();
    for (int s = 0; s < labels.dataSlots(); s++) {
      if (states[s] != DriveState.ONLINE) {
        unavailable.add(s);
      }
    }
    if (unavailable.contains(slot)) {
      return; // already not serving all its shards: failing it loses nothing more
    }
    int tolerates = labels.config().protection().tolerates();
    if (unavailable.size() + 1 > tolerates) {
      StringBuilder which = new StringBuilder();
      for (int s : unavailable) {
        which.append(which.length() == 0 ? "" : ", ").append(s).append(' ').append(states[s]);
      }
      throw new IllegalStateException(String.format("failing slot %d of array %s would leave %d"
          + " data slots unavailable (slot %d and %s), more than %s tolerates (%d): refused;"
          + " force it to fail the slot anyway", slot, id(), unavailable.size() + 1, slot,
          unavailable.isEmpty() ? "none other" : "slots " + which, labels.config().protection(),
          tolerates));
    }
  }

  /** Called by the store on an I/O thread when it stops using a drive. */
  private void driveFailed(int slot) {
    if (closed) {
      return;
    }
    admin.submit(() -> {
      try {
        Rebuilder r = rebuilds.remove(slot);
        if (r != null) {
          r.stop(); // its target failed
        }
        ended.remove(slot);
        recordFailure(slot);
        useSpare(slot);
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "array {0}: handling the failure of slot {1}: {2}",
            id(), slot, e.toString());
      }
      return null;
    });
  }

  /** Records slot as failed in the labels unless they already say so (admin thread). */
  private void recordFailure(int slot) throws IOException {
    if (labels.slot(slot).state() == DriveState.FAILED) {
      return;
    }
    labels = ArrayLabels.markFailed(labels, slot);
    LOG.log(System.Logger.Level.WARNING, "array {0}: slot {1} marked FAILED (generation {2});"
        + " array {3}", id(), slot, labels.generation(), state());
  }

  /** Lets a hot spare take the failed slot and rebuild it, if there is one (admin thread). */
  private Void useSpare(int slot) throws IOException {
    Optional<ArraySlot> spare = labels.spare();
    if (closed || spare.isEmpty() || labels.slot(slot).state() != DriveState.FAILED) {
      return null;
    }
    Path drive = spare.get().drive();
    labels = ArrayLabels.promoteSpare(labels, slot);
    LOG.log(System.Logger.Level.WARNING, "array {0}: hot spare {1} takes over slot {2}", id(),
        drive, slot);
    store.attachDrive(slot, opener.open(drive));
    failedAttempts.remove(slot);
    startRebuild(slot);
    return null;
  }

  /** Starts rebuilding {@code slot} (its drive attached) and watches for the end. */
  private Rebuilder startRebuild(int slot) {
    Rebuilder r = new Rebuilder(store, slot);
    rebuilds.put(slot, r);
    ended.remove(slot);
    r.start();
    Thread watcher = new Thread(() -> {
      try {
        RebuildProgress p = r.await();
        if (!closed) {
          admin.submit(() -> rebuildEnded(slot, r, p));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "pfs-rebuild-watch-" + slot);
    watcher.setDaemon(true);
    watcher.start();
    return r;
  }

  /** Marks the slot ONLINE after a complete rebuild (admin thread). */
  private Void rebuildEnded(int slot, Rebuilder r, RebuildProgress p) throws IOException {
    if (rebuilds.get(slot) != r) {
      return null; // stopped and replaced meanwhile
    }
    ended.put(slot, p); // first: a poll finds the slot's rebuild here or still running
    rebuilds.remove(slot, r);
    if ((store.failedSlots() & (1L << slot)) != 0) {
      return null; // the new drive failed; driveFailed handles it
    }
    if (!p.complete()) {
      LOG.log(System.Logger.Level.WARNING, "array {0}: rebuild of slot {1} ended {2}: {3}", id(),
          slot, p.state(), p);
      if (p.state() == RebuildProgress.State.FAILED) {
        retryLater(slot);
      }
      return null;
    }
    failedAttempts.remove(slot);
    labels = ArrayLabels.finishRebuild(labels, slot);
    LOG.log(System.Logger.Level.INFO, "array {0}: slot {1} rebuilt ({2} objects, {3} lost);"
        + " ONLINE; array {4}", id(), slot, p.objectsRebuilt(), p.objectsLost(), state());
    return null;
  }

  /**
   * Plans the rebuild of {@code slot} again after a FAILED end that was not its drive failing
   * (a race with a delete, a file that vanished, an unexpected error): after the backoff,
   * doubled per failed attempt, up to {@link #MAX_REBUILD_ATTEMPTS} in a row (admin thread).
   */
  private void retryLater(int slot) {
    int attempts = failedAttempts.merge(slot, 1, Integer::sum);
    if (attempts >= MAX_REBUILD_ATTEMPTS) {
      LOG.log(System.Logger.Level.ERROR, "array {0}: rebuild of slot {1} failed {2} times in a"
          + " row; not retrying (it resumes when the array is next opened)", id(), slot,
          attempts);
      return;
    }
    long delay = retryBackoff.toNanos() << Math.min(attempts - 1, 6);
    LOG.log(System.Logger.Level.WARNING, "array {0}: retrying the rebuild of slot {1} in {2} ms"
        + " (attempt {3} of {4})", id(), slot, TimeUnit.NANOSECONDS.toMillis(delay),
        attempts + 1, MAX_REBUILD_ATTEMPTS);
    admin.schedule(() -> {
      try {
        if (!closed && !rebuilds.containsKey(slot)
            && labels.slot(slot).state() == DriveState.REBUILDING
            && (store.failedSlots() & (1L << slot)) == 0) {
          startRebuild(slot);
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "array {0}: retrying the rebuild of slot {1}: {2}",
            id(), slot, e.toString());
      }
    }, delay, TimeUnit.NANOSECONDS);
  }

  /** Sets the wait before the first retry of a FAILED rebuild (tests). */
  void retryBackoff(Duration backoff) {
    this.retryBackoff = backoff;
  }

  private interface AdminTask<T> {
    T run() throws IOException;
  }

  /** Runs {@code task} on the admin thread and waits for it. */
  private <T> T admin(AdminTask<T> task) throws IOException {
    Future<T> f = admin.submit(() -> {
      try {
        return task.run();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the array's admin thread");
    } catch (ExecutionException e) {
      throw DriveQueues.rethrow(e.getCause());
    }
  }

  private void checkDataSlot(int slot) {
    if (slot < 0 || slot >= labels.dataSlots()) {
      throw new IllegalArgumentException(
          "slot (" + slot + ") must be a data slot, 0.." + (labels.dataSlots() - 1));
    }
  }

  private static int[] slotsIn(AssembledArray a, DriveState state) {
    return a.slots().stream().filter(s -> s.slot() < a.dataSlots() && s.state() == state)
        .mapToInt(ArraySlot::slot).toArray();
  }
}
