package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveQueues;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ObjectLayout.CellSpan;
import io.parityfs.raid.array.format.ObjectLayout;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.RunningCrc;
import io.parityfs.raid.array.format.ShardHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One byte-range read of one object version: opens the shards it needs, lazily, reads the cells
 * holding the range, and for a cell it cannot read (CRC mismatch, failed drive, missing or corrupt
 * shard file) restores the stripe from k survivors (or takes another mirror copy), rewrites the
 * corrupt cells it met on live drives, and counts both on the {@link ObjectStore}. A shard found
 * unavailable is not tried again within the read. Single use, one thread.
 */
final class RangeRead {
  private static final System.Logger LOG = System.getLogger(RangeRead.class.getName());

  private enum Status {
    GOOD,
    CORRUPT,
    UNAVAILABLE
  }

  private final StoreContext ctx;
  private final ObjectManifest manifest;
  private final ObjectLayout layout;
  private final int width;
  private final int k;
  private final boolean mirror;
  private final int cellSize;
  private final ShardReader[] readers;
  private final ShardReaderCache.Lease[] leases;
  private final boolean[] opened;
  /** Why shard i cannot be read (null: it can, as far as known). */
  private final String[] unavailable;
  private final ByteBuffer[] cells;
  /** The CRC of the bytes given so far, for the caller; null when it wants none. */
  private RunningCrc crc;
  /** Where the bytes go, in order. */
  private PieceSink sink;
  /** Whether the sink is lent views of the window buffers instead of copying them at once. */
  private boolean lends;

  RangeRead(StoreContext ctx, ObjectManifest manifest) {
    this.ctx = ctx;
    this.manifest = manifest;
    this.layout = manifest.layout();
    this.width = layout.shards();
    this.k = layout.dataShards();
    this.mirror = layout.protection() instanceof Protection.Mirror;
    this.cellSize = layout.cellSize();
    this.readers = new ShardReader[width];
    this.leases = new ShardReaderCache.Lease[width];
    this.opened = new boolean[width];
    this.unavailable = new String[width];
    this.cells = new ByteBuffer[width];
  }

  /** See {@link ObjectStore#read}. */
  int read(long offset, ByteBuffer into) throws IOException {
    return read(offset, into, null);
  }

  /**
   * See {@link ObjectStore#read(long, long, long, ByteBuffer, RunningCrc)}: whole cells that
   * passed their checksum add that checksum to {@code crc}; other pieces (parts of cells, cells
   * restored from parity) are checksummed as they are copied.
   */
  int read(long offset, ByteBuffer into, RunningCrc crc) throws IOException {
    return read(offset, into.remaining(), (view, loan) -> into.put(view), false, crc);
  }

  /**
   * See {@link ObjectStore#read(long, long, long, int, PieceSink, RunningCrc)}: up to {@code
   * max} bytes from {@code offset} to {@code sink}, whole window buffers lent to it (read into
   * buffers about the size of what is sent, {@link StoreContext#lendable}); the per-cell path's
   * pieces (a cell alone, restored or repaired) are passed without a loan, to be copied.
   */
  int read(long offset, int max, PieceSink sink, RunningCrc crc) throws IOException {
    return read(offset, max, sink, true, crc);
  }

  private int read(long offset, int max, PieceSink sink, boolean lends, RunningCrc crc)
      throws IOException {
    this.crc = crc;
    this.sink = sink;
    this.lends = lends;
    long length = manifest.objectLength();
    if (offset < 0 || offset > length) {
      throw new IllegalArgumentException(String.format(
          "offset (%d) must be in 0..%d for object %016x version %d", offset, length,
          manifest.objectId(), manifest.version()));
    }
    int n = (int) Math.min(max, length - offset);
    try {
      List<CellSpan> spans = layout.spans(offset, n);
      if (spans.size() < 2) {
        for (CellSpan span : spans) {
          put(span);
        }
      } else {
        bulk(spans);
      }
    } finally {
      for (int i = 0; i < width; i++) {
        if (leases[i] != null) {
          ctx.readerCache().release(leases[i]);
          leases[i] = null;
        }
      }
    }
    return n;
  }

