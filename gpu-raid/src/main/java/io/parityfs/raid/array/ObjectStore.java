package io.parityfs.raid.array;

import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;

/**
 * Objects on an assembled array: whole-object versioned writes, byte-range reads that reconstruct
 * from parity when a cell or drive is bad, deletes, and garbage collection of what a crash left.
 * See "Objects (first slice)" in {@code docs/array.md}.
 *
 * <p><b>Write / commit.</b> {@link #write} streams the source one stripe at a time (k data cells,
 * zero padded at the end, encoded into m parity cells, or the same cell for every mirror copy)
 * into k+m {@link ShardWriter}s on the drives of {@link Placement#drivesFor}; then it finishes
 * (fsyncs) every shard, publishes every shard (rename + directory fsync), and only then writes
 * the manifest on every drive of the placement ({@link ManifestFile}). A write is acknowledged
 * only when enough manifests are durable for the version to survive as many more drive failures
 * as its shards do (m+1 on a healthy placement, see {@link #commitManifest}); with fewer they are
 * taken back and the write fails. (A crash mid-way may leave a single manifest: recovery treats
 * the version as committed, since every shard it names was made durable before the first
 * manifest was written; the write was not acknowledged, so either outcome is correct.) Older
 * versions are deleted after the commit.
 *
 * <p><b>Read.</b> The latest version is the highest one with a readable manifest on any live drive
 * of the placement (cached after a write or a read); with none readable, the manifest is rebuilt
 * from the shard headers where they prove a committed version ({@link #recoverManifest}). A
 * tombstone left by a delete hides every version at or below it. A healthy range read opens only
 * the shards holding the range. A bad cell (CRC mismatch), a failed drive, a missing or corrupt shard file
 * makes the stripe be reconstructed from k survivors; corrupt cells on live drives are rewritten
 * in place; more than m unavailable shards in a stripe is {@link ArrayError#OBJECT_LOST}, never
 * wrong data.
 *
 * <p><b>Drive failures.</b> An operation that gets {@link ArrayError#DRIVE_IO} from a drive marks
 * its slot failed in this store (in memory: {@link #failedSlots}); that drive is not used again.
 * Making it durable in the labels ({@link ArrayLabels#markFailed}) is the caller's job for now.
 * Writes leave out unavailable drives while at most m shards (mirror: copies - 1) are left out
 * ({@link ArrayError#NOT_ENOUGH_DRIVES} beyond that).
 *
 * <p><b>One store per array.</b> The latest manifest of each object is cached; another process
 * or store writing the same drives is not supported.
 *
 * <p><b>Thread safety.</b> Reads may run concurrently with each other and with writes of other
 * objects. Writes and deletes of one object must not run concurrently with each other, and
 * {@link #collectGarbage} works one object at a time under the object's writer lock, so it may
 * run alongside writes and rebuilds (it leaves a rebuild's claimed temp files alone); it is meant
 * for right after opening ({@link RaidArray} runs it before resuming rebuilds). {@link
 * #collectGarbageOnline} is the pass for a store in use: it skips objects whose lock is held.
 */
public final class ObjectStore implements Closeable {
  private static final System.Logger LOG = System.getLogger(ObjectStore.class.getName());

  private final ArrayConfig config;
  private final AtomicReferenceArray<Drive> drives;
  private final ParityCodec codec;
  private final Placement placement;
  private final AtomicLongArray failed;
  private final Map<Long, ObjectManifest> latest = new ConcurrentHashMap<>();
  /**
   * Bumped as a delete (or a commit taken back) starts and again once its manifests are gone
   * from the drives; {@link #stat} caches what it found only if no bump came during its look-up,
   * so a look-up that read a manifest the delete was about to remove never caches it.
   */
  private final java.util.concurrent.atomic.AtomicLong forgets =
      new java.util.concurrent.atomic.AtomicLong();
  private final AtomicLong cellsRepaired = new AtomicLong();
  private final AtomicLong degradedReads = new AtomicLong();
  private final AtomicLong driveFailures = new AtomicLong();
  private final AtomicLong garbageDeleted = new AtomicLong();
  private final AtomicLong garbagePasses = new AtomicLong();
  private volatile BackgroundThrottle throttle = BackgroundThrottle.UNLIMITED;
  private volatile IntConsumer failureListener = slot -> { };
  private final StoreOptions options;
  private final DriveQueues queues;
  private final BufferPool buffers;
  private final ShardReaderCache readerCache = new ShardReaderCache(1024);
  private final ObjectLocks locks = new ObjectLocks();
  /**
   * Per object: the version whose manifest could not be rebuilt from its shards ({@link
   * #recoverManifest}), so that look-ups do not verify the same shards again and again; dropped
   * when the object is written or deleted.
   */
  private final Map<Long, Long> unrecoverable = new ConcurrentHashMap<>();
  /** Writers between open and commit or abort; a rebuild waits for those that skip its drive. */
  private final Set<ObjectWriter> openWriters = ConcurrentHashMap.newKeySet();
  /**
   * Temp files that background work (a rebuild) is writing outside the object's lock, by path:
   * {@link #delete} and {@link #collectGarbage} leave them to their owner, which deletes or
   * publishes them itself.
   */
  private final Set<String> claimedTemps = ConcurrentHashMap.newKeySet();
  /** Per slot: its drive and the objects committed without their shard on it (for its rebuild). */
  private final AtomicReferenceArray<MissedShards> missed;

  /** Objects committed, while {@code drive} was in their slot, without their shard on it. */
  private record MissedShards(Drive drive, Set<Long> objectIds) {
    MissedShards(Drive drive) {
      this(drive, ConcurrentHashMap.newKeySet());
    }
  }

  /**
   * A store over {@code drives}, indexed by data slot ({@code null}: slot failed or missing),
   * protected as {@code config} says; {@code codec} computes the parity (null for a mirror).
   */
  ObjectStore(ArrayConfig config, Drive[] drives, ParityCodec codec) {
    this(config, drives, codec, StoreOptions.DEFAULTS);
  }

  /** As above, with the I/O engine configured by {@code options}. */
  ObjectStore(ArrayConfig config, Drive[] drives, ParityCodec codec, StoreOptions options) {
    if (config.protection() instanceof Protection.Parity p) {
      if (codec == null || !codec.geometry().equals(p.geometry())) {
        throw new IllegalArgumentException("codec (" + (codec == null ? null : codec.geometry())
            + ") must be for " + p.geometry());
      }
    }
    this.config = config;
    this.drives = new AtomicReferenceArray<>(drives.clone());
    this.codec = codec;
    this.placement = Placement.of(drives.length, config.protection().width());
    this.failed = new AtomicLongArray(drives.length);
    this.missed = new AtomicReferenceArray<>(drives.length);
    for (int s = 0; s < drives.length; s++) {
      missed.set(s, new MissedShards(drives[s]));
    }
    this.options = Objects.requireNonNull(options, "options");
    this.queues = new DriveQueues(drives.length, options.threadsPerDrive());
    this.buffers = new BufferPool(options.stripesPerBatch(config.cellSize()) * config.cellSize(),
        Math.min(512, 4 * drives.length * options.threadsPerDrive()));
  }

  /**
   * Opens the store over the ONLINE data slots of {@code array} (one O_DIRECT {@link FileDrive}
   * each), with the parity codec {@code codecs} chooses for the array's geometry.
   */
  public static ObjectStore open(AssembledArray array, ParityCodecFactory codecs)
      throws IOException {
    return open(array, codecs, StoreOptions.DEFAULTS);
  }

