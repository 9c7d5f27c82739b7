package io.parityfs.raid.array.object;

import io.parityfs.raid.array.assembly.ArrayLabels;
import io.parityfs.raid.array.assembly.ArraySlot;
import io.parityfs.raid.array.assembly.AssembledArray;
import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.ObjectLayout;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.RunningCrc;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.SortedSet;
import java.util.function.IntConsumer;

/**
 * Objects on an assembled array: whole-object versioned writes, byte-range reads that reconstruct
 * from parity when a cell or drive is bad, deletes, and garbage collection of what a crash left.
 * See "Objects" in {@code docs/array.md}.
 *
 * <p><b>Write / commit.</b> {@link #write} streams the source one stripe at a time (k data cells,
 * zero padded at the end, encoded into m parity cells, or the same cell for every mirror copy)
 * into k+m {@link ShardWriter}s on the drives of {@link DrivePlacement#drivesFor}; then it finishes
 * (fsyncs) every shard, publishes every shard (rename + directory fsync), and only then writes
 * the manifest on every drive of the placement ({@link ManifestFile}). A write is acknowledged
 * only when enough manifests are durable for the version to survive as many more drive failures
 * as its shards do (m+1 on a healthy placement, see {@link
 * ManifestCatalog#commitManifest}); with fewer they are
 * taken back and the write fails. (A crash mid-way may leave a single manifest: recovery treats
 * the version as committed, since every shard it names was made durable before the first
 * manifest was written; the write was not acknowledged, so either outcome is correct.) Older
 * versions are deleted after the commit.
 *
 * <p><b>Read.</b> The latest version is the highest one with a readable manifest on any live drive
 * of the placement (cached after a write or a read); with none readable, the manifest is rebuilt
 * from the shard headers where they prove a committed version ({@link
 * ManifestRecovery#recover}). A tombstone left by a delete hides every version at or below it. A
 * healthy range read opens only the shards holding the range. A bad cell (CRC mismatch), a failed
 * drive, a missing or corrupt shard file makes the stripe be reconstructed from k survivors;
 * corrupt cells on live drives are rewritten in place; more than m unavailable shards in a stripe
 * is {@link ArrayError#OBJECT_LOST}, never wrong data.
 *
 * <p><b>Drive failures.</b> An operation that gets {@link ArrayError#DRIVE_IO} from a drive marks
 * its slot failed in this store (in memory: {@link #failedSlots}); that drive is not used again.
 * Making it durable in the labels ({@link ArrayLabels#markFailed}) is the caller's job: {@code
 * RaidArray} does it from the store's drive failure listener.
 * Writes leave out unavailable drives while at most m shards (mirror: copies - 1) are left out
 * ({@link ArrayError#NOT_ENOUGH_DRIVES} beyond that).
 *
 * <p><b>One store per array.</b> The latest manifest of each object is cached; another process
 * or store writing the same drives is not supported.
 *
 * <p><b>Parts.</b> This class holds the public operations; what they share (slots and drives,
 * codec, I/O engine, locks, counters) is a {@link StoreContext}, the manifests a {@link
 * ManifestCatalog}, deletes an {@link ObjectDelete}, garbage collection a {@link
 * GarbageCollector}.
 *
 * <p><b>Thread safety.</b> Reads may run concurrently with each other and with writes of other
 * objects. Writes and deletes of one object must not run concurrently with each other, and
 * {@link #collectGarbage} works one object at a time under the object's writer lock, so it may
 * run alongside writes and rebuilds (it leaves a rebuild's claimed temp files alone); it is meant
 * for right after opening ({@code RaidArray} runs it before resuming rebuilds). {@link
 * #collectGarbageOnline} is the pass for a store in use: it skips objects whose lock is held.
 */
public final class ObjectStore implements Closeable {
  private final StoreContext ctx;
  private final ManifestCatalog catalog;
  private final ObjectDelete deletes;
  private final GarbageCollector garbage;