  /** Passes {@code span} on (to be copied), reading (or restoring) its cell alone. */
  private void put(CellSpan span) throws IOException {
    ByteBuffer cell = mirror ? copy(span.stripe()) : cell(span.stripe(), span.shard());
    int from = span.offsetInCell();
    ByteBuffer piece = cell.duplicate().limit(from + span.length()).position(from);
    if (crc != null) {
      crc.addBytes(piece);
    }
    sink.piece(piece, null);
  }

  /**
   * The bulk path for a range of several cells: window by window ({@link
   * StoreOptions#stripesPerBatch} stripes), each shard's cells of the window are read in one
   * request, all drives in parallel, with up to {@link StoreOptions#threadsPerDrive} windows in
   * flight so every drive has several requests queued. When a data shard of the window is
   * unavailable (a failed drive, a missing file), every other shard is read over the window too
   * and the missing cells are restored in one {@code reconstructBatch}. Cells failing their CRC,
   * and stripes a batch cannot restore, take the per-cell path ({@link #put}), which restores and
   * repairs them.
   */
  private void bulk(List<CellSpan> spans) throws IOException {
    int window = ctx.options().stripesPerBatch(cellSize);
    List<List<CellSpan>> windows = new ArrayList<>();
    for (int from = 0; from < spans.size(); ) {
      int lo = spans.get(from).stripe();
      int to = from;
      while (to < spans.size() && spans.get(to).stripe() < lo + window) {
        to++;
      }
      windows.add(spans.subList(from, to));
      from = to;
    }
    int depth = Math.max(1, ctx.options().threadsPerDrive());
    ArrayDeque<WindowRead> inFlight = new ArrayDeque<>();
    try {
      int next = 0;
      while (next < windows.size() || !inFlight.isEmpty()) {
        while (next < windows.size() && inFlight.size() < depth) {
          inFlight.add(submitWindow(windows.get(next++)));
        }
        WindowRead w = inFlight.poll();
        try {
          finishWindow(w);
        } finally {
          w.release();
        }
      }
    } finally {
      for (WindowRead w : inFlight) {
        w.awaitQuietly();
        w.release();
      }
    }
  }

  /** The reads of one window in flight: per shard its buffer and pending request. */
  private final class WindowRead {
    final List<CellSpan> spans;
    final int lo;
    final int hi;
    final int readable;
    final boolean degraded;
    /** Where its buffers come from and go back to. */
    final BufferPool pool;
    final ByteBuffer[] bufs = new ByteBuffer[width];
    final ByteBuffer[] restored = new ByteBuffer[width];
    /** The loans of buffers lent to the sink (null: not lent), as bufs and restored. */
    final BufferLoan[] bufLoans = new BufferLoan[width];
    final BufferLoan[] restoredLoans = new BufferLoan[width];
    @SuppressWarnings("unchecked")
    final CompletableFuture<int[]>[] reads =
        new CompletableFuture[width];

    WindowRead(List<CellSpan> spans, int readable, boolean degraded) {
      this.spans = spans;
      this.lo = spans.get(0).stripe();
      this.hi = spans.get(spans.size() - 1).stripe();
      this.readable = readable;
      this.degraded = degraded;
      this.pool = lends ? ctx.lendable((hi - lo + 1) * cellSize) : ctx.buffers();
    }

    /** A loan of {@code src} (one of this window's buffers) for one more view of it. */
    BufferLoan lend(ByteBuffer src) {
      for (int i = 0; i < width; i++) {
        if (src == bufs[i]) {
          return (bufLoans[i] = bufLoans[i] == null ? new BufferLoan(src, pool) : bufLoans[i])
              .lend();
        }
        if (src == restored[i]) {
          return (restoredLoans[i] = restoredLoans[i] == null
              ? new BufferLoan(src, pool) : restoredLoans[i]).lend();
        }
      }
      throw new IllegalArgumentException("not a buffer of this window");
    }

    void awaitQuietly() {
      for (CompletableFuture<int[]> f : reads) {
        if (f != null) {
          try {
            DriveQueues.join(f);
          } catch (IOException | RuntimeException e) {
            // being abandoned: only waiting so that its buffers are free again
          }
        }
      }
    }

