package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveQueues;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.CellChecksums;
import io.parityfs.raid.array.format.ObjectLayout;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.ShardHeader;
import io.parityfs.raid.array.format.VersionTag;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A streaming write of one new object version: {@link #write} or {@link #transferFrom} any number
 * of times, then {@link #commit} (the version becomes visible atomically) or {@link #abort} (or
 * {@link #close} without commit: nothing becomes visible). The length need not be known up front;
 * it may not exceed the array's maximum object size. Obtained from {@link ObjectStore#openWriter}.
 *
 * <p><b>Pipeline.</b> Bytes are gathered into batches of {@link StoreOptions#stripesPerBatch}
 * stripes: per shard, one aligned buffer holding the batch's cells of that shard back to back.
 * A full batch is encoded in one {@code encodeBatch} call (so a GPU codec gets large batches),
 * then each shard's cells go to its drive in one request on the drive's queue ({@link
 * DriveQueues}), all drives in parallel, while the caller fills the next batch. At most {@link
 * StoreOptions#batchesInFlight} batches exist, so memory is bounded whatever the object's size:
 * {@code batchesInFlight x width x stripesPerBatch x cellSize} bytes.
 *
 * <p><b>Commit.</b> Every shard is finished (CRC table, header, fsync) and published (rename,
 * directory fsync), all drives in parallel; then the manifest is written on every live drive of
 * the placement. The version is committed when the first manifest is durable. See "Write and
 * commit" in {@code docs/array.md}. The manifest and the shard headers carry the {@link
 * VersionTag} set with {@link #tag}, so the tag is committed atomically with the version.
 *
 * <p><b>Failures.</b> A drive failing ({@link ArrayError#DRIVE_IO}) drops its shard (the drive is
 * marked failed) and the write goes on degraded while at most m shards are dropped ({@link
 * ArrayError#NOT_ENOUGH_DRIVES} beyond). Any other failure (a full drive, {@link
 * ArrayError#NO_SPACE}) fails the whole write: the writer aborts itself and rethrows; the old
 * version stays. One writer per object at a time: {@link ObjectStore#openWriter} waits for the
 * previous writer of the object to finish. Not thread-safe: one thread feeds a writer.
 *
 * <p><b>A slot taken away meanwhile.</b> Each shard is written to the drive its slot had when the
 * writer opened ({@link #targets}). If the slot stops being that drive while the write runs
 * (failed by an admin, by another request's drive error, or given a hot spare or a replacement),
 * the shard is dropped as if its drive had failed: no later step touches either drive for it.
 * After the commit, a shard left off the drive its slot now holds is reported to the store
 * ({@link SlotTracker#committedWithout}), so that the rebuild of that drive writes it; a rebuild
 * does not end while a writer that skips its drive is open ({@link #skips}).
 */
public final class ObjectWriter implements Closeable {
  private static final System.Logger LOG = System.getLogger(ObjectWriter.class.getName());

  private enum State {
    OPEN,
    COMMITTED,
    ABORTED
  }

  private final StoreContext ctx;
  private final ManifestCatalog catalog;
  private final long objectId;
  private final long version;
  private final int[] slots;
  private final int width;
  private final int k;
  private final int cellSize;
  private final long stripeBytes;
  private final int stripesPerBatch;
  private final boolean mirror;
  private final long maxLength;
  private final Instant created;
  private final Runnable unlock;
  private final ShardWriter[] writers;
  /**
   * The drive each shard is written to (null: left out from the start); set once every entry is
   * known, so a rebuild reading it never sees a half-filled array.
   */
  private volatile Drive[] targets;
  private final boolean[] dropped;
  private final CompletableFuture<?>[] chains;
  private final StripeBatch[] batches;
  private int current;
  /** Bytes in the current batch. */
  private long filled;
  /** The CRC32C of the bytes in the current cell so far, and how many there are. */
  private int cellCrc;
  private int cellFill;
  /** The running checksum of the cell window being filled ({@link #fill}). */
  private final java.util.zip.CRC32C windowCrc = new java.util.zip.CRC32C();
  /** Test hook: runs on each batch once it is encoded, before its cells go to the drives. */
  private java.util.function.Consumer<StripeBatch> beforeWrite;
  private long length;
  private int stripesWritten;
  private State state = State.OPEN;
  private Step beforeCommit;
  private VersionTag tag = VersionTag.NONE;

  ObjectWriter(StoreContext ctx, ManifestCatalog catalog, long objectId, long version, int[] slots, boolean[] dropped,
      Runnable unlock) throws IOException {
    ArrayConfig config = ctx.config();
    ObjectLayout empty = ObjectLayout.of(config, 0);
    this.ctx = ctx;
    this.catalog = catalog;
    this.objectId = objectId;
    this.version = version;
    this.slots = slots.clone();
    this.width = empty.shards();
    this.k = empty.dataShards();
    this.cellSize = empty.cellSize();
    this.stripeBytes = empty.stripeBytes();
    this.stripesPerBatch = ctx.options().stripesPerBatch(cellSize);
    this.mirror = config.protection() instanceof Protection.Mirror;
    this.maxLength = config.maxObjectSize();
    this.created = Instant.now();
    this.unlock = unlock;
    this.writers = new ShardWriter[width];
    this.dropped = dropped.clone();
    this.chains = new CompletableFuture<?>[width];
    // Registered before the drives are looked up: a rebuild of a drive attached after the look-up
    // then finds this writer among those that skip its drive.
    ctx.slots().writerOpened(this);
    boolean ok = false;
    try {
      Drive[] t = new Drive[width];
      for (int i = 0; i < width; i++) {
        t[i] = this.dropped[i] ? null : ctx.drive(slots[i]);
        this.dropped[i] = t[i] == null;
      }
      targets = t;
      ctx.checkEnoughDrives(objectId, slots, this.dropped);
      for (int i = 0; i < width; i++) {
        int shard = i;
        Drive d = t[i];
        chains[i] = d == null ? CompletableFuture.completedFuture(null)
            : ctx.queues().submit(slots[i], () -> shardStep(shard, () -> writers[shard] =
                new ShardWriter(d, ObjectFiles.shard(objectId, version, shard),
                    ShardHeader.of(objectId, version, shard, empty, created))));
      }
      int alignment = 4096;
      for (Drive d : t) {
        alignment = d == null ? alignment : Math.max(alignment, d.alignment());
      }
      batches = new StripeBatch[ctx.options().batchesInFlight()];
      for (int b = 0; b < batches.length; b++) {
        batches[b] = StripeBatch.allocate(ctx.buffers(), width, k, mirror, stripesPerBatch,
            cellSize, alignment);
      }
      ok = true;
    } finally {
      if (!ok) {
        abortQuietly();
      }
    }
  }

  /** The object being written. */
  public long objectId() {
    return objectId;
  }

  /** The version this writer will commit. */
  public long version() {
    return version;
  }

  /** Bytes written so far: the object's length if committed now. */
  public long length() {
    return length;
  }

  /**
   * Sets the tag {@link #commit} commits with the version, in its manifest and shard headers
   * ({@link VersionTag}); {@link VersionTag#NONE} until set, also for a rewrite ({@link
   * ObjectStore#openRewrite}: the old version's tag is not carried over). Any number of times
   * while the writer is open; the last one counts.
   *
   * @throws IllegalArgumentException when {@code tag} is null
   * @throws IllegalStateException once the writer is committed or aborted
   */
  public void tag(VersionTag tag) {
    if (tag == null) {
      throw new IllegalArgumentException("tag must not be null (VersionTag.NONE for none)");
    }
    checkOpen();
    this.tag = tag;
  }

  /**
   * Appends all of {@code src} (position to limit; its position advances to its limit).
   *
   * @throws IllegalArgumentException when the object would exceed the array's maximum object size
   *     (the writer is aborted)
   * @throws ArrayException NOT_ENOUGH_DRIVES, NO_SPACE, DRIVE_IO: the writer is aborted
   */
  public void write(ByteBuffer src) throws IOException {
    checkOpen();
    checkRoom(src.remaining());
    run(() -> fill(new ByteBuffer[] {src}, src.remaining()));
  }

  /**
   * Appends all of {@code srcs}, in order (positions advance to their limits), whose bytes the
   * sender gave with {@code crc}, their CRC32C as one sequence. The check is made on the batch
   * buffers the bytes were copied into, in the pass that takes each cell's checksum, so the bytes
   * are checksummed once on their way to the drives, and what is stored as a cell's checksum is
   * what the sender's CRC vouched for: damage in flight or in the copy fails this call, damage in
   * memory after it fails the cell's checksum when it is read.
   *
   * @throws ArrayException CORRUPT_INPUT when the bytes do not match {@code crc}; as {@link
   *     #write(ByteBuffer)} otherwise. On any failure the writer is aborted.
   */
  public void write(ByteBuffer[] srcs, int crc) throws IOException {
    checkOpen();
    long total = 0;
    for (ByteBuffer src : srcs) {
      total += src.remaining();
    }
    checkRoom(total);
    long bytes = total;
    run(() -> {
      int got = fill(srcs, bytes);
      if (got != crc) {
        throw new ArrayException(ArrayError.CORRUPT_INPUT, null, String.format(
            "object %016x: %d bytes written at %d have CRC32C %08x, their sender gave %08x",
            objectId, bytes, length - bytes, got, crc));
      }
    });
  }

  /**
   * Copies all of {@code srcs} ({@code left} bytes), in order, into the batch buffers; returns the
   * CRC32C of their bytes. Cell window by cell window: each window is checksummed in one running CRC as its
   * pieces (from one source buffer or several) are copied in, so pieces are combined only where
   * a window is not a whole cell (the edges of the sources).
   */
  private int fill(ByteBuffer[] srcs, long left) throws IOException {
    int crc = 0;
    int s = 0;
    while (left > 0) {
      ByteBuffer cell = cellWindow(left);
      int n = cell.remaining();
      windowCrc.reset();
      while (cell.hasRemaining()) {
        while (!srcs[s].hasRemaining()) {
          s++;
        }
        ByteBuffer src = srcs[s];
        int k = Math.min(cell.remaining(), src.remaining());
        int at = cell.position();
        cell.put(src.duplicate().limit(src.position() + k));
        src.position(src.position() + k);
        windowCrc.update(cell.duplicate().position(at).limit(at + k)); // as copied: in cache
      }
      int w = (int) windowCrc.getValue();
      account(filled, w, n);
      crc = CellChecksums.combine(crc, w, n);
      advance(n);
      left -= n;
    }
    return crc;
  }

  /**
   * Appends exactly {@code count} bytes read from {@code src}, straight into the batch buffers.
   *
   * @throws EOFException when src ends first (the writer is aborted)
   * @throws IllegalArgumentException when the object would exceed the maximum object size
   */
  public void transferFrom(ReadableByteChannel src, long count) throws IOException {
    checkOpen();
    if (count < 0) {
      throw new IllegalArgumentException("count (" + count + ") must not be negative");
    }
    checkRoom(count);
    run(() -> {
      long left = count;
      while (left > 0) {
        ByteBuffer cell = cellWindow(left);
        int n = cell.remaining();
        while (cell.hasRemaining()) {
          if (src.read(cell) < 0) {
            throw new EOFException("the source ended " + (left - (n - cell.remaining()))
                + " bytes before the " + count + " bytes announced");
          }
        }
        account(filled, cell.position(cell.position() - n));
        advance(n);
        left -= n;
      }
    });
  }

  /**
   * Makes the bytes written a new committed version of the object and returns its manifest: what
   * {@link ObjectStore#stat} gives for the object from now on, until its next write or delete.
   *
   * @throws ArrayException NOT_ENOUGH_DRIVES, NO_SPACE, DRIVE_IO: nothing became visible
   */
  public ObjectManifest commit() throws IOException {
    checkOpen();
    if (beforeCommit != null) {
      Step last = beforeCommit;
      beforeCommit = null;
      run(last);
    }
    run(() -> {
      if (filled > 0) {
        int stripes = (int) ((filled + stripeBytes - 1) / stripeBytes);
        zeroTail(stripes);
        dispatch(stripes);
      }
      waitAll();
      ObjectLayout layout = ObjectLayout.of(ctx.config(), length);
      if (layout.stripes() != stripesWritten) {
        throw new IllegalStateException("wrote " + stripesWritten + " stripes for a layout of "
            + layout.stripes());
      }
      String[] temps = new String[width];
      for (int i = 0; i < width; i++) {
        int shard = i;
        long dataLength = layout.shardDataLength(i);
        chainStep(i, () -> temps[shard] = writers[shard].finish(length, dataLength, tag));
      }
      waitAll();
      for (int i = 0; i < width; i++) {
        int shard = i;
        Drive d = targets[i]; // where the shard was written, whatever the slot holds now
        chainStep(i, () -> {
          ShardWriter.publish(d, temps[shard], ObjectFiles.shard(objectId, version, shard));
          writers[shard] = null; // published: nothing to abort any more
          return null;
        });
      }
      waitAll();
    });
    ObjectManifest manifest = ObjectManifest.of(objectId, version,
        ObjectLayout.of(ctx.config(), length), slots, created, tag);
    state = State.COMMITTED;
    releaseBuffers();
    try {
      catalog.commitManifest(manifest);
      reportMissingShards();
    } finally {
      unlock();
    }
    return manifest;
  }

  /**
   * Whether this writer, still open, leaves {@code slot}'s shard off {@code drive}: it is writing
   * it elsewhere (the drive the slot had before), or not at all. True while the writer is still
   * looking its drives up. For a rebuild of {@code drive}, which must wait for such writers.
   */
  boolean skips(int slot, Drive drive) {
    Drive[] t = targets;
    for (int i = 0; i < width; i++) {
      if (slots[i] == slot) {
        return t == null || t[i] != drive || isDropped(i);
      }
    }
    return false;
  }

  /** After the commit: tells the store which shards are not on the drive their slot now has. */
  private void reportMissingShards() {
    for (int i = 0; i < width; i++) {
      ctx.slots().committedWithout(slots[i], objectId, isDropped(i) ? null : targets[i]);
    }
  }

  private void unlock() {
    ctx.slots().writerClosed(this);
    unlock.run();
  }

  /** Test hook: {@code hook} sees each batch once it is encoded, before it is written. */
  void beforeWrite(java.util.function.Consumer<StripeBatch> hook) {
    this.beforeWrite = hook;
  }

  /** Runs {@code step} at the start of {@link #commit} (it may still write). */
  void beforeCommit(Step step) {
    this.beforeCommit = step;
  }

  /** Abandons the write: nothing becomes visible; temp files are deleted (best effort). */
  public void abort() {
    if (state == State.OPEN) {
      abortQuietly();
    }
  }

  /** {@link #abort} unless committed. */
  @Override
  public void close() {
    abort();
  }

  // ---- internals ----

  interface Step {
    void run() throws IOException;
  }

  /** Runs a step of the write; any failure aborts the writer and is rethrown. */
  private void run(Step step) throws IOException {
    boolean ok = false;
    try {
      step.run();
      ok = true;
    } finally {
      if (!ok) {
        abortQuietly();
      }
    }
  }

  private void checkOpen() {
    if (state != State.OPEN) {
      throw new IllegalStateException(String.format(
          "the writer of object %016x version %d is %s", objectId, version, state));
    }
  }

  private void checkRoom(long more) {
    if (more > maxLength - length) {
      abortQuietly();
      throw new IllegalArgumentException(String.format(
          "object %016x would grow to %d bytes, above the array's maximum object size of %d;"
              + " the write was aborted", objectId, length + more, maxLength));
    }
  }

  /** The free part of the current cell, at most {@code max} bytes. */
  private ByteBuffer cellWindow(long max) {
    return cellWindow(filled, max);
  }

  /** The part of the current batch's cell holding batch byte {@code at}, at most {@code max}. */
  private ByteBuffer cellWindow(long at, long max) {
    int stripe = (int) (at / stripeBytes);
    int inStripe = (int) (at % stripeBytes);
    int shard = inStripe / cellSize;
    int inCell = inStripe % cellSize;
    int n = (int) Math.min(max, cellSize - inCell);
    int pos = stripe * cellSize + inCell;
    return batches[current].shards[mirror ? 0 : shard].duplicate().limit(pos + n).position(pos);
  }

  /**
   * Takes the checksum of {@code piece}, bytes just put into the cell at batch byte {@code at}
   * (the fill point: cells fill in order), into that cell's; records the cell's once it is full.
   */
  private void account(long at, ByteBuffer piece) {
    account(at, CellChecksums.crc32c(piece), piece.remaining());
  }

  /** {@link #account(long, ByteBuffer)} for a piece of {@code n} bytes whose CRC is known. */
  private void account(long at, int crc, int n) {
    cellCrc = cellFill == 0 ? crc : CellChecksums.combine(cellCrc, crc, n);
    cellFill += n;
    if (cellFill == cellSize) {
      int stripe = (int) (at / stripeBytes);
      int shard = mirror ? 0 : (int) (at % stripeBytes) / cellSize;
      batches[current].crcs[shard][stripe] = cellCrc;
      cellFill = 0;
    }
  }

  /** Counts {@code n} bytes just put into the current cell; dispatches a full batch. */
  private void advance(int n) throws IOException {
    filled += n;
    length += n;
    if (filled == stripeBytes * stripesPerBatch) {
      dispatch(stripesPerBatch);
    }
  }

  /** Zeros the current batch from the fill point to the end of its last stripe. */
  private void zeroTail(int stripes) {
    long end = stripes * stripeBytes;
    for (long at = filled; at < end; ) {
      ByteBuffer w = cellWindow(at, Long.MAX_VALUE);
      int n = w.remaining();
      while (w.hasRemaining()) {
        w.put((byte) 0);
      }
      account(at, w.position(w.position() - n));
      at += n;
    }
  }

  /**
   * Encodes the current batch's first {@code stripes} stripes and queues each shard's cells on its
   * drive; then moves to the next batch, waiting for the drives to be done with it.
   */
  private void dispatch(int stripes) throws IOException {
    StripeBatch b = batches[current];
    if (!mirror && width > k) {
      ByteBuffer[][] data = stripes == stripesPerBatch ? b.data : Arrays.copyOf(b.data, stripes);
      ByteBuffer[][] parity =
          stripes == stripesPerBatch ? b.parity : Arrays.copyOf(b.parity, stripes);
      ctx.codec().encodeBatch(data, parity);
    }
    if (beforeWrite != null) {
      beforeWrite.accept(b);
    }
    List<CompletableFuture<?>> writes = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      int shard = i;
      ByteBuffer cells = b.shards[mirror ? 0 : i].duplicate().limit(stripes * cellSize)
          .position(0);
      // Data cells carry the checksums taken as they were filled; parity's are computed.
      int[] crcs = mirror ? b.crcs[0] : i < k ? b.crcs[i] : null;
      writes.add(chainStep(i, () -> {
        writers[shard].writeCells(cells, crcs);
        return null;
      }));
    }
    b.done = CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]));
    stripesWritten += stripes;
    filled = 0;
    current = (current + 1) % batches.length;
    StripeBatch next = batches[current];
    if (next.done != null) {
      DriveQueues.join(next.done);
      next.done = null;
      checkDropped();
    }
  }

  /**
   * Queues {@code step} for shard {@code i} after its previous steps; skipped once the shard is
   * dropped. A drive failure in it drops the shard.
   */
  private CompletableFuture<?> chainStep(int i, DriveQueues.Task<?> step) {
    CompletableFuture<?> f = ctx.queues().then(chains[i], slots[i], () -> {
      if (!isDropped(i)) {
        shardStep(i, step);
      }
      return null;
    });
    chains[i] = f;
    return f;
  }

  /**
   * Runs one step of shard {@code i}. A drive failure marks the drive failed and drops the shard
   * (its writer aborted): the version is written degraded. So does a slot that no longer holds
   * the shard's drive (failed or replaced by someone else since the write began), before the
   * step or under it. Other errors propagate.
   */
  private Object shardStep(int i, DriveQueues.Task<?> step) throws IOException {
    if (!stillTarget(i)) {
      drop(i, "slot taken out of service during the write");
      return null;
    }
    try {
      return step.run();
    } catch (IOException e) {
      if (Drive.isDriveFailure(e)) {
        ctx.noteFailure(slots[i], e);
      } else if (stillTarget(i)) {
        throw e;
      } // else: the drive was taken away under the step (a closed channel, say)
      drop(i, e.getMessage());
      return null;
    }
  }

  /** Whether shard i's slot still holds the drive the shard is being written to. */
  private boolean stillTarget(int i) {
    return ctx.drive(slots[i]) == targets[i];
  }

  /** Stops writing shard i: aborts its writer (best effort) and marks it dropped. */
  private void drop(int i, String why) {
    ShardWriter w = writers[i];
    writers[i] = null;
    synchronized (dropped) {
      dropped[i] = true;
    }
    if (w != null) {
      try {
        w.abort();
      } catch (IOException ignored) {
        // the drive failed or left; its temp file is garbage for collectGarbage
      }
    }
    LOG.log(System.Logger.Level.WARNING, "object {0}: shard {1} on slot {2} dropped, writing"
        + " degraded: {3}", String.format("%016x", objectId), i, slots[i], why);
  }

  private boolean isDropped(int i) {
    synchronized (dropped) {
      return dropped[i];
    }
  }

  private void checkDropped() throws ArrayException {
    boolean[] now;
    synchronized (dropped) {
      now = dropped.clone();
    }
    ctx.checkEnoughDrives(objectId, slots, now);
  }

  /** Returns the batch buffers to the store's pool; only once no drive request uses them. */
  private void releaseBuffers() {
    if (batches == null) {
      return;
    }
    for (StripeBatch b : batches) {
      if (b != null) {
        b.release(ctx.buffers());
      }
    }
  }

  /** Waits for every shard's queued steps; rethrows the first failure. */
  private void waitAll() throws IOException {
    DriveQueues.joinAll(Arrays.asList(chains));
    checkDropped();
  }

  /**
   * Aborts: waits for the queued steps to end (so no request runs on a closed file), then deletes
   * every temp file. Errors are logged, never thrown.
   */
  private void abortQuietly() {
    if (state != State.OPEN) {
      return;
    }
    state = State.ABORTED;
    try {
      for (CompletableFuture<?> c : chains) {
        if (c != null) {
          try {
            DriveQueues.join(c);
          } catch (IOException | RuntimeException e) {
            // the failure is being reported by whoever called abort
          }
        }
      }
      releaseBuffers();
      for (ShardWriter w : writers) {
        if (w == null) {
          continue;
        }
        try {
          w.abort();
        } catch (IOException | RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "aborting shard {0} failed: {1}", w.tempName(), e);
        }
      }
    } finally {
      unlock();
    }
  }
}