  /**
   * A store over {@code drives}, indexed by data slot ({@code null}: slot failed or missing),
   * protected as {@code config} says; {@code codec} computes the parity (null for a mirror).
   */
  ObjectStore(ArrayConfig config, Drive[] drives, ParityCodec codec) {
    this(config, drives, codec, StoreOptions.DEFAULTS);
  }

  /** As above, with the I/O engine configured by {@code options}. */
  ObjectStore(ArrayConfig config, Drive[] drives, ParityCodec codec, StoreOptions options) {
    this.ctx = new StoreContext(config, drives, codec, options);
    this.catalog = new ManifestCatalog(ctx);
    this.deletes = new ObjectDelete(ctx, catalog);
    this.garbage = new GarbageCollector(ctx, catalog);
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
  public interface Opener {
    Drive open(Path dir) throws IOException;
  }

  public static ObjectStore open(AssembledArray array, ParityCodecFactory codecs,
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
      SlotTracker.closeAll(drives);
      throw e;
    }
    ParityCodec codec = config.protection() instanceof Protection.Parity p
        ? codecs.codec(p.geometry()) : null;
    return new ObjectStore(config, drives, codec, options);
  }

  /** The array's configuration. */
  public ArrayConfig config() {
    return ctx.config();
  }

  /** Cells found bad (CRC mismatch) and rewritten from parity or another copy. */
  public long cellsRepaired() {
    return ctx.cellsRepaired();
  }

  /** Cell reads served by a reconstruction from parity, or by another mirror copy. */
  public long degradedReads() {
    return ctx.degradedReads();
  }