    /** Gives the buffers back, or this read's hold of those lent (the sink's last frees it). */
    void release() {
      for (int i = 0; i < width; i++) {
        giveOrRelease(bufs[i], bufLoans[i]);
        giveOrRelease(restored[i], restoredLoans[i]);
        bufs[i] = null;
        restored[i] = null;
        bufLoans[i] = null;
        restoredLoans[i] = null;
      }
    }

    private void giveOrRelease(ByteBuffer b, BufferLoan loan) {
      if (loan != null) {
        loan.release();
      } else {
        pool.give(b);
      }
    }
  }

  /** Queues the reads of one window (opening its shards on this thread). */
  private WindowRead submitWindow(List<CellSpan> spans) {
    int readable = mirror ? firstReadableCopy() : -1;
    boolean[] needed = new boolean[width];
    for (CellSpan span : spans) {
      needed[mirror ? Math.max(readable, 0) : span.shard()] = true;
    }
    boolean degraded = false;
    if (!mirror) {
      for (int i = 0; i < k; i++) {
        degraded |= needed[i] && reader(i) == null;
      }
    }
    WindowRead w = new WindowRead(spans, readable, degraded);
    for (int i = 0; i < width; i++) {
      if (!(needed[i] || degraded) || reader(i) == null) {
        continue;
      }
      ShardReader r = readers[i];
      ByteBuffer buf = w.bufs[i] = w.pool.take();
      long at = (long) w.lo * cellSize;
      long len = (long) (w.hi - w.lo + 1) * cellSize;
      w.reads[i] = ctx.queues().submit(manifest.slotOf(i), () -> r.readRange(at, len, buf));
    }
    return w;
  }

  /** Waits for one window's reads and passes its spans to the sink. */
  private void finishWindow(WindowRead w) throws IOException {
    int[][] bad = new int[width][];
    for (int i = 0; i < width; i++) {
      if (w.reads[i] == null) {
        continue;
      }
      try {
        bad[i] = DriveQueues.join(w.reads[i]);
      } catch (ArrayException e) {
        if (e.error() == ArrayError.CORRUPT_SHARD || Drive.isDriveFailure(e)) {
          markUnavailable(i, e);
        } else {
          throw e;
        }
      } catch (IOException e) {
        markUnavailable(i, e);
      }
    }
    int lo = w.lo;
    boolean[] batched = w.degraded
        ? restoreWindow(lo, w.hi, bad, w.bufs, w.restored, w.pool) : null;
    for (CellSpan span : w.spans) {
      int s = span.stripe();
      int i = mirror ? w.readable : span.shard();
      ByteBuffer src = null;
      if (i >= 0 && bad[i] != null && Arrays.binarySearch(bad[i], s) < 0) {
        src = w.bufs[i];
      } else if (i >= 0 && batched != null && batched[s - lo] && w.restored[i] != null) {
        src = w.restored[i];
        ctx.countDegraded();
      }
      if (src == null) {
        put(span);
        continue;
      }
      int at = (s - lo) * cellSize + span.offsetInCell();
      ByteBuffer piece = src.duplicate().limit(at + span.length()).position(at);
      if (crc != null) {
        if (src == w.bufs[i] && span.length() == cellSize) {
          crc.add(readers[i].crc(s), cellSize); // checked against the bytes as read: no pass
        } else {
          crc.addBytes(piece);
        }
      }
      sink.piece(piece, lends ? w.lend(src) : null);
    }
  }