  /** {@link #open(AssembledArray, ParityCodecFactory)} with the I/O engine set by options. */
  public static ObjectStore open(AssembledArray array, ParityCodecFactory codecs,
      StoreOptions options) throws IOException {
    return open(array, codecs, options, dir -> FileDrive.open(dir, Drive.IoMode.DIRECT));
  }

  /** Opens a drive directory; {@link RaidArray.DriveOpener}'s shape, for tests' fault drives. */
  interface Opener {
    Drive open(java.nio.file.Path dir) throws IOException;
  }

  static ObjectStore open(AssembledArray array, ParityCodecFactory codecs,
      StoreOptions options, Opener opener) throws IOException {
    ArrayConfig config = array.config();
    Drive[] drives = new Drive[array.dataSlots()];
    try {
      for (int s = 0; s < drives.length; s++) {
        ArraySlot slot = array.slot(s);
        if (slot.state() == DriveState.ONLINE || slot.state() == DriveState.REBUILDING) {
          drives[s] = opener.open(slot.drive());
        }
      }
    } catch (IOException | RuntimeException e) {
      closeAll(drives);
      throw e;
    }
    ParityCodec codec = config.protection() instanceof Protection.Parity p
        ? codecs.codec(p.geometry()) : null;
    return new ObjectStore(config, drives, codec, options);
  }

  /** The array's configuration. */
  public ArrayConfig config() {
    return config;
  }

  /** Cells found bad (CRC mismatch) and rewritten from parity or another copy. */
  public long cellsRepaired() {
    return cellsRepaired.get();
  }

  /** Cell reads served by a reconstruction from parity, or by another mirror copy. */
  public long degradedReads() {
    return degradedReads.get();
  }

  /** Bit i set: slot i failed (DRIVE_IO) during this store's life, or was absent at open. */
  public long failedSlots() {
    long mask = 0;
    for (int s = 0; s < drives.length(); s++) {
      if (drives.get(s) == null || failed.get(s) != 0) {
        mask |= 1L << s;
      }
    }
    return mask;
  }

  /** {@link #write(long, ReadableByteChannel, long)} from a stream. */
  public long write(long objectId, InputStream src, long length) throws IOException {
    return write(objectId, Channels.newChannel(src), length);
  }

  /**
   * Writes {@code length} bytes from {@code src} as a new version of {@code objectId} and returns
   * the version: {@link #openWriter}, {@link ObjectWriter#transferFrom}, {@link
   * ObjectWriter#commit}, after checking that every drive of the placement has room for its shard
   * ({@link ArrayError#NO_SPACE} otherwise, before anything is written).
   *
   * @throws IllegalArgumentException when length is negative or above the maximum object size
   * @throws EOFException when src ends before length bytes
   * @throws ArrayException NOT_ENOUGH_DRIVES when more drives of the placement are unavailable
   *     than the protection tolerates; NO_SPACE when a drive is full
   */
  public long write(long objectId, ReadableByteChannel src, long length) throws IOException {
    ObjectLayout layout = ObjectLayout.of(config, length);
    try (ObjectWriter w = openWriter(objectId)) {
      checkSpace(objectId, w, layout);
      w.transferFrom(src, length);
      return w.commit();
    }
  }

  /**
   * Starts a streaming write of a new version of {@code objectId} (see {@link ObjectWriter}).
   * Waits while another writer, overwrite, append or delete of the same object is in progress.
   *
   * @throws ArrayException NOT_ENOUGH_DRIVES when more drives of the placement are unavailable
   *     than the protection tolerates
   */
  public ObjectWriter openWriter(long objectId) throws IOException {
    throttle.foreground();
    Runnable unlock = locks.lock(objectId);
    boolean ok = false;
    try {
      int[] slots = placement.drivesFor(objectId);
      long version = highestVersion(objectId, slots) + 1; // marks drives that fail to list
      boolean[] dropped = new boolean[slots.length];
      for (int i = 0; i < slots.length; i++) {
        dropped[i] = !alive(slots[i]);
      }
      ObjectWriter w = new ObjectWriter(this, objectId, version, slots, dropped, unlock);
      ok = true;
      return w;
    } finally {
      if (!ok) {
        unlock.run();
      }
    }
  }

  /**
   * Replaces bytes {@code [offset, offset + length)} of the object with {@code length} bytes from
   * {@code src}, extending it if the range ends past its end (an offset equal to the length
   * appends; an offset beyond it is refused). The result is a new version, committed atomically
   * like any write: a crash leaves the old bytes or the new ones, never a mix, and parity is never
   * updated in place, so there is no write hole. Cost: the whole object is rewritten (read
   * through, merged, re-encoded), which the maximum object size bounds. Returns the new version.
   *
   * @throws ArrayException OBJECT_NOT_FOUND; OBJECT_LOST when the old bytes cannot be read
   * @throws IllegalArgumentException when offset is negative or past the end, or the result
   *     would exceed the maximum object size
   */
  public long overwrite(long objectId, long offset, ReadableByteChannel src, long length)
      throws IOException {
    return rewrite(objectId, offset, src, length);
  }

  /** Appends {@code length} bytes from {@code src}: {@link #overwrite} at the object's end. */
  public long append(long objectId, ReadableByteChannel src, long length) throws IOException {
    return rewrite(objectId, -1, src, length);
  }

  /** Overwrite at {@code offset}, or append when it is -1. */
  private long rewrite(long objectId, long offset, ReadableByteChannel src, long length)
      throws IOException {
    if (length < 0) {
      throw new IllegalArgumentException("length (" + length + ") must not be negative");
    }
    try (ObjectWriter w = openRewrite(objectId, offset)) {
      w.transferFrom(src, length);
      return w.commit();
    }
  }

  /**
   * Starts a streaming overwrite of {@code objectId} at {@code offset} ({@code -1}: at its end,
   * an append): the returned writer already holds the old bytes before {@code offset}; what is
   * written to it replaces the old bytes from there; {@link ObjectWriter#commit} adds the old
   * bytes after the written range, if any, and commits a new version like any write. For callers
   * that receive the new bytes as a stream (the storage node). Same cost and guarantees as
   * {@link #overwrite}.
   *
   * @throws ArrayException OBJECT_NOT_FOUND; OBJECT_LOST when the old bytes cannot be read
   * @throws IllegalArgumentException when offset is below -1 or past the end
   */
  public ObjectWriter openRewrite(long objectId, long offset) throws IOException {
    ObjectWriter w = openWriter(objectId);
    boolean ok = false;
    try {
      ObjectManifest old = manifest(objectId);
      long oldLength = old.objectLength();
      long at = offset == -1 ? oldLength : offset;
      if (at < 0 || at > oldLength) {
        throw new IllegalArgumentException(String.format("offset (%d) must be in 0..%d for"
            + " object %016x", offset, oldLength, objectId));
      }
      copyRange(old, 0, at, w);
      w.beforeCommit(() -> {
        long end = w.length();
        copyRange(old, end, oldLength - Math.min(end, oldLength), w);
      });
      ok = true;
      return w;
    } finally {
      if (!ok) {
        w.abort();
      }
    }
  }

  /** Copies {@code count} bytes of {@code m}'s version from {@code from} into {@code w}. */
  private void copyRange(ObjectManifest m, long from, long count, ObjectWriter w)
      throws IOException {
    if (count <= 0) {
      return;
    }
    ObjectLayout layout = m.layout();
    int chunk = (int) Math.min(count, Math.max(layout.stripeBytes(),
        (long) options.stripesPerBatch(layout.cellSize()) * layout.stripeBytes()));
    ByteBuffer buf = ByteBuffer.allocateDirect(chunk);
    for (long done = 0; done < count; ) {
      buf.clear().limit((int) Math.min(chunk, count - done));
      new RangeRead(this, m).read(from + done, buf);
      buf.flip();
      done += buf.remaining();
      w.write(buf);
    }
  }