  /** Bit i set: slot i failed (DRIVE_IO) during this store's life, or was absent at open. */
  public long failedSlots() {
    return ctx.failedSlots();
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
    ObjectLayout layout = ObjectLayout.of(ctx.config(), length);
    try (ObjectWriter w = openWriter(objectId)) {
      checkSpace(objectId, w, layout);
      w.transferFrom(src, length);
      return w.commit().version();
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
    ctx.throttle().foreground();
    Runnable unlock = ctx.locks().lock(objectId);
    boolean ok = false;
    try {
      int[] slots = ctx.placement().drivesFor(objectId);
      long version = catalog.highestVersion(objectId, slots) + 1; // marks drives that fail to list
      boolean[] dropped = new boolean[slots.length];
      for (int i = 0; i < slots.length; i++) {
        dropped[i] = !ctx.alive(slots[i]);
      }
      ObjectWriter w = new ObjectWriter(ctx, catalog, objectId, version, slots, dropped, unlock);
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
      return w.commit().version();
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
      ObjectManifest old = catalog.manifest(objectId);
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
        (long) ctx.options().stripesPerBatch(layout.cellSize()) * layout.stripeBytes()));
    ByteBuffer buf = ByteBuffer.allocateDirect(chunk);
    for (long done = 0; done < count; ) {
      buf.clear().limit((int) Math.min(chunk, count - done));
      new RangeRead(ctx, m).read(from + done, buf);
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
    ctx.throttle().foreground();
    ObjectManifest m = catalog.manifest(objectId);
    int start = into.position();
    for (int attempt = 0; ; attempt++) {
      try {
        return new RangeRead(ctx, m).read(offset, into);
      } catch (ArrayException e) {
        into.position(start);
        // An overwrite may have committed and deleted this version under us: retry on the new one.
        if (e.error() != ArrayError.OBJECT_LOST || attempt == 2) {
          throw e;
        }
        catalog.evict(objectId);
        ObjectManifest now = catalog.manifest(objectId);
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
    return read(objectId, version, offset, into, null);
  }

  /**
   * {@link #read(long, long, long, ByteBuffer)}, appending the CRC32C of the bytes read to {@code
   * crc} (null: none): for whole cells, the stored checksums they were just checked against, so
   * the bytes are checksummed once on their way from the drive and the checksum handed on is the
   * one stored with them, not one taken again from memory. Undefined after an exception.
   */
  public int read(long objectId, long version, long offset, ByteBuffer into, RunningCrc crc)
      throws IOException {
    ctx.throttle().foreground();
    ObjectManifest m = committed(objectId, version);
    int start = into.position();
    try {
      return new RangeRead(ctx, m).read(offset, into, crc);
    } catch (ArrayException e) {
      into.position(start);
      throw goneIfDeleted(objectId, version, e);
    }
  }

  /**
   * {@link #read(long, long, long, ByteBuffer, RunningCrc)} without a copy: up to {@code max}
   * bytes from {@code offset} go to {@code sink} in order, as views of the buffers the drives
   * read them into, lent to it ({@link PieceSink}). Returns the count passed on. After an
   * exception the sink may hold pieces of the range, which its caller discards (releasing their
   * loans).
   */
  public int read(long objectId, long version, long offset, int max, PieceSink sink,
      RunningCrc crc) throws IOException {
    ctx.throttle().foreground();
    ObjectManifest m = committed(objectId, version);
    try {
      return new RangeRead(ctx, m).read(offset, max, sink, crc);
    } catch (ArrayException e) {
      throw goneIfDeleted(objectId, version, e);
    }
  }

  /** The manifest of {@code version} of the object, VERSION_GONE when it is not the committed. */
  private ObjectManifest committed(long objectId, long version) throws IOException {
    ObjectManifest m = catalog.cached(objectId);
    if (m == null || m.version() != version) {
      m = stat(objectId).orElse(null);
    }
    if (m == null || m.version() != version) {
      throw versionGone(objectId, version, m);
    }
    return m;
  }

  /**
   * What a read of {@code version} that failed with {@code e} throws: VERSION_GONE when the
   * object lost means its files were deleted under the read (a newer version committed).
   */
  private ArrayException goneIfDeleted(long objectId, long version, ArrayException e)
      throws IOException {
    if (e.error() == ArrayError.OBJECT_LOST) {
      catalog.evict(objectId);
      ObjectManifest now = stat(objectId).orElse(null);
      if (now == null || now.version() != version) {
        return versionGone(objectId, version, now);
      }
    }
    return e;
  }

  private static ArrayException versionGone(long objectId, long version, ObjectManifest now) {
    return new ArrayException(ArrayError.VERSION_GONE, null, String.format(
        "object %016x version %d is no longer committed (%s)", objectId, version,
        now == null ? "the object was deleted" : "version " + now.version() + " replaced it"));
  }

  /** The length of the latest version of {@code objectId}. */
  public long length(long objectId) throws IOException {
    return catalog.manifest(objectId).objectLength();
  }

  /** The manifest of the latest committed version, if the object exists. */
  public Optional<ObjectManifest> stat(long objectId) throws IOException {
    return catalog.stat(objectId);
  }

  /**
   * Deletes {@code objectId}, touching only the files of its latest version that its manifest
   * names (no listing of the drives when the manifest is cached): first, on each drive of its
   * slots, the manifest is renamed to a tombstone ({@link ObjectFiles#tombstone}; on a drive
   * without it, the shard is) and the directory fsynced; then the shards go (a directory fsync
   * each), all drives in parallel, phase after phase. While a tombstone is on a live drive no
   * version at or below it is found, and none is rebuilt from its shards ({@link
   * ManifestRecovery#recover}): a crash after the first phase leaves a delete that {@link
   * #collectGarbage} finishes, never an object that comes back; a crash in it before any
   * tombstone is durable leaves the object as it was. The tombstones, and whatever else of the
   * object failed writes or deletes left (temps, other versions), stay for garbage collection;
   * so do temps a rebuild has claimed. An object with no committed version has its files found
   * by listing and deleted. Returns whether anything was deleted.
   */
  public boolean delete(long objectId) throws IOException {
    return deletes.delete(objectId);
  }

  /**
   * Cleans up what crashes and failed writes left, on every live drive: deletes every temp file,
   * every shard or manifest of a version older than the object's latest committed version, and
   * every shard of a newer version that no drive has a manifest for (never committed), provided
   * every drive of the placement is alive (else such shards are kept and logged: the one
   * manifest committing them may be on the drive that is away). Before deleting, the latest
   * manifest is written again on each live drive of its placement that lacks it or holds a
   * corrupt copy (roll forward: the version was committed when its first manifest was durable).
   * Each object is collected under its writer lock, skipping temps a rebuild claimed, so writes
   * and rebuilds of it wait or are left alone. Returns the number of files deleted.
   */
  public long collectGarbage() throws IOException {
    return garbage.collectGarbage();
  }

  /**
   * A garbage collection pass for an array in use (a long-lived node: {@code RaidArray} runs it
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
    return garbage.collectGarbageOnline();
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
    return garbage.garbageDeleted();
  }

  /** Runtime garbage collection passes ({@link #collectGarbageOnline}) since the store opened. */
  public long garbagePasses() {
    return garbage.garbagePasses();
  }

  /**
   * Ids of the objects in {@code [from, to]} (unsigned, both inclusive) that have a committed
   * manifest on a live drive, ascending unsigned; some may have been deleted since (check with
   * {@link #stat}). Cost: one directory listing per live drive, narrowed by the longest
   * hexadecimal prefix the two bounds share (a range such as one file's chunks lists only their
   * names). A drive that fails to list is marked failed and skipped.
   */
  public NavigableSet<Long> listObjects(long from, long to) {
    return catalog.listObjects(from, to);
  }

  /** Replaces the throttle; see {@link BackgroundThrottle}. */
  public void throttle(BackgroundThrottle throttle) {
    ctx.throttle(throttle);
  }

  /** Closes the drives. */
  @Override
  public void close() throws IOException {
    ctx.close();
  }

  // ---- for RaidArray, Rebuilder, Scrubber and tests in this package ----

  /** What the store's parts share. */
  public StoreContext context() {
    return ctx;
  }

  /** The store's manifests. */
  public ManifestCatalog catalog() {
    return catalog;
  }

  /** The placement of objects over the data slots. */
  public DrivePlacement placement() {
    return ctx.placement();
  }

  /** The throttle pacing background work (rebuild, scrub) against foreground requests. */
  BackgroundThrottle throttle() {
    return ctx.throttle();
  }

  /** Ids of every object with a file on a live drive, ascending ({@link ManifestCatalog}). */
  SortedSet<Long> objectIds() {
    return catalog.objectIds();
  }

  /** See {@link StoreContext#onObjectChange}. */
  public void onObjectChange(ObjectChangeListener listener) {
    ctx.onObjectChange(listener);
  }

  /** See {@link SlotTracker#onDriveFailure}. */
  public void onDriveFailure(IntConsumer listener) {
    ctx.slots().onDriveFailure(listener);
  }

  /** See {@link SlotTracker#attachDrive}. */
  public void attachDrive(int slot, Drive drive) throws IOException {
    ctx.slots().attachDrive(slot, drive);
  }

  /** See {@link SlotTracker#detachDrive}. */
  public void detachDrive(int slot) {
    ctx.slots().detachDrive(slot);
  }

  /**
   * Refuses a write of {@code layout} when a live drive of the writer's placement has less room
   * than its shard file needs ({@link ArrayError#NO_SPACE}), before anything is written.
   */
  private void checkSpace(long objectId, ObjectWriter w, ObjectLayout layout) throws IOException {
    long need = ShardFormat.fileLength(layout.cellSize(), layout.stripes());
    for (int slot : ctx.placement().drivesFor(objectId)) {
      Drive d = ctx.drive(slot);
      if (d == null) {
        continue;
      }
      long free = ctx.guard(slot, d::usableSpace);
      if (free < need) {
        w.abort();
        throw new ArrayException(ArrayError.NO_SPACE, d.root(), String.format(
            "object %016x: drive %s (slot %d) has %d bytes free, the shard needs %d; the write"
                + " was refused before writing anything", objectId, d.root(), slot, free, need));
      }
    }
  }
}