  /**
   * Restores the unavailable data shards' cells of stripes lo..hi into {@code restored} in one
   * batch, from the cells read into {@code bufs}; returns which stripes were restored (a stripe
   * with a CRC-bad cell, or too few readable shards, is left to the per-cell path).
   */
  private boolean[] restoreWindow(int lo, int hi, int[][] bad, ByteBuffer[] bufs,
      ByteBuffer[] restored, BufferPool pool) {
    int stripes = hi - lo + 1;
    boolean[] ok = new boolean[stripes];
    List<Integer> targetList = new ArrayList<>();
    int readable = 0;
    for (int i = 0; i < width; i++) {
      if (bad[i] == null) {
        if (i < k) {
          targetList.add(i);
        }
      } else {
        readable++;
      }
    }
    if (readable < k || targetList.isEmpty()) {
      return ok;
    }
    int[] targets = targetList.stream().mapToInt(Integer::intValue).toArray();
    for (int t : targets) {
      if (restored[t] == null) {
        restored[t] = pool.take();
      }
    }
    List<ByteBuffer[]> batch = new ArrayList<>();
    for (int s = 0; s < stripes; s++) {
      boolean clean = true;
      for (int i = 0; i < width; i++) {
        clean &= bad[i] == null || Arrays.binarySearch(bad[i], lo + s) < 0;
      }
      if (!clean) {
        continue;
      }
      ByteBuffer[] stripe = new ByteBuffer[width];
      for (int i = 0; i < width; i++) {
        ByteBuffer b = bad[i] != null ? bufs[i] : restored[i];
        stripe[i] = b == null ? null : b.slice(s * cellSize, cellSize);
      }
      batch.add(stripe);
      ok[s] = true;
    }
    if (!batch.isEmpty()) {
      ctx.codec().reconstructBatch(batch.toArray(new ByteBuffer[0][]), targets);
    }
    return ok;
  }

  /** The first mirror copy that can be opened, or -1. */
  private int firstReadableCopy() {
    for (int i = 0; i < width; i++) {
      if (reader(i) != null) {
        return i;
      }
    }
    return -1;
  }

