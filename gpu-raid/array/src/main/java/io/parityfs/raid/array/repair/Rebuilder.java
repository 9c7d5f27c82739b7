package io.parityfs.raid.array.repair;

import io.parityfs.raid.array.assembly.ArrayHealth;
import io.parityfs.raid.array.assembly.ArrayLabels;
import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveQueues;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.ManifestCatalog;
import io.parityfs.raid.array.object.ManifestFile;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ShardReader;
import io.parityfs.raid.array.object.SlotTracker;
import io.parityfs.raid.array.object.StoreContext;
import io.parityfs.raid.array.repair.RebuildProgress.State;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Rebuilds one data slot of an {@link ObjectStore}: writes onto the slot's new drive (a
 * replacement or a promoted hot spare, already attached to the store and marked REBUILDING in the
 * labels, see {@link ArrayLabels#replaceDrive}) the shard of every live object that belongs
 * there, with the object's manifest. See docs/array.md, "Rebuild".
 *
 * <ol>
 *   <li><b>Plan.</b> Every object with a file on a live drive ({@code objectIds}) whose latest
 *       committed version ({@code stat}) has a shard on the slot. A shard already on the new drive
 *       (it opens, with a valid header for that object, version and shard) is skipped, and its
 *       manifest written there if missing: that is how a rebuild <em>resumes</em> after a stop or
 *       a restart, and why running it again is harmless. The rest are ordered most endangered
 *       first ({@link ArrayHealth#mostEndangeredFirst}: fewest surviving shards, counting the
 *       store's failed and absent slots and the slot being rebuilt as lost), ties by object id.
 *   <li><b>Rebuild</b> each in that order ({@link ShardRebuild}): read k good cells of each
 *       stripe from the survivors, a batch of stripes per request, paced by the store's {@link
 *       BackgroundThrottle}; reconstruct (a mirror copies); write the shard under its temp name,
 *       finish, publish; write the manifest on the new drive. An object that got a newer version
 *       meanwhile is dropped (that write already included the new drive). An object with more
 *       shards unavailable than its protection tolerates is lost: logged, counted and listed, and
 *       the rebuild goes on.
 * </ol>
 *
 * A drive error on the new drive ends the rebuild as FAILED (the slot is marked failed in the
 * store); any other error too, naming it. {@link #stop()} ends it as STOPPED at the next batch,
 * deleting the temp file of the shard in progress.
 *
 * <p><b>Use.</b> {@link #start()} runs it on a thread of its own and {@link #await()} waits for
 * the summary, or {@link #run()} runs it on the caller's thread; once only. {@link #progress()}
 * may be called from any thread at any time. The slot can be marked ONLINE ({@link
 * ArrayLabels#finishRebuild}) when the summary is {@link RebuildProgress#complete()}.
 *
 * <p>Runs alongside foreground reads and writes of the store. A write opened after the new
 * drive was attached puts its shard there itself. A write opened before (the slot was failed, or
 * failed under it) leaves the shard off the new drive and may commit after the plan listed the
 * objects: so before it ends DONE, the rebuild waits until no such write is open and then
 * rebuilds the objects they committed ({@link SlotTracker#takeMissedShards}). A rebuild thus does
 * not complete while a write that began before its drive was attached stays open. Its
 * publish-and-manifest step takes the object's writer lock, so a write or delete of the object
 * cannot slip between its version check and its manifest.
 */
public final class Rebuilder {
  private static final System.Logger LOG = System.getLogger(Rebuilder.class.getName());

  /** Objects rebuilt at once. */
  static final int PARALLEL_OBJECTS = 8;

  /** Bytes read per survivor per request. */
  public static final int BATCH_BYTES = 1 << 20;

  /** How often the end of a rebuild checks whether the writes that skip its drive are done. */
  private static final long WRITER_POLL_MILLIS = 10;

  private final StoreContext ctx;
  private final ManifestCatalog catalog;
  private final int slot;
  private final int batchBytes;
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final CountDownLatch ended = new CountDownLatch(1);
  private volatile boolean stopRequested;
  /** Set when one worker failed: the others stop at their next batch. */
  private volatile boolean halted;
  private volatile long startedAt;
  private volatile long endedAt;
  private final AtomicLong objectsTotal = new AtomicLong();
  private final AtomicLong rebuilt = new AtomicLong();
  private final AtomicLong skipped = new AtomicLong();
  private final AtomicLong superseded = new AtomicLong();
  private final AtomicLong bytesTotal = new AtomicLong();
  private final AtomicLong bytesDone = new AtomicLong();
  private final AtomicLong repaired = new AtomicLong();
  private final List<Long> lost = Collections.synchronizedList(new ArrayList<>());
  /** Objects in the order their rebuild began, for tests. */
  private final List<Long> order = Collections.synchronizedList(new ArrayList<>());
  private volatile String failure;

  /**
   * A rebuild of data slot {@code slot} of {@code store}, whose new drive must already be
   * attached ({@code ObjectStore.attachDrive}).
   *
   * @throws IllegalArgumentException when the slot is not a data slot of the store
   */
  public Rebuilder(ObjectStore store, int slot) {
    this(store, slot, BATCH_BYTES);
  }

  Rebuilder(ObjectStore store, int slot, int batchBytes) {
    if (store == null) {
      throw new IllegalArgumentException("store must not be null");
    }
    this.ctx = store.context();
    this.catalog = store.catalog();
    if (slot < 0 || slot >= ctx.dataSlots()) {
      throw new IllegalArgumentException(
          "slot (" + slot + ") must be a data slot, 0.." + (ctx.dataSlots() - 1));
    }
    if (batchBytes < 1) {
      throw new IllegalArgumentException("batchBytes (" + batchBytes + ") must be positive");
    }
    this.slot = slot;
    this.batchBytes = batchBytes;
  }

  /** The slot being rebuilt. */
  public int slot() {
    return slot;
  }

  /**
   * Starts the rebuild on a thread of its own (a daemon named after the slot) and returns.
   *
   * @throws IllegalStateException when it was already started or run
   */
  public Rebuilder start() {
    begin();
    Thread t = new Thread(this::execute, "rebuild-slot-" + slot);
    t.setDaemon(true);
    t.start();
    return this;
  }

  /**
   * Runs the rebuild on the calling thread and returns its summary.
   *
   * @throws IllegalStateException when it was already started or run
   */
  public RebuildProgress run() {
    begin();
    execute();
    return progress();
  }

  /**
   * Asks the rebuild to stop; it ends as STOPPED within one batch of stripes (or one paced piece
   * of one), keeping every shard it finished. Returns at once; {@link #await()} waits for the
   * end. Does nothing once it has ended; a rebuild stopped before it started never runs.
   */
  public void stop() {
    stopRequested = true;
    if (state.compareAndSet(State.NEW, State.STOPPED)) {
      ended.countDown();
    }
  }

  /** Waits for the rebuild to end and returns its summary. */
  public RebuildProgress await() throws InterruptedException {
    ended.await();
    return progress();
  }

  /** Waits up to {@code timeout} for the rebuild to end; returns its summary if it did. */
  public Optional<RebuildProgress> await(long timeout, TimeUnit unit)
      throws InterruptedException {
    return ended.await(timeout, unit) ? Optional.of(progress()) : Optional.empty();
  }

  /** Where the rebuild is now; safe from any thread. */
  public RebuildProgress progress() {
    long start = startedAt;
    long end = endedAt;
    State s = state.get();
    Duration elapsed = start == 0 ? Duration.ZERO
        : Duration.ofNanos((s.ended() && end != 0 ? end : System.nanoTime()) - start);
    List<Long> lostNow;
    synchronized (lost) {
      lostNow = List.copyOf(lost);
    }
    return new RebuildProgress(s, slot, objectsTotal.get(), rebuilt.get(), skipped.get(),
        superseded.get(), lostNow.size(), lostNow, bytesTotal.get(), bytesDone.get(),
        repaired.get(), elapsed, failure);
  }

  /** The objects in the order their rebuild began. */
  List<Long> order() {
    synchronized (order) {
      return List.copyOf(order);
    }
  }

  private void begin() {
    if (!state.compareAndSet(State.NEW, State.PLANNING)) {
      throw new IllegalStateException("rebuild of slot " + slot + " is " + state.get()
          + "; a Rebuilder runs once (make a new one to resume)");
    }
    startedAt = System.nanoTime();
  }

  private void execute() {
    State end = State.DONE;
    try {
      Drive out = ctx.drive(slot);
      if (out == null) {
        throw new IllegalStateException("slot " + slot + " has no live drive: attach the new"
            + " drive to the store before rebuilding");
      }
      List<Task> tasks = plan(out);
      state.set(State.RUNNING);
      LOG.log(System.Logger.Level.INFO, "rebuild of slot {0}: {1} objects ({2} bytes) to"
          + " rebuild, {3} already present", slot, tasks.size(), bytesTotal.get(), skipped.get());
      end = runWorkers(tasks, out);
      if (end == State.DONE) {
        end = catchUp(out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      end = State.STOPPED;
    } catch (IOException | RuntimeException e) {
      end = State.FAILED;
      failure = e.toString();
      if (e instanceof IOException io) {
        ctx.noteFailure(slot, io);
      }
      LOG.log(System.Logger.Level.ERROR, "rebuild of slot {0} failed: {1}", slot, e.toString());
    } finally {
      if (stopRequested && end == State.DONE) {
        end = State.STOPPED;
      }
      endedAt = System.nanoTime();
      state.set(end);
      ended.countDown();
      LOG.log(end == State.DONE ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "{0}",
          progress());
    }
  }

  /**
   * Rebuilds the tasks with {@link #PARALLEL_OBJECTS} objects in flight (so one object's
   * reconstruction and writes overlap the next one's reads), each worker taking the next task in
   * plan order: objects start most endangered first. The first failure halts the others.
   */
  private State runWorkers(List<Task> tasks, Drive out) throws IOException, InterruptedException {
    AtomicInteger next = new AtomicInteger();
    int n = Math.max(1, Math.min(PARALLEL_OBJECTS, tasks.size()));
    ExecutorService pool = Executors.newFixedThreadPool(
        n, r -> {
          Thread t = new Thread(r, "pfs-rebuild-" + slot);
          t.setDaemon(true);
          return t;
        });
    try {
      List<Future<State>> workers = new ArrayList<>();
      for (int w = 0; w < n; w++) {
        workers.add(pool.submit(() -> {
          while (!stopRequested && !halted) {
            Task t;
            synchronized (order) {
              int i = next.getAndIncrement();
              if (i >= tasks.size()) {
                return State.DONE;
              }
              t = tasks.get(i);
              order.add(t.manifest().objectId());
            }
            if (!rebuild(t, out)) {
              return State.STOPPED;
            }
          }
          return State.STOPPED;
        }));
      }
      State end = State.DONE;
      Throwable first = null;
      for (Future<State> f : workers) {
        try {
          if (f.get() == State.STOPPED) {
            end = State.STOPPED;
          }
        } catch (ExecutionException e) {
          halted = true;
          first = first == null ? e.getCause() : first;
        }
      }
      if (first != null) {
        throw DriveQueues.rethrow(first);
      }
      return end;
    } finally {
      pool.shutdown();
    }
  }

  /**
   * The writes that skipped the new drive: those opened before it was attached (the slot was
   * failed, or failed under them) write their shards elsewhere or not at all, and may commit after
   * the plan listed the objects. Waits until no such writer is open, then rebuilds the objects
   * they committed ({@link SlotTracker#takeMissedShards}); writers opened after the attach write
   * the new drive themselves. Without this the slot could be declared ONLINE while an object has
   * no shard on it.
   */
  private State catchUp(Drive out) throws IOException, InterruptedException {
    boolean logged = false;
    while (true) {
      int waiting;
      while ((waiting = ctx.slots().writersSkipping(slot, out)) > 0) {
        if (stopRequested || halted) {
          return State.STOPPED;
        }
        if (!logged) {
          logged = true;
          LOG.log(System.Logger.Level.INFO, "rebuild of slot {0}: waiting for {1} writes that"
              + " started before the drive was attached", slot, waiting);
        }
        Thread.sleep(WRITER_POLL_MILLIS);
      }
      List<Task> tasks = new ArrayList<>();
      long bytes = 0;
      for (long id : ctx.slots().takeMissedShards(slot, out)) {
        Optional<Task> t = task(out, id);
        if (t.isPresent()) {
          tasks.add(t.get());
          bytes += t.get().bytes();
        }
      }
      if (tasks.isEmpty()) {
        return stopRequested ? State.STOPPED : State.DONE;
      }
      LOG.log(System.Logger.Level.INFO, "rebuild of slot {0}: {1} objects written meanwhile"
          + " without their shard on the new drive", slot, tasks.size());
      objectsTotal.addAndGet(tasks.size());
      bytesTotal.addAndGet(bytes);
      State end = runWorkers(tasks, out);
      if (end != State.DONE) {
        return end;
      }
    }
  }

  /** One object to rebuild: its latest manifest and the shard on the slot. */
  private record Task(ObjectManifest manifest, int shard, long bytes) {}

  private List<Task> plan(Drive out) throws IOException {
    List<Task> tasks = new ArrayList<>();
    for (long id : catalog.objectIds()) {
      if (stopRequested) {
        break;
      }
      task(out, id).ifPresent(tasks::add);
    }
    long unavailable = ctx.failedSlots() | (1L << slot);
    tasks.sort(ArrayHealth.<Task>mostEndangeredFirst(t -> t.manifest().slotMask(), unavailable));
    long total = 0;
    for (Task t : tasks) {
      total += t.bytes();
    }
    objectsTotal.set(tasks.size());
    bytesTotal.set(total);
    return tasks;
  }

  /**
   * The work for object {@code id}: empty when it has no committed version, no shard on the slot,
   * or its shard is already on the new drive (counted as skipped).
   */
  private Optional<Task> task(Drive out, long id) throws IOException {
    Optional<ObjectManifest> m = catalog.stat(id);
    if (m.isEmpty()) {
      return Optional.empty();
    }
    int shard = m.get().slots().indexOf(slot);
    if (shard < 0) {
      return Optional.empty();
    }
    if (present(out, m.get(), shard)) {
      skipped.incrementAndGet();
      return Optional.empty();
    }
    long bytes = (long) m.get().layout().stripes() * m.get().cellSize();
    return Optional.of(new Task(m.get(), shard, bytes));
  }

  /**
   * Whether the new drive already holds the shard (a valid header for this object, version and
   * shard, and the right file length); if so, makes sure it holds the manifest too. The manifest
   * is checked and written under the object's lock, once the version is known to be still the
   * committed one: a foreground writer writes the same manifest name (and temp name) on the new
   * drive only under that lock.
   */
  private boolean present(Drive out, ObjectManifest m, int shard) throws IOException {
    String name = ObjectFiles.shard(m.objectId(), m.version(), shard);
    try (ShardReader r = ShardReader.open(out, name)) {
      if (!ShardRebuild.matches(r.header(), m, shard)) {
        return false;
      }
    } catch (NoSuchFileException e) {
      return false;
    } catch (ArrayException e) {
      if (Drive.isDriveFailure(e)) {
        throw e;
      }
      return false; // corrupt or foreign: rebuilt over
    }
    Runnable unlock = ctx.lockObject(m.objectId());
    try {
      if (ShardRebuild.superseded(catalog, m)) {
        return true; // nothing to do for this version; the newer one has its own files
      }
      try {
        ManifestFile.read(out, m.objectId(), m.version());
      } catch (NoSuchFileException | ArrayException e) {
        if (e instanceof ArrayException a && Drive.isDriveFailure(a)) {
          throw a;
        }
        ManifestFile.write(out, m); // the shard was published, then the rebuild stopped
      }
    } finally {
      unlock.run();
    }
    return true;
  }

  /** Rebuilds one object; false when stopped part way. */
  private boolean rebuild(Task t, Drive out) throws IOException, InterruptedException {
    ObjectManifest m = t.manifest();
    long[] done = {0};
    int batchStripes = Math.max(1, batchBytes / m.cellSize());
    ShardRebuild r = new ShardRebuild(ctx, catalog, m, t.shard(), out, batchStripes,
        () -> stopRequested || halted);
    try {
      if (ShardRebuild.superseded(catalog, m)) {
        throw new ShardRebuild.Superseded();
      }
      r.run(n -> {
        done[0] += n;
        bytesDone.addAndGet(n);
      });
      rebuilt.incrementAndGet();
      return true;
    } catch (ShardRebuild.Superseded e) {
      countSuperseded(m);
    } catch (ShardRebuild.Stopped e) {
      // Unwritten; a later rebuild plans it again.
      bytesDone.addAndGet(-done[0]);
      return false;
    } catch (ArrayException e) {
      if (e.error() != ArrayError.OBJECT_LOST) {
        throw e;
      }
      if (ShardRebuild.superseded(catalog, m)) {
        // Deleted or rewritten under the rebuild: its survivors went with the old version.
        countSuperseded(m);
      } else {
        lost.add(m.objectId());
        LOG.log(System.Logger.Level.ERROR, "rebuild of slot {0}: object {1} is lost: {2}", slot,
            hex(m), e.getMessage());
      }
    } catch (NoSuchFileException e) {
      // A file of this version vanished: only a delete or a newer version removes one.
      if (!ShardRebuild.superseded(catalog, m)) {
        throw e;
      }
      countSuperseded(m);
    } finally {
      repaired.addAndGet(r.repaired());
    }
    bytesTotal.addAndGet(-(t.bytes() - done[0]));
    return true;
  }

  private void countSuperseded(ObjectManifest m) {
    superseded.incrementAndGet();
    LOG.log(System.Logger.Level.INFO, "rebuild of slot {0}: object {1} version {2} superseded"
        + " by a newer version or deleted; dropped", slot, hex(m), m.version());
  }

  private static String hex(ObjectManifest m) {
    return String.format("%016x", m.objectId());
  }
}