  /**
   * Reads object bytes from {@code offset} into {@code into} (as many as fit, up to the end of the
   * object) and returns how many were read; {@code into}'s position advances by that much. On an
   * exception the bytes from {@code into}'s position on are undefined and the position unchanged.
   *
   * @throws IllegalArgumentException when offset is negative or past the end of the object
   * @throws ArrayException OBJECT_NOT_FOUND; OBJECT_LOST when a stripe has more unavailable shards
   *     than the protection tolerates
   */
  public int read(long objectId, long offset, ByteBuffer into) throws IOException {
    throttle.foreground();
    ObjectManifest m = manifest(objectId);
    int start = into.position();
    for (int attempt = 0; ; attempt++) {
      try {
        return new RangeRead(this, m).read(offset, into);
      } catch (ArrayException e) {
        into.position(start);
        // An overwrite may have committed and deleted this version under us: retry on the new one.
        if (e.error() != ArrayError.OBJECT_LOST || attempt == 2) {
          throw e;
        }
        latest.remove(objectId);
        ObjectManifest now = manifest(objectId);
        if (now.version() == m.version()) {
          throw e;
        }
        m = now;
      }
    }
  }

  /**
   * Reads from version {@code version} of {@code objectId} only, as {@link #read(long, long,
   * ByteBuffer)} reads the latest: for a reader that reads one version in several calls (a
   * streamed read) and must not mix versions.
   *
   * @throws ArrayException VERSION_GONE when that version is no longer the committed one (a newer
   *     version replaced it, or the object was deleted): start over on the current version
   */
  public int read(long objectId, long version, long offset, ByteBuffer into) throws IOException {
    throttle.foreground();
    ObjectManifest m = latest.get(objectId);
    if (m == null || m.version() != version) {
      m = stat(objectId).orElse(null);
    }
    if (m == null || m.version() != version) {
      throw versionGone(objectId, version, m);
    }
    int start = into.position();
    try {
      return new RangeRead(this, m).read(offset, into);
    } catch (ArrayException e) {
      into.position(start);
      if (e.error() == ArrayError.OBJECT_LOST) {
        latest.remove(objectId);
        ObjectManifest now = stat(objectId).orElse(null);
        if (now == null || now.version() != version) {
          throw versionGone(objectId, version, now); // its files were deleted under the read
        }
      }
      throw e;
    }
  }

  private static ArrayException versionGone(long objectId, long version, ObjectManifest now) {
    return new ArrayException(ArrayError.VERSION_GONE, null, String.format(
        "object %016x version %d is no longer committed (%s)", objectId, version,
        now == null ? "the object was deleted" : "version " + now.version() + " replaced it"));
  }

  /** The length of the latest version of {@code objectId}. */
  public long length(long objectId) throws IOException {
    return manifest(objectId).objectLength();
  }

  /** The manifest of the latest committed version, if the object exists. */
  public Optional<ObjectManifest> stat(long objectId) throws IOException {
    ObjectManifest cached = latest.get(objectId);
    if (cached != null) {
      return Optional.of(cached);
    }
    long before = forgets.get();
    Optional<ObjectManifest> found = lookup(objectId);
    // A commit racing with this look-up puts its own (newer) manifest: never overwrite it. A
    // delete racing with it may have removed what it found: then take the entry back.
    found.ifPresent(m -> {
      latest.putIfAbsent(objectId, m);
      if (forgets.get() != before) {
        latest.remove(objectId, m);
      }
    });
    return found;
  }

  /**
   * Deletes {@code objectId}, touching only the files of its latest version that its manifest
   * names (no listing of the drives when the manifest is cached): first, on each drive of its
   * slots, the manifest is renamed to a tombstone ({@link ObjectFiles#tombstone}; on a drive
   * without it, the shard is) and the directory fsynced; then the shards go (a directory fsync
   * each), all drives in parallel, phase after phase. While a tombstone is on a live drive no
   * version at or below it is found, and none is rebuilt from its shards ({@link
   * #recoverManifest}): a crash after the first phase leaves a delete that {@link
   * #collectGarbage} finishes, never an object that comes back; a crash in it before any
   * tombstone is durable leaves the object as it was. The tombstones, and whatever else of the
   * object failed writes or deletes left (temps, other versions), stay for garbage collection;
   * so do temps a rebuild has claimed. An object with no committed version has its files found
   * by listing and deleted. Returns whether anything was deleted.
   */
  public boolean delete(long objectId) throws IOException {
    Runnable unlock = locks.lock(objectId);
    try {
      return deleteLocked(objectId);
    } finally {
      unlock.run();
    }
  }

  /**
   * Marks temp file {@code name} on {@code drive} as owned by its (background) writer until
   * {@link #releaseTemp}; call under the object's lock, before creating the file, so no delete
   * or garbage collection removes it and no writer reuses its version meanwhile. False when
   * another task (a rebuild, a scrub) has it already.
   */
  boolean claimTemp(Drive drive, String name) {
    return claimedTemps.add(drive.root().resolve(name).toString());
  }

  /** Ends {@link #claimTemp}: the temp was published or deleted. */
  void releaseTemp(Drive drive, String name) {
    claimedTemps.remove(drive.root().resolve(name).toString());
  }

  /** Whether {@code name} on {@code d} is a temp another task owns ({@link #claimTemp}). */
  private boolean claimed(Drive d, ObjectFiles.Name name, String fileName) {
    return name.temp() && claimedTemps.contains(d.root().resolve(fileName).toString());
  }

  /** Drops the cached manifest of {@code objectId} for good (see {@link #forgets}). */
  private void forget(long objectId) {
    forgets.incrementAndGet();
    latest.remove(objectId);
    unrecoverable.remove(objectId);
  }

  private boolean deleteLocked(long objectId) throws IOException {
    ObjectManifest cached = latest.get(objectId); // exact under the lock: commits put theirs
    Optional<ObjectManifest> m = cached != null ? Optional.of(cached) : lookup(objectId);
    if (m.isEmpty()) {
      return deleteListed(objectId); // no committed version: whatever files it left (rare)
    }
    forget(objectId);
    readerCache.invalidate(objectId);
    ObjectManifest v = m.get();
    // 1: the manifest becomes the tombstone (or, on a drive without it, the shard does)
    boolean any = onEachDrive(v, (shard, d) -> {
      String tomb = ObjectFiles.tombstone(objectId, v.version());
      try {
        d.rename(ObjectFiles.manifest(objectId, v.version()), tomb);
      } catch (NoSuchFileException noManifest) {
        try {
          d.rename(ObjectFiles.shard(objectId, v.version(), shard), tomb);
        } catch (NoSuchFileException nothing) {
          return false; // no file of the version here (a slot left out, a blank replacement)
        }
      }
      d.syncDirectory();
      return true;
    });
    forget(objectId); // a stat that read a manifest just renamed cached it meanwhile
    // 2: the shards (the version's temps, a rebuild's claimed one included, are not touched)
    any |= onEachDrive(v, (shard, d) -> {
      boolean deleted = d.delete(ObjectFiles.shard(objectId, v.version(), shard));
      if (deleted) {
        d.syncDirectory();
      }
      return deleted;
    });
    // The tombstones stay: collectGarbage removes them with whatever else of the object a
    // failed write or delete may have left at or below their version, which only a listing
    // finds; a tombstone removed before could let an older manifest left behind come back.
    return any;
  }