  /** Data cell {@code shard} of {@code stripe}, read or reconstructed; a buffer of one cell. */
  private ByteBuffer cell(int stripe, int shard) throws IOException {
    Status s = tryRead(shard, stripe);
    if (s == Status.GOOD) {
      return cells[shard];
    }
    boolean[] corrupt = new boolean[width];
    corrupt[shard] = s == Status.CORRUPT;
    ByteBuffer[] shards = new ByteBuffer[width];
    int good = 0;
    for (int i = 0; i < width && good < k; i++) {
      if (i == shard) {
        continue;
      }
      Status t = tryRead(i, stripe);
      if (t == Status.GOOD) {
        shards[i] = cells[i];
        good++;
      } else if (t == Status.CORRUPT) {
        corrupt[i] = true;
      }
    }
    if (good < k) {
      throw lost(stripe);
    }
    List<Integer> targets = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      if (i == shard || corrupt[i]) {
        targets.add(i);
        shards[i] = buffer(i);
      }
    }
    ctx.codec().reconstruct(shards, targets.stream().mapToInt(Integer::intValue).toArray());
    ctx.countDegraded();
    for (int t : targets) {
      if (corrupt[t]) {
        repair(t, stripe, cells[t]);
      }
    }
    return cells[shard];
  }

  /** Cell {@code stripe} from the first mirror copy that reads back good. */
  private ByteBuffer copy(int stripe) throws IOException {
    List<Integer> corrupt = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      Status s = tryRead(i, stripe);
      if (s == Status.GOOD) {
        if (i > 0) {
          ctx.countDegraded();
        }
        for (int c : corrupt) {
          repair(c, stripe, cells[i]);
        }
        return cells[i];
      }
      if (s == Status.CORRUPT) {
        corrupt.add(i);
      }
    }
    throw lost(stripe);
  }

  /** Rewrites cell {@code stripe} of shard {@code shard} with {@code data}; counts it. */
  private void repair(int shard, int stripe, ByteBuffer data) {
    ShardReader r = readers[shard];
    if (r == null || unavailable[shard] != null) {
      return;
    }
    int slot = manifest.slotOf(shard);
    try {
      r.rewriteCell(stripe, data.duplicate().position(0).limit(cellSize));
      ctx.countRepair();
      LOG.log(System.Logger.Level.INFO, "object {0} version {1}: repaired cell {2} of shard {3}"
          + " on slot {4}", hex(), manifest.version(), stripe, shard, slot);
    } catch (IOException e) {
      ctx.noteFailure(slot, e);
      LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: repairing cell {2} of shard"
          + " {3} on slot {4} failed: {5}", hex(), manifest.version(), stripe, shard, slot,
          e.getMessage());
    }
  }

  /**
   * Reads cell {@code stripe} of shard {@code i} into {@code cells[i]} (position 0, limit one
   * cell). CORRUPT: the bytes failed their CRC and the shard is otherwise readable.
   */
  private Status tryRead(int i, int stripe) {
    ShardReader r = reader(i);
    if (r == null) {
      return Status.UNAVAILABLE;
    }
    ByteBuffer buf = buffer(i);
    try {
      r.readCell(stripe, buf);
      buf.flip();
      return Status.GOOD;
    } catch (ArrayException e) {
      if (e.error() == ArrayError.CORRUPT_CELL) {
        LOG.log(System.Logger.Level.WARNING, "{0}", e.getMessage());
        return Status.CORRUPT;
      }
      markUnavailable(i, e);
      return Status.UNAVAILABLE;
    } catch (IOException e) {
      markUnavailable(i, e);
      return Status.UNAVAILABLE;
    }
  }

  private ShardReader reader(int i) {
    if (unavailable[i] != null) {
      return null;
    }
    if (opened[i]) {
      return readers[i];
    }
    opened[i] = true;
    int slot = manifest.slotOf(i);
    Drive drive = ctx.drive(slot);
    if (drive == null) {
      unavailable[i] = "slot " + slot + " is failed or missing";
      return null;
    }
    String name = ObjectFiles.shard(manifest.objectId(), manifest.version(), i);
    try {
      ShardReaderCache.Lease lease = ctx.readerCache().acquire(slot, drive, name);
      if (!lease.reader().header().created().equals(manifest.created())) {
        // Another incarnation's file (the object was deleted and written again, and versions
        // restart at 0): a cached reader can outlive its file's name. Drop it, open the name anew.
        ctx.readerCache().discard(lease);
        ctx.readerCache().release(lease);
        lease = ctx.readerCache().acquire(slot, drive, name);
      }
      ShardReader r = lease.reader();
      ShardHeader h = r.header();
      if (h.shardIndex() != i || h.objectLength() != manifest.objectLength()
          || h.cellSize() != cellSize || !h.protection().equals(manifest.protection())
          || !h.created().equals(manifest.created())) {
        ctx.readerCache().discard(lease);
        ctx.readerCache().release(lease);
        unavailable[i] = "shard " + drive.root().resolve(name) + " disagrees with the manifest: "
            + h;
        return null;
      }
      leases[i] = lease;
      readers[i] = r;
      return r;
    } catch (NoSuchFileException e) {
      unavailable[i] = "shard " + drive.root().resolve(name) + " is missing";
    } catch (IOException e) {
      markUnavailable(i, e);
    }
    return null;
  }

  private void markUnavailable(int i, IOException e) {
    int slot = manifest.slotOf(i);
    ctx.noteFailure(slot, e);
    unavailable[i] = e.getMessage();
    LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: shard {2} on slot {3}"
        + " unavailable: {4}", hex(), manifest.version(), i, slot, e.getMessage());
    if (leases[i] != null) {
      ctx.readerCache().discard(leases[i]);
      ctx.readerCache().release(leases[i]);
      leases[i] = null;
    }
    readers[i] = null;
  }

  private ByteBuffer buffer(int i) {
    if (cells[i] == null) {
      Drive d = ctx.drive(manifest.slotOf(i));
      cells[i] = d != null ? d.allocateAligned(cellSize) : ByteBuffer.allocateDirect(cellSize);
    }
    return cells[i].clear();
  }

  private ArrayException lost(int stripe) {
    StringBuilder why = new StringBuilder();
    int bad = 0;
    for (int i = 0; i < width; i++) {
      if (unavailable[i] != null || (opened[i] && readers[i] == null)) {
        bad++;
        why.append("; shard ").append(i).append(" (slot ").append(manifest.slotOf(i)).append("): ")
            .append(unavailable[i]);
      }
    }
    return new ArrayException(ArrayError.OBJECT_LOST, null, String.format(
        "object %s version %d stripe %d cannot be read: fewer than %d of its %d shards are"
            + " readable (%s tolerates %d lost)%s", hex(), manifest.version(), stripe,
        mirror ? 1 : k, width, manifest.protection(), manifest.protection().tolerates(), why));
  }

  private String hex() {
    return String.format("%016x", manifest.objectId());
  }
}