  /** A step of a delete on the drive holding shard {@code shard}. */
  private interface DriveStep {
    boolean run(int shard, Drive d) throws IOException;
  }

  /**
   * Runs {@code step} on the live drive of every slot of {@code m}, all drives in parallel on
   * their queues, and waits for all; returns whether any returned true. A drive failure marks
   * the drive failed; another error is rethrown once every drive is done.
   */
  private boolean onEachDrive(ObjectManifest m, DriveStep step) throws IOException {
    List<CompletableFuture<Boolean>> steps = new ArrayList<>();
    for (int i = 0; i < m.slots().size(); i++) {
      int shard = i;
      int slot = m.slotOf(i);
      Drive d = drive(slot);
      if (d != null) {
        steps.add(queues.submit(slot, () -> tolerant(slot, () -> step.run(shard, d), false)));
      }
    }
    boolean any = false;
    IOException failure = null;
    for (CompletableFuture<Boolean> f : steps) {
      try {
        any |= DriveQueues.join(f);
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
    return any;
  }

  /**
   * A delete by listing: every file of the object on each live drive of its placement, in the
   * phases of {@link #delete}, the tombstones last. For an object with no committed version.
   */
  private boolean deleteListed(long objectId) throws IOException {
    int[] slots = placement.drivesFor(objectId);
    forget(objectId);
    readerCache.invalidate(objectId);
    Map<Integer, List<String>> names = new TreeMap<>();
    boolean any = false;
    // 1: on each drive, a tombstone (a manifest, or else a shard, renamed: no space needed)
    // covering every version there, and no manifest left; durable before any shard goes
    for (int slot : slots) {
      if (!alive(slot)) {
        continue;
      }
      Drive d = drives.get(slot);
      any |= tolerant(slot, () -> {
        List<String> listed = new ArrayList<>(d.list(ObjectFiles.prefix(objectId)));
        names.put(slot, listed);
        return tombstone(d, objectId, listed);
      }, false);
    }
    forget(objectId); // a stat that read a manifest just renamed cached it meanwhile
    // 2: everything else (a claimed temp is a rebuild's: it sees the delete), 3: the tombstones
    for (boolean tombstones : new boolean[] {false, true}) {
      for (Map.Entry<Integer, List<String>> e : names.entrySet()) {
        int slot = e.getKey();
        Drive d = drive(slot);
        if (d == null) {
          continue;
        }
        boolean deleted = tolerant(slot, () -> {
          boolean gone = false;
          for (String n : e.getValue()) {
            Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
            if (name.isPresent() && name.get().isTombstone() == tombstones
                && !claimed(d, name.get(), n)) {
              gone |= d.delete(n);
            }
          }
          if (gone) {
            d.syncDirectory();
          }
          return gone;
        }, false);
        any |= deleted && !tombstones; // an earlier delete's tombstones: nothing was there
      }
    }
    return any;
  }

  /**
   * Phase 1 of a delete on one drive: renames its highest manifest (or, with none, its highest
   * shard) to a tombstone at the highest version of any file of the object there, deletes the
   * other manifests, and syncs; {@code listed} then holds the tombstone's name in place of the
   * renamed file. Returns whether anything changed.
   */
  private static boolean tombstone(Drive d, long objectId, List<String> listed)
      throws IOException {
    long top = -1;
    String source = null;
    boolean sourceIsManifest = false;
    for (String n : listed) {
      Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
      if (name.isEmpty() || name.get().temp()) {
        continue;
      }
      top = Math.max(top, name.get().version());
      if (name.get().isManifest() || (!sourceIsManifest && name.get().isShard())) {
        source = n; // listed in version order: the last is the highest
        sourceIsManifest = name.get().isManifest();
      }
    }
    if (top < 0) {
      return false; // only temps: deleted in phase 2
    }
    String tomb = ObjectFiles.tombstone(objectId, top);
    boolean changed = false;
    if (!listed.contains(tomb) && source != null) {
      d.rename(source, tomb);
      listed.remove(source);
      listed.add(tomb);
      changed = true;
    }
    for (String n : listed) {
      Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
      if (name.isPresent() && name.get().isManifest() && !name.get().temp()) {
        changed |= d.delete(n);
      }
    }
    listed.removeIf(n -> ObjectFiles.tryParse(n).map(x -> x.isManifest() && !x.temp())
        .orElse(false));
    if (changed) {
      d.syncDirectory();
    }
    return changed;
  }

  /**
   * Cleans up what crashes and failed writes left, on every live drive: deletes every temp file,
   * every shard or manifest of a version older than the object's latest committed version, and
   * every shard of a newer version that no drive has a manifest for (never committed), provided
   * every drive of the placement is alive (else such shards are kept and logged: the one
   * manifest committing them may be on the drive that is away). Before deleting, the latest
   * manifest is written again on each live drive of its placement that lacks it or holds a
   * corrupt copy (roll forward: the version was committed when its first manifest was durable).
   * Each object is collected under its writer lock, skipping temps a rebuild claimed ({@link
   * #claimTemp}), so writes and rebuilds of it wait or are left alone. Returns the number of
   * files deleted.
   */
  public long collectGarbage() throws IOException {
    Map<Long, List<Integer>> objects = new TreeMap<>();
    for (int s = 0; s < drives.length(); s++) {
      if (!alive(s)) {
        continue;
      }
      Drive d = drives.get(s);
      int slot = s;
      for (String n : tolerant(s, () -> d.list(""), List.<String>of())) {
        ObjectFiles.tryParse(n).ifPresent(
            name -> objects.computeIfAbsent(name.objectId(), id -> new ArrayList<>()).add(slot));
      }
    }
    long deleted = 0;
    for (Map.Entry<Long, List<Integer>> e : objects.entrySet()) {
      Runnable unlock = locks.lock(e.getKey());
      try {
        deleted += collectGarbage(e.getKey(), e.getValue());
      } finally {
        unlock.run();
      }
    }
    garbageDeleted.addAndGet(deleted);
    if (deleted > 0) {
      LOG.log(System.Logger.Level.INFO, "garbage collection deleted {0} files", deleted);
    }
    return deleted;
  }

  /**
   * A garbage collection pass for an array in use (a long-lived node: {@link RaidArray} runs it
   * on a schedule): one listing of every live drive, then, one object at a time and only for the
   * objects whose files there look like garbage (a temp file nobody claimed, a tombstone, files of
   * more than one version, shards without a manifest), what {@link #collectGarbage} does for an
   * object. Each is collected under its writer lock, taken without waiting: an object whose lock
   * is held (a write between its open and its commit, a delete, a rebuild publishing) is left for
   * the next pass ({@link GarbagePass#busy}), so nothing of a version being written or committed
   * is touched; temps a rebuild or scrub claimed are skipped as always. Unlike the pass at open,
   * it does not re-read every manifest copy (rolling manifests forward onto drives that lack one
   * is the pass at open's job, and a rebuild's).
   */
  public GarbagePass collectGarbageOnline() throws IOException {
    Map<Long, List<Integer>> suspects = new TreeMap<>(Long::compareUnsigned);
    Map<Long, Map<Integer, List<ObjectFiles.Name>>> byObject = new TreeMap<>();
    for (int s = 0; s < drives.length(); s++) {
      if (!alive(s)) {
        continue;
      }
      Drive d = drives.get(s);
      int slot = s;
      for (String n : tolerant(s, () -> d.list(""), List.<String>of())) {
        ObjectFiles.tryParse(n).ifPresent(name -> {
          if (!claimed(d, name, n)) {
            byObject.computeIfAbsent(name.objectId(), id -> new TreeMap<>())
                .computeIfAbsent(slot, x -> new ArrayList<>()).add(name);
          }
        });
      }
    }
    Map<Long, Map<Integer, List<ObjectFiles.Name>>> finished = new TreeMap<>();
    for (Map.Entry<Long, Map<Integer, List<ObjectFiles.Name>>> e : byObject.entrySet()) {
      if (onlyTombstones(e.getValue())) {
        finished.put(e.getKey(), e.getValue());
      } else if (looksLikeGarbage(e.getValue())) {
        suspects.put(e.getKey(), new ArrayList<>(e.getValue().keySet()));
      }
    }
    long deleted = 0;
    int busy = 0;
    for (Map.Entry<Long, Map<Integer, List<ObjectFiles.Name>>> e : finished.entrySet()) {
      Runnable unlock = locks.tryLock(e.getKey());
      if (unlock == null) {
        busy++;
        continue;
      }
      try {
        deleted += dropTombstones(e.getValue());
      } finally {
        unlock.run();
      }
    }
    for (Map.Entry<Long, List<Integer>> e : suspects.entrySet()) {
      Runnable unlock = locks.tryLock(e.getKey());
      if (unlock == null) {
        busy++;
        continue;
      }
      try {
        List<Integer> slots = e.getValue();
        for (int slot : placement.drivesFor(e.getKey())) {
          slots.add(slot); // where a file written since the listing may be too
        }
        deleted += collectGarbage(e.getKey(), slots);
      } finally {
        unlock.run();
      }
    }
    garbageDeleted.addAndGet(deleted);
    garbagePasses.incrementAndGet();
    if (deleted > 0 || busy > 0) {
      LOG.log(System.Logger.Level.INFO, "garbage collection pass: {0} files deleted, {1} of {2}"
          + " suspect objects busy (left for the next pass)", deleted, busy, suspects.size());
    }
    return new GarbagePass(suspects.size() + finished.size(), busy, deleted);
  }

  /** Whether one object's listed files are tombstones only: a delete that ran to its end. */
  private static boolean onlyTombstones(Map<Integer, List<ObjectFiles.Name>> bySlot) {
    for (List<ObjectFiles.Name> names : bySlot.values()) {
      for (ObjectFiles.Name n : names) {
        if (!n.isTombstone()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Deletes the tombstones of an object that had no other file on any live drive when listed;
   * under its lock. No file at or below a tombstone appears after its delete (a new write takes
   * a higher version; a rebuild's temp of a deleted version is dropped by the rebuild), so they
   * go without another listing.
   */
  private long dropTombstones(Map<Integer, List<ObjectFiles.Name>> bySlot) throws IOException {
    long n = 0;
    for (Map.Entry<Integer, List<ObjectFiles.Name>> e : bySlot.entrySet()) {
      int slot = e.getKey();
      Drive d = drive(slot);
      if (d == null) {
        continue;
      }
      n += tolerant(slot, () -> {
        long gone = 0;
        for (ObjectFiles.Name t : e.getValue()) {
          gone += d.delete(t.toString()) ? 1 : 0;
        }
        if (gone > 0) {
          d.syncDirectory();
        }
        return gone;
      }, 0L);
    }
    return n;
  }

  /**
   * What one {@link #collectGarbageOnline} pass did.
   *
   * @param suspects objects whose files looked like garbage in the pass's listing
   * @param busy of those, objects left for the next pass because their lock was held
   * @param deleted files deleted
   */
  public record GarbagePass(int suspects, int busy, long deleted) { }

  /** Files deleted by garbage collection since the store opened, the pass at open included. */
  public long garbageDeleted() {
    return garbageDeleted.get();
  }

  /** Runtime garbage collection passes ({@link #collectGarbageOnline}) since the store opened. */
  public long garbagePasses() {
    return garbagePasses.get();
  }

  /** Whether one object's listed files (claimed temps left out) hold something to collect. */
  private static boolean looksLikeGarbage(Map<Integer, List<ObjectFiles.Name>> bySlot) {
    long version = -1;
    boolean manifest = false;
    for (List<ObjectFiles.Name> names : bySlot.values()) {
      for (ObjectFiles.Name n : names) {
        if (n.temp() || n.isTombstone() || (version >= 0 && n.version() != version)) {
          return true;
        }
        version = n.version();
        manifest |= n.isManifest();
      }
    }
    return !manifest;
  }

  /** {@link #collectGarbage} of one object, found on {@code found} slots, under its lock. */
  private long collectGarbage(long id, List<Integer> found) throws IOException {
    long deleted = 0;
    {
      latest.remove(id);
      readerCache.invalidate(id);
      int[] slots = found.stream().distinct().mapToInt(Integer::intValue).toArray();
      ObjectListing listed = listing(id, slots);
      long tombstone = listed.tombstone();
      Optional<ObjectManifest> committed = latestIn(listed);
      if (committed.isEmpty() && listed.hasShards()) {
        committed = recoverManifest(listing(id, placement.drivesFor(id)));
      }
      if (committed.isPresent()) {
        ObjectManifest m = committed.get();
        for (int slot : m.slots()) {
          if (alive(slot) && !tolerant(slot, () -> hasManifest(slot, m), true)) {
            LOG.log(System.Logger.Level.INFO, "object {0} version {1}: manifest rewritten on slot"
                + " {2}", String.format("%016x", id), m.version(), slot);
            tolerant(slot, () -> {
              ManifestFile.write(drives.get(slot), m);
              return null;
            }, null);
          }
        }
      }
      long keep = committed.map(ObjectManifest::version).orElse(-1L);
      // Newer files are deleted only when provably uncommitted: no manifest of their version on
      // any drive (an unreadable one keeps them, for an admin to look at) and every drive of the
      // placement listed (a failed drive might hold the one manifest that commits them).
      Set<Long> manifested = new HashSet<>();
      for (int slot : slots) {
        Drive d = drive(slot);
        if (d == null) {
          continue;
        }
        for (String f : tolerant(slot, () -> d.list(ObjectFiles.prefix(id)),
            List.<String>of())) {
          ObjectFiles.tryParse(f).filter(n -> n.isManifest() && !n.temp())
              .ifPresent(n -> manifested.add(n.version()));
        }
      }
      boolean allListed = true;
      for (int slot : placement.drivesFor(id)) {
        allListed &= alive(slot);
      }
      boolean newerAreGarbage = allListed;
      for (int slot : slots) {
        Drive d = drive(slot);
        if (d == null) {
          continue;
        }
        deleted += tolerant(slot, () -> {
          long n = 0;
          List<String> tombstones = new ArrayList<>();
          for (String f : d.list(ObjectFiles.prefix(id))) {
            Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(f);
            if (name.isEmpty()) {
              continue;
            }
            if (claimed(d, name.get(), f)) {
              continue; // a running rebuild's
            }
            long v = name.get().version();
            if (name.get().isTombstone() && v > keep) {
              tombstones.add(f); // after the files it covers are gone
              continue;
            }
            boolean garbage = name.get().temp() || v < keep || v <= tombstone
                || (v > keep && newerAreGarbage && !manifested.contains(v));
            if (garbage) {
              n += d.delete(f) ? 1 : 0;
            } else if (v > keep && !name.get().temp()) {
              LOG.log(System.Logger.Level.WARNING, "object {0}: {1} kept: version {2} may be"
                  + " committed (manifest unreadable or a drive unavailable)",
                  String.format("%016x", id), f, v);
            }
          }
          if (n > 0) {
            d.syncDirectory();
          }
          if (!tombstones.isEmpty()) {
            for (String t : tombstones) {
              n += d.delete(t) ? 1 : 0;
            }
            d.syncDirectory();
          }
          return n;
        }, 0L);
      }
    }
    if (deleted > 0) {
      forget(id);
    }
    return deleted;
  }

  /** Closes the drives. */
  @Override
  public void close() throws IOException {
    Drive[] all = new Drive[drives.length()];
    for (int s = 0; s < all.length; s++) {
      all[s] = drives.getAndSet(s, null);
    }
    queues.close();
    readerCache.close();
    closeAll(all);
  }

  // ---- shared with RangeRead ----

  /** The drive of {@code slot}, or null when it is absent or failed. */
  Drive drive(int slot) {
    return alive(slot) ? drives.get(slot) : null;
  }

  ParityCodec codec() {
    return codec;
  }

  /** How this store drives its I/O. */
  StoreOptions options() {
    return options;
  }

  /** Aligned buffers of one read window per shard ({@link StoreOptions#stripesPerBatch} cells). */
  BufferPool buffers() {
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
  void invalidateReaders(long objectId) {
    readerCache.invalidate(objectId);
  }

  /**
   * Takes the object's writer lock (the one {@link #openWriter}, overwrite, append and delete
   * hold) and returns the unlock; for background work that publishes files of the object.
   */
  Runnable lockObject(long objectId) throws InterruptedIOException {
    return locks.lock(objectId);
  }

  /** The per-drive request queues. */
  DriveQueues queues() {
    return queues;
  }

  /**
   * Publishes {@code m}, whose shards are all durable: writes it on every live drive of its
   * placement, in parallel. The version is committed when at least 1 + (tolerance - shards left
   * out) manifests are durable (m+1 on a healthy placement), so it survives as many more drive
   * failures as its shards; a drive failing then only leaves that drive without a manifest
   * ({@link #collectGarbage} rolls it forward). With fewer, the manifests written are deleted
   * again and the write fails (the old version stays the latest). Then deletes the object's
   * older versions (best effort).
   *
   * @throws IOException NO_SPACE or NOT_ENOUGH_DRIVES when too few manifests could be written:
   *     the version is not committed
   */
  void commitManifest(ObjectManifest m) throws IOException {
    long objectId = m.objectId();
    List<CompletableFuture<Integer>> writes = new ArrayList<>();
    for (int slot : m.slots()) {
      Drive d = drive(slot);
      if (d != null) {
        writes.add(queues.submit(slot, () -> guard(slot, () -> {
          ManifestFile.write(d, m);
          return slot;
        })));
      }
    }
    latest.remove(objectId);
    IOException failure = null;
    List<Integer> written = new ArrayList<>();
    for (CompletableFuture<Integer> f : writes) {
      try {
        written.add(DriveQueues.join(f));
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: a manifest was not"
            + " written: {2}", String.format("%016x", objectId), m.version(), e.getMessage());
        failure = failure == null ? e : failure;
      }
    }
    // The version must stay readable through as many more drive failures as its shards do:
    // the protection's tolerance less the shards already left out, so that many manifests plus
    // one (m+1 on a healthy array).
    int leftOut = m.slots().size() - writes.size();
    int required = 1 + Math.max(0, config.protection().tolerates() - leftOut);
    if (written.size() < required) {
      // Not committed: take back the manifests written, so the old version stays the latest.
      for (int slot : written) {
        Drive d = drive(slot);
        if (d != null) {
          tolerant(slot, () -> {
            d.delete(ObjectFiles.manifest(objectId, m.version()));
            d.syncDirectory();
            return null;
          }, null);
        }
      }
      forget(objectId);
      deleteShards(m); // else a manifest rebuilt from them would commit what failed here
      String why = String.format("object %016x version %d: %d of %d manifests written, %d needed"
          + " to survive what its shards survive; not committed", objectId, m.version(),
          written.size(), writes.size(), required);
      if (failure instanceof ArrayException a && a.error() == ArrayError.NO_SPACE) {
        throw new ArrayException(ArrayError.NO_SPACE, a.path(), why + ": " + a.getMessage(), a);
      }
      throw new ArrayException(ArrayError.NOT_ENOUGH_DRIVES, null,
          why + (failure == null ? "" : ": " + failure.getMessage()), failure);
    }
    latest.put(objectId, m);
    unrecoverable.remove(objectId);
    readerCache.invalidate(objectId);
    if (m.version() > 0) {
      // version 0 is a new object's first (the writer saw no file of it, under its lock):
      // nothing older to delete, so no listing of the drives' folders, which costs more the
      // more objects a drive holds
      deleteOlderThan(objectId, m.version(),
          m.slots().stream().mapToInt(Integer::intValue).toArray());
    }
  }

  /**
   * Deletes the shards of {@code m}'s version, not committed, on the live drives of its slots
   * (best effort: one left behind is garbage for {@link #collectGarbage}).
   */
  private void deleteShards(ObjectManifest m) {
    for (int i = 0; i < m.slots().size(); i++) {
      int slot = m.slotOf(i);
      Drive d = drive(slot);
      if (d == null) {
        continue;
      }
      String name = ObjectFiles.shard(m.objectId(), m.version(), i);
      try {
        if (d.delete(name)) {
          d.syncDirectory();
        }
      } catch (IOException e) {
        noteFailure(slot, e);
        LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: shard {2} of the version"
            + " not committed was not deleted (left for garbage collection): {3}",
            String.format("%016x", m.objectId()), m.version(), name, e.getMessage());
      }
    }
  }

  /**
   * Refuses a write of {@code layout} when a live drive of the writer's placement has less room
   * than its shard file needs ({@link ArrayError#NO_SPACE}), before anything is written.
   */
  private void checkSpace(long objectId, ObjectWriter w, ObjectLayout layout) throws IOException {
    long need = ShardFormat.fileLength(layout.cellSize(), layout.stripes());
    for (int slot : placement.drivesFor(objectId)) {
      Drive d = drive(slot);
      if (d == null) {
        continue;
      }
      long free = guard(slot, d::usableSpace);
      if (free < need) {
        w.abort();
        throw new ArrayException(ArrayError.NO_SPACE, d.root(), String.format(
            "object %016x: drive %s (slot %d) has %d bytes free, the shard needs %d; the write"
                + " was refused before writing anything", objectId, d.root(), slot, free, need));
      }
    }
  }

  /** The placement of objects over the data slots. */
  Placement placement() {
    return placement;
  }

  /** The number of data slots. */
  int dataSlots() {
    return drives.length();
  }

  /** The throttle pacing background work (rebuild, scrub) against foreground requests. */
  BackgroundThrottle throttle() {
    return throttle;
  }

  /**
   * Sets what to call (once per slot, on the I/O thread that saw it: hand heavy work to another
   * thread) when a drive fails ({@link ArrayError#DRIVE_IO}) and this store stops using it.
   */
  void onDriveFailure(IntConsumer listener) {
    this.failureListener = Objects.requireNonNull(listener, "listener");
  }

  /** Replaces the throttle; see {@link BackgroundThrottle}. */
  public void throttle(BackgroundThrottle throttle) {
    this.throttle = Objects.requireNonNull(throttle, "throttle");
  }

  /**
   * Puts {@code drive} into {@code slot} (a replacement, or a hot spare taking the slot over) and
   * makes the slot live again; the drive previously there, if any, is closed. Objects whose shard
   * on the slot is absent read degraded until a rebuild writes it.
   */
  void attachDrive(int slot, Drive drive) throws IOException {
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

  /** Registers a writer from its opening (before it looks its drives up) to its end. */
  void writerOpened(ObjectWriter w) {
    openWriters.add(w);
  }

  /** Ends {@link #writerOpened}; after a commit, once the writer reported its missed shards. */
  void writerClosed(ObjectWriter w) {
    openWriters.remove(w);
  }

  /** How many open writers leave {@code slot}'s shard off {@code drive} ({@code skips}). */
  int writersSkipping(int slot, Drive drive) {
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
  Set<Long> takeMissedShards(int slot, Drive drive) {
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

  /**
   * Ids of every object with a file (manifest, shard or temp file) on a live drive, ascending.
   * A drive that fails to list is marked failed and skipped.
   */
  SortedSet<Long> objectIds() {
    return scan("", 0, -1L, false);
  }

  /**
   * Ids of the objects in {@code [from, to]} (unsigned, both inclusive) that have a committed
   * manifest on a live drive, ascending unsigned; some may have been deleted since (check with
   * {@link #stat}). Cost: one directory listing per live drive, narrowed by the longest
   * hexadecimal prefix the two bounds share (a range such as one file's chunks lists only their
   * names). A drive that fails to list is marked failed and skipped.
   */
  public NavigableSet<Long> listObjects(long from, long to) {
    String a = String.format("%016x", from);
    String b = String.format("%016x", to);
    int common = 0;
    while (common < 16 && a.charAt(common) == b.charAt(common)) {
      common++;
    }
    return scan(a.substring(0, common), from, to, true);
  }

  /**
   * Ids within [from, to] (unsigned) of the files whose names start with {@code prefix} on the
   * live drives: every object file, or only committed manifests.
   */
  private NavigableSet<Long> scan(String prefix, long from, long to,
      boolean manifestsOnly) {
    TreeSet<Long> ids = new TreeSet<>(Long::compareUnsigned);
    for (int s = 0; s < drives.length(); s++) {
      if (!alive(s)) {
        continue;
      }
      try {
        for (String n : drives.get(s).list(prefix)) {
          ObjectFiles.tryParse(n).ifPresent(name -> {
            long id = name.objectId();
            if (Long.compareUnsigned(id, from) >= 0 && Long.compareUnsigned(id, to) <= 0
                && (!manifestsOnly || (name.isManifest() && !name.temp()))) {
              ids.add(id);
            }
          });
        }
      } catch (IOException e) {
        noteFailure(s, e);
      }
    }
    return ids;
  }

  void countRepair() {
    cellsRepaired.incrementAndGet();
  }

  void countDegraded() {
    degradedReads.incrementAndGet();
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

  // ---- internals ----

  private boolean alive(int slot) {
    return slot >= 0 && slot < drives.length() && drives.get(slot) != null && failed.get(slot) == 0;
  }

  private interface DriveCall<T> {
    T call() throws IOException;
  }

  /**
   * Runs {@code call} on {@code slot}'s drive; a drive failure marks the slot failed and gives
   * {@code fallback} (the caller goes on without the drive); other errors propagate.
   */
  private <T> T tolerant(int slot, DriveCall<T> call, T fallback) throws IOException {
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

  private <T> T guard(int slot, DriveCall<T> call) throws IOException {
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

  private ObjectManifest manifest(long objectId) throws IOException {
    return stat(objectId).orElseThrow(() -> new ArrayException(ArrayError.OBJECT_NOT_FOUND, null,
        String.format("object %016x has no committed version", objectId)));
  }

  /** The highest version of any file (manifest, shard, temp) of the object on its live drives. */
  private long highestVersion(long objectId, int[] slots) throws IOException {
    long max = -1;
    for (int slot : slots) {
      if (!alive(slot)) {
        continue;
      }
      Drive d = drives.get(slot);
      List<String> names;
      try {
        names = d.list(ObjectFiles.prefix(objectId));
      } catch (IOException e) {
        if (!Drive.isDriveFailure(e)) {
          throw e;
        }
        noteFailure(slot, e); // left out of the write
        continue;
      }
      for (String n : names) {
        Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
        if (name.isPresent() && name.get().objectId() == objectId) {
          max = Math.max(max, name.get().version());
        }
      }
    }
    return max;
  }

  /**
   * The highest version with a manifest that reads back on some live drive among {@code slots};
   * an unreadable copy (corrupt, drive error) is skipped in favour of another drive's.
   */
  private Optional<ObjectManifest> findLatest(long objectId, int[] slots) throws IOException {
    return latestIn(listing(objectId, slots));
  }

  /** The files of one object on some live drives, as listed once, by slot. */
  private record ObjectListing(long objectId, Map<Integer, List<ObjectFiles.Name>> bySlot) {
    /** The highest tombstone's version, -1 if none: no version at or below it is committed. */
    long tombstone() {
      long t = -1;
      for (List<ObjectFiles.Name> names : bySlot.values()) {
        for (ObjectFiles.Name n : names) {
          if (n.isTombstone()) {
            t = Math.max(t, n.version());
          }
        }
      }
      return t;
    }

    /** Whether a published shard above the highest tombstone is listed. */
    boolean hasShards() {
      long t = tombstone();
      for (List<ObjectFiles.Name> names : bySlot.values()) {
        for (ObjectFiles.Name n : names) {
          if (n.isShard() && n.version() > t) {
            return true;
          }
        }
      }
      return false;
    }

    /** Whether {@code slot}'s listing holds exactly {@code name}. */
    boolean has(int slot, ObjectFiles.Name name) {
      return bySlot.getOrDefault(slot, List.of()).contains(name);
    }
  }

  /** Lists {@code objectId}'s files on each live drive among {@code slots}. */
  private ObjectListing listing(long objectId, int[] slots) {
    Map<Integer, List<ObjectFiles.Name>> bySlot = new TreeMap<>();
    for (int slot : slots) {
      if (!alive(slot)) {
        continue;
      }
      List<String> names;
      try {
        names = drives.get(slot).list(ObjectFiles.prefix(objectId));
      } catch (IOException e) {
        noteFailure(slot, e);
        continue;
      }
      List<ObjectFiles.Name> parsed = new ArrayList<>();
      for (String n : names) {
        ObjectFiles.tryParse(n).filter(name -> name.objectId() == objectId).ifPresent(parsed::add);
      }
      bySlot.put(slot, parsed);
    }
    return new ObjectListing(objectId, bySlot);
  }

  /**
   * The highest version above the highest tombstone with a manifest that reads back on a drive
   * of {@code files}; an unreadable copy is skipped in favour of another drive's.
   */
  private Optional<ObjectManifest> latestIn(ObjectListing files) throws IOException {
    long objectId = files.objectId();
    long tombstone = files.tombstone();
    TreeMap<Long, List<Integer>> versions = new TreeMap<>();
    for (Map.Entry<Integer, List<ObjectFiles.Name>> e : files.bySlot().entrySet()) {
      for (ObjectFiles.Name name : e.getValue()) {
        if (name.isManifest() && !name.temp() && name.version() > tombstone) {
          versions.computeIfAbsent(name.version(), v -> new ArrayList<>()).add(e.getKey());
        }
      }
    }
    for (Long v : versions.descendingKeySet()) {
      for (int slot : versions.get(v)) {
        Drive d = drive(slot);
        if (d == null) {
          continue;
        }
        try {
          return Optional.of(ManifestFile.read(d, objectId, v));
        } catch (NoSuchFileException e) {
          continue; // deleted since listed
        } catch (ArrayException e) {
          noteFailure(slot, e);
          LOG.log(System.Logger.Level.WARNING, "{0}", e.getMessage());
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The latest committed manifest, from the drives; when no readable one is there but published
   * shards of the object are, the manifest rebuilt from their headers ({@link #recoverManifest}),
   * under the object's lock (taken here unless the calling thread holds it already).
   */
  private Optional<ObjectManifest> lookup(long objectId) throws IOException {
    int[] slots = placement.drivesFor(objectId);
    ObjectListing files = listing(objectId, slots);
    Optional<ObjectManifest> found = latestIn(files);
    if (found.isPresent() || !files.hasShards()) {
      return found;
    }
    if (locks.heldByCurrentThread(objectId)) {
      return recoverManifest(files);
    }
    Runnable unlock = locks.lock(objectId);
    try {
      files = listing(objectId, slots); // a write or a delete may have ended meanwhile
      found = latestIn(files);
      return found.isPresent() || !files.hasShards() ? found : recoverManifest(files);
    } finally {
      unlock.run();
    }
  }

  /**
   * Rebuilds the manifest of an object that has published shards but no readable manifest on
   * any live drive of its placement (audit D7: every drive holding one failed, or every copy
   * rotted), from its shard headers; call under the object's lock. The candidate is the highest
   * version of any shard or manifest listed, and it is rebuilt only when all of this holds:
   *
   * <ul>
   *   <li>no tombstone at or above it (a delete in progress; deleted versions never come back);
   *   <li>something says it was committed: a manifest of it was listed but does not read back,
   *       or fewer than all of its shards are present (the drives that held its manifests are
   *       gone). All shards present and no manifest at all is a write that never committed (a
   *       commit that found too few manifests durable, a crash before the first): garbage;
   *   <li>the headers of its shards agree with each other and with their file names and slots,
   *       and at least k of them verify (every cell against its CRC).
   * </ul>
   *
   * Then the manifest (the writer's own: the headers carry its length, geometry and creation
   * time; placement gives the slots) is written again on every live drive of the placement and
   * a WARNING names the object and version. Empty when it cannot be rebuilt.
   */
  private Optional<ObjectManifest> recoverManifest(ObjectListing files) throws IOException {
    long id = files.objectId();
    long tombstone = files.tombstone();
    long version = -1;
    for (List<ObjectFiles.Name> names : files.bySlot().values()) {
      for (ObjectFiles.Name n : names) {
        if (!n.temp() && !n.isTombstone()) {
          version = Math.max(version, n.version());
        }
      }
    }
    if (version < 0 || version <= tombstone) {
      return Optional.empty();
    }
    Long refused = unrecoverable.get(id);
    if (refused != null && refused == version) {
      return Optional.empty(); // tried before: nothing has brought a missing shard back since
    }
    int[] slots = placement.drivesFor(id);
    boolean unreadableManifest = false;
    int present = 0;
    for (int i = 0; i < slots.length; i++) {
      unreadableManifest |= files.has(slots[i],
          new ObjectFiles.Name(id, version, ObjectFiles.Name.MANIFEST, false));
      present += files.has(slots[i], new ObjectFiles.Name(id, version, i, false)) ? 1 : 0;
    }
    String which = String.format("object %016x version %d", id, version);
    if (!unreadableManifest && present == slots.length) {
      return Optional.empty(); // never committed (see above): collectGarbage deletes it
    }
    ShardHeader first = null;
    int verified = 0;
    for (int i = 0; i < slots.length; i++) {
      Drive d = drive(slots[i]);
      if (d == null || !files.has(slots[i], new ObjectFiles.Name(id, version, i, false))) {
        continue;
      }
      String name = ObjectFiles.shard(id, version, i);
      try (ShardReader r = ShardReader.open(d, name)) {
        ShardHeader h = r.header();
        if (h.objectId() != id || h.objectVersion() != version || h.shardIndex() != i
            || (first != null && !sameVersion(first, h))
            || h.protection().width() != slots.length) {
          LOG.log(System.Logger.Level.WARNING, "{0}: no manifest, and shard {1} on slot {2}"
              + " disagrees with its name or the other shards ({3}); not rebuilt", which, i,
              slots[i], h);
          unrecoverable.put(id, version);
          return Optional.empty();
        }
        first = first == null ? h : first;
        verified += verifies(d, r) ? 1 : 0;
      } catch (NoSuchFileException e) {
        continue; // deleted since listed
      } catch (ArrayException e) {
        noteFailure(slots[i], e); // a drive failure; a corrupt shard just does not count
      }
    }
    int k = first == null ? Integer.MAX_VALUE : first.layout().dataShards();
    if (verified < k) {
      LOG.log(System.Logger.Level.WARNING, "{0}: no readable manifest and {1} verified shards of"
          + " {2} present; not rebuilt", which, verified, present);
      unrecoverable.put(id, version);
      return Optional.empty();
    }
    ObjectManifest m = ObjectManifest.of(id, version, first.layout(), slots, first.created());
    int written = 0;
    for (int slot : slots) {
      Drive d = drive(slot);
      if (d != null && tolerant(slot, () -> {
        ManifestFile.write(d, m);
        return true;
      }, false)) {
        written++;
      }
    }
    LOG.log(System.Logger.Level.WARNING, "{0}: no readable manifest on any live drive; rebuilt it"
        + " from {1} verified shard headers ({2} of {3} shards present) and wrote it on {4}"
        + " drives", which, verified, present, slots.length, written);
    return Optional.of(m);
  }

  /** Whether two shard headers describe the same object version (all but the shard itself). */
  private static boolean sameVersion(ShardHeader a, ShardHeader b) {
    return a.objectId() == b.objectId() && a.objectVersion() == b.objectVersion()
        && a.protection().equals(b.protection()) && a.cellSize() == b.cellSize()
        && a.objectLength() == b.objectLength() && a.created().equals(b.created());
  }

  /** Whether every cell of the shard {@code r} reads passes its CRC. */
  private boolean verifies(Drive d, ShardReader r) throws IOException {
    ShardHeader h = r.header();
    int perRead = Math.max(1, (1 << 20) / h.cellSize());
    ByteBuffer buf = d.allocateAligned(perRead * h.cellSize());
    for (int c = 0; c < h.cellCount(); c += perRead) {
      int n = Math.min(perRead, h.cellCount() - c);
      buf.clear().limit(n * h.cellSize());
      if (r.readRange((long) c * h.cellSize(), (long) n * h.cellSize(), buf).length > 0) {
        return false;
      }
    }
    return true;
  }

  private boolean hasManifest(int slot, ObjectManifest m) throws IOException {
    try {
      ManifestFile.read(drives.get(slot), m.objectId(), m.version());
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (ArrayException e) {
      if (Drive.isDriveFailure(e)) {
        throw noteFailure(slot, e);
      }
      return false; // corrupt: rewrite it
    }
  }

  /** Deletes the manifests, then the shards, of versions below {@code version}. Best effort. */
  private void deleteOlderThan(long objectId, long version, int[] slots) {
    for (boolean manifests : new boolean[] {true, false}) {
      for (int slot : slots) {
        if (!alive(slot)) {
          continue;
        }
        Drive d = drives.get(slot);
        try {
          boolean any = false;
          for (String n : d.list(ObjectFiles.prefix(objectId))) {
            Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
            if (name.isPresent() && name.get().version() < version && !name.get().temp()
                && name.get().isManifest() == manifests) {
              any |= d.delete(n);
            }
          }
          if (any) {
            d.syncDirectory();
          }
        } catch (IOException e) {
          noteFailure(slot, e); // left for collectGarbage
        }
      }
    }
  }

  private static void closeAll(Drive[] drives) throws IOException {
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
