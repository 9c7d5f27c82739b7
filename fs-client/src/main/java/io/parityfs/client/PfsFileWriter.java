package io.parityfs.client;

import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Holes;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import io.parityfs.meta.targets.TargetInfo;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file open for random-access writing under its lease: writes at any offset (overwrite, or
 * past the end), reads that see them, truncate to any length, flush, sync, close. What a mounted
 * file system needs, and Hadoop's {@code truncate}. {@link ParityClient#openWriter} opens one.
 *
 * <p><b>Buffers.</b> A chunk being changed lives in a chunk-sized buffer: the first write to it
 * loads what its target stores (up to the file's length; zeros after), writes change the buffer,
 * and the whole chunk is stored (REPLACE: one new version, atomic on the node) when the buffer is
 * evicted (beyond {@code writeBufferBytes} of buffers, oldest first, in the background), and at
 * {@link #flush}, {@link #sync} and {@link #close}. A sequential writer thus stores each chunk
 * once, as {@link PfsOutputStream} does; a random writer rewrites the chunks it touches.
 *
 * <p><b>Length.</b> Committed in the namespace at flush, sync and close, after every buffer is
 * stored, with the members left out while their targets were down ({@link StaleMembers}): no
 * committed length ever covers bytes that are not stored. A failed store makes those calls throw
 * without committing (a {@link ClientException} with the failed store's status, e.g. NO_SPACE);
 * the lease then expires with the client or is recovered.
 *
 * <p><b>Holes.</b> Extending a file (a write past its end, a truncate up) stores nothing for
 * the groups wholly past the old end ({@link ChunkMap#group}: an ec group, else a chunk): they
 * become holes of the file ({@link Holes}), committed with the length, which read as zeros and
 * take no space. Only the rest of the group that holds the old end is zero-filled and stored. A
 * write into a hole takes its group out of the holes and stores it whole (zeros but for the
 * write) before the commit that records it, so a committed group outside the holes is always
 * stored, and readers stay strict there (a chunk shorter than the length is DATA_LOST, never
 * silently zeros). Past {@link Holes#MAX_RANGES} ranges an extension stores its zeros instead,
 * refused first when they would not fit ({@link #checkExtension}).
 *
 * <p><b>Truncating down</b> stores every buffer, then makes the chunk at the new end short
 * (stores its kept prefix, or deletes it when the new end is a chunk boundary), commits the new
 * length, and deletes the chunks after it in ascending order. Whatever step a crash interrupts,
 * lease recovery (the stored prefix: full chunks, then the first short one) cannot bring back
 * the truncated bytes: the prefix ends at the short chunk, and recovery deletes every chunk past
 * it (at a new writer generation) before committing. A delete that fails fails the writer, so
 * its close cannot close the file over a chunk left past the end; and every append or
 * openWriter deletes chunks past the length before writing.
 *
 * <p>Thread-safe: every method holds this writer's lock (a FUSE mount calls from many threads).
 */
public final class PfsFileWriter implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(PfsFileWriter.class);
  /**
   * The most zeros one extension stores when it cannot be holes (past {@link
   * Holes#MAX_RANGES}): seconds of writing, so that no extension runs long and unstoppable.
   */
  static final long MAX_ZEROS = 1L << 30;
  private final ParityClient client;
  private final String path;
  private final FileStatus file;
  private final Layout layout;
  private final int chunkSize;
  private final int maxBuffers;
  /** Chunks being changed, oldest first (the eviction order). */
  private final LinkedHashMap<Integer, Chunk> dirty = new LinkedHashMap<>();
  /** Buffers being stored in the background, by chunk, oldest first. */
  private final LinkedHashMap<Integer, CompletableFuture<Void>> storing = new LinkedHashMap<>();
  /** Deletes of copies after commits (ec): waited for at close. */
  private final List<CompletableFuture<Void>> releases = new ArrayList<>();
  /** Buffers whose store completed, for the next chunks (no 8 MiB allocation per chunk). */
  private final ConcurrentLinkedDeque<ByteBuffer> free = new ConcurrentLinkedDeque<>();
  /** Bytes stored per chunk by evictions since the last commit (beyond {@link #committed}). */
  private final Map<Integer, Integer> storedSinceCommit = new HashMap<>();
  private long length;
  private long committed;
  /** The modification time the next commits stamp, -1 for "now" ({@link #keepMtime}). */
  private long keptMtime = -1;
  private volatile Throwable failure;
  private boolean closed;
  /** The rounds of an ec:K+M layout across nodes; null for other layouts. */
  private final GroupWriter groups;
  private final ChunkMap map;
  private final StaleMembers stale;
  /** The groups never stored, with this writer's changes; committed with the length. */
  private Holes holes;
  /** The holes as last committed (what a writer that gives up closes the file with). */
  private Holes committedHoles;
  /** The members left out that the last commit put in the file's repair record. */
  private Repairs committedRecord = Repairs.NONE;

  /** A chunk's buffer (always chunk-sized) and how many of its bytes are the file's. */
  private static final class Chunk {
    final ByteBuffer buf;
    int valid;

    Chunk(ByteBuffer buf) {
      this.buf = buf;
    }
  }

  PfsFileWriter(ParityClient client, FileStatus file) throws IOException {
    this.client = client;
    this.path = file.path();
    this.file = file;
    this.layout = file.layout();
    this.chunkSize = ChunkIo.bufferSize(layout, path);
    this.maxBuffers = (int) Math.max(2, Math.min(1024,
        client.config().writeBufferBytes() / chunkSize));
    this.length = file.length();
    this.committed = file.length();
    this.map = ChunkMap.of(layout);
    this.holes = file.holes();
    this.committedHoles = file.holes();
    this.stale = new StaleMembers(layout.across(), client.config().writeMargin());
    this.groups = layout.across().isErasureCoded()
        ? new GroupWriter(client.chunks(), client.transfers(), file, stale) : null;
  }

  /** The file as opened (its id, layout, length at open). */
  public FileStatus file() {
    return file;
  }

  /** The length with every write and truncate so far (committed or not). */
  public synchronized long length() {
    return length;
  }

  /** Writes the remaining bytes of {@code src} (consumed) at {@code position}. */
  public synchronized void write(long position, ByteBuffer src) throws IOException {
    checkOpen();
    keptMtime = -1; // a write sets the modification time
    if (position < 0) {
      throw new IOException(path + ": negative write position " + position);
    }
    long end = Math.addExact(position, src.remaining());
    if (position > length) {
      zeroFill(length, position);
    }
    long p = position;
    while (src.hasRemaining()) {
      int index = chunkIndex(p);
      int at = (int) (p - (long) index * chunkSize);
      Chunk c = buffer(index);
      int n = Math.min(src.remaining(), chunkSize - at);
      c.buf.put(at, src, src.position(), n);
      src.position(src.position() + n);
      p += n;
      length = Math.max(length, p);
      c.valid = Math.max(c.valid, at + n);
      evictBeyondBudget(index);
    }
    length = Math.max(length, end);
  }

  /** Writes {@code len} bytes of {@code b} from {@code off} at {@code position}. */
  public void write(long position, byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    write(position, ByteBuffer.wrap(b, off, len));
  }

  /**
   * Reads into the remaining bytes of {@code dst} at {@code position}, this writer's changes
   * included; returns the bytes read, -1 at or past the end.
   */
  public synchronized int read(long position, ByteBuffer dst) throws IOException {
    checkOpen();
    if (position < 0) {
      throw new IOException(path + ": negative read position " + position);
    }
    if (position >= length) {
      return -1;
    }
    int total = (int) Math.min(dst.remaining(), length - position);
    long p = position;
    int done = 0;
    while (done < total) {
      int index = chunkIndex(p);
      int at = (int) (p - (long) index * chunkSize);
      int n = Math.min(total - done, chunkSize - at);
      Chunk c = dirty.get(index);
      if (c != null) {
        dst.put(dst.position(), c.buf, at, n);
        dst.position(dst.position() + n);
      } else {
        ByteBuffer piece = dst.duplicate();
        piece.limit(piece.position() + n);
        readStored(index, at, piece);
        dst.position(dst.position() + n);
      }
      p += n;
      done += n;
    }
    return total;
  }

  /**
   * Sets the length: shorter drops the bytes after it (see the class comment for the order),
   * longer adds zeros. Committed at once when shorter, at the next flush when longer.
   */
  public synchronized void truncate(long newLength) throws IOException {
    checkOpen();
    keptMtime = -1;
    if (newLength < 0) {
      throw new IOException(path + ": negative length " + newLength);
    }
    if (newLength > length) {
      zeroFill(length, newLength);
      length = newLength;
      return;
    }
    if (newLength == length && newLength == committed) {
      return;
    }
    storeAll();
    long oldStored = Math.max(committed, storedEnd());
    int cut = chunkIndex(newLength);
    int inChunk = (int) (newLength - (long) cut * chunkSize);
    Holes before = holes;
    boolean cutGroup = (long) cut * chunkSize < oldStored && !before.contains(map.group(cut));
    if (cutGroup && groups == null) {
      if (inChunk > 0) {
        ByteBuffer kept = ByteBuffer.allocate(inChunk);
        readStored(cut, 0, kept);
        kept.flip();
        client.chunks().write(file.id(), file.generation(), layout, cut, kept, stale);
      } else {
        deleteChunk(cut);
      }
    }
    holes = holes.below(map.groups(newLength));
    Repairs record = stale.repairs();
    client.namespace().setLength(path, file.id(), -1, newLength, -1, record, holes);
    committedHoles = holes;
    committedRecord = record;
    length = newLength;
    committed = newLength;
    storedSinceCommit.clear();
    long lastOld = oldStored == 0 ? -1 : chunkIndex(oldStored - 1);
    try {
      if (cutGroup && groups != null) {
        // ec: the new length is committed first, so that the bytes it drops are no longer
        // committed when the cut round replaces the members of the round that held them (the
        // kept bytes are in that round, then in copies, then in the cut round: audit H5)
        truncateGroup(cut, inChunk);
      }
      releaseCopies();
      // an ec cut at a chunk's start keeps that chunk until the cut round is stored and the
      // length committed (audit H5): it goes here, with the others
      for (long i = groups != null && inChunk == 0 ? cut : cut + 1; i <= lastOld; i++) {
        if (!before.contains(map.group(i))) {
          deleteChunk((int) i);
        }
      }
      if (groups != null && lastOld >= 0) {
        // the cut's group is gone when the cut is its first chunk's start; else it was stored
        boolean groupGone = inChunk == 0 && cut % groupSize() == 0;
        for (long g = groupGone ? map.group(cut) : map.group(cut) + 1; g <= map.group(lastOld);
            g++) {
          if (!before.contains(g)) {
            groups.deleteParity(g, g);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // a chunk past the new end is left: fail the writer, so that close does not close the
      // file over it; lease recovery then deletes every chunk past the end (with a new
      // generation) before anyone writes again
      if (failure == null) {
        failure = e;
      }
      throw e;
    }
  }

  /** Stores every change and commits the length: readers see both from then on (hflush). */
  public synchronized void flush() throws IOException {
    checkOpen();
    storeAll();
    // also when only the holes changed (a write filled one, its group is stored now), and
    // when only the record did: an overwrite stored around a down node left a member out, and
    // until the record names it every reader trusts that stale member (model test seed 4014)
    Repairs record = stale.repairs();
    if (length != committed || !holes.equals(committedHoles) || !record.equals(committedRecord)) {
      client.namespace().setLength(path, file.id(), -1, length, keptMtime, record, holes);
      committed = length;
      committedHoles = holes;
      committedRecord = record;
    }
    storedSinceCommit.clear();
    releaseCopies();
  }

  /**
   * Makes this writer's commits stamp {@code mtime} (milliseconds since the epoch) instead of
   * "now", in the same namespace write as the length, until the next write or truncate: a time
   * set on the file while it is open for writing ({@code futimens} before close, as {@code cp
   * -p} and {@code tar x} do) survives the commits, and no reader sees "now" in between.
   */
  public synchronized void keepMtime(long mtime) {
    if (mtime < 0) {
      throw new IllegalArgumentException("mtime (" + mtime + ") must be >= 0");
    }
    keptMtime = mtime;
  }

  /** As {@link #flush}: acknowledged chunk stores are already on the node's drives (hsync). */
  public void sync() throws IOException {
    flush();
  }

  /** Stores every change and closes the file (final length, lease released). */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    try {
      storeAll();
      client.namespace().complete(path, file.id(), -1, length, keptMtime, stale.repairs(),
          holes);
      committed = length;
      committedHoles = holes;
      releaseCopies();
    } catch (ClientException e) {
      if (e.status() == ClientStatus.NO_SPACE) {
        giveBack();
      }
      throw e;
    } finally {
      closed = true;
      dirty.clear();
      releases.forEach(CompletableFuture::join); // deletes of copies: they never fail
    }
  }

  /**
   * After the targets ran out of space: waits for the stores still in flight, deletes what this
   * writer stored past the committed length (the trim lease recovery does, at this writer's
   * generation: groups wholly past the end), and closes the file at the committed length. The
   * space of a failed extension comes back at once, and the file is not left open for writing
   * (before, the chunks stayed until the writer's session ended: for a mount, until it
   * unmounted). Bytes past the committed length were never acknowledged; the close still fails.
   */
  private void giveBack() {
    for (CompletableFuture<Void> f : new ArrayList<>(storing.values())) {
      f.handle((v, t) -> null).join();
    }
    storing.clear();
    try {
      client.lengthProbe().fenceAll(file, committed);
      client.namespace().complete(path, file.id(), -1, committed, keptMtime, stale.repairs(),
          committedHoles);
      LOG.info("{}: out of space; what was stored past the committed {} bytes is deleted and"
          + " the file closed at that length", path, committed);
    } catch (IOException e) {
      LOG.warn("{}: out of space, and what was stored past the committed {} bytes could not be"
          + " deleted ({}): lease recovery deletes it", path, committed, e.toString());
    }
  }

  // ------------------------------------------------------------------ internals

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(path + ": closed");
    }
    Throwable f = failure;
    if (f != null) {
      // the first failure's status (NO_SPACE, FENCED, ...) travels with it to the caller
      throw ClientException.rethrown(path, "writing " + path + " failed; nothing after the last"
          + " flush (" + committed + " bytes) is committed", f);
    }
  }

  private int chunkIndex(long position) {
    long i = position / chunkSize;
    if (i > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(path + ": position " + position + " is past the"
          + " largest chunk index");
    }
    return (int) i;
  }

  /** How many bytes of chunk {@code index} its target holds now (0 in a hole). */
  private int storedLength(int index) {
    Integer s = storedSinceCommit.get(index);
    if (s != null) {
      return s;
    }
    if (holes.contains(map.group(index))) {
      return 0;
    }
    long start = (long) index * chunkSize;
    return (int) Math.max(0, Math.min(chunkSize, committed - start));
  }

  /** The end of what evictions stored past the committed length, 0 when none. */
  private long storedEnd() {
    long end = 0;
    for (Map.Entry<Integer, Integer> e : storedSinceCommit.entrySet()) {
      end = Math.max(end, (long) e.getKey() * chunkSize + e.getValue());
    }
    return end;
  }

  /** Reads stored bytes of chunk {@code index} from {@code at} into {@code dst}; zeros after. */
  private void readStored(int index, int at, ByteBuffer dst) throws IOException {
    awaitStoring(index);
    int stored = storedLength(index);
    int want = dst.remaining();
    int fromTarget = Math.max(0, Math.min(want, stored - at));
    ByteBuffer part = dst.duplicate();
    part.limit(part.position() + fromTarget);
    long offset = at;
    while (part.hasRemaining()) {
      int n = client.chunks().read(file.id(), layout, file.repairs().with(stale.repairs()),
          index, offset, part);
      if (n <= 0) {
        throw new ClientException(ClientStatus.DATA_LOST, path, path + ": chunk " + index
            + " of file " + file.id() + " holds fewer bytes than the " + stored
            + " it was written with (data lost)");
      }
      offset += n;
    }
    for (int i = fromTarget; i < want; i++) {
      dst.put(dst.position() + i, (byte) 0);
    }
    dst.position(dst.position() + want);
  }

  /** The buffer of chunk {@code index}, loaded with its stored bytes the first time. */
  private Chunk buffer(int index) throws IOException {
    Chunk c = dirty.get(index);
    if (c != null) {
      return c;
    }
    fillHole(index);
    ByteBuffer recycled = free.poll();
    c = new Chunk(recycled != null ? recycled : ByteBuffer.allocate(chunkSize));
    int stored = storedLength(index);
    if (stored > 0) {
      ByteBuffer in = c.buf.duplicate();
      in.limit(stored);
      readStored(index, 0, in);
    } else {
      awaitStoring(index);
    }
    if (recycled != null) {
      Arrays.fill(c.buf.array(), stored, chunkSize, (byte) 0);
    }
    long start = (long) index * chunkSize;
    c.valid = (int) Math.max(stored, Math.max(0, Math.min(chunkSize, length - start)));
    dirty.put(index, c);
    return c;
  }

  /**
   * A write into a hole: takes the group of chunk {@code index} out of the holes, its chunks
   * within the length as zero buffers (stored with the write, the group whole, before the
   * commit that records it) and as holding nothing stored yet.
   */
  private void fillHole(int index) {
    long g = map.group(index);
    if (!holes.contains(g)) {
      return;
    }
    holes = holes.without(g);
    int first = (int) (g * groupSize());
    for (int i = first; i < first + groupSize(); i++) {
      long start = (long) i * chunkSize;
      if (start < length || i == index) {
        storedSinceCommit.put(i, 0);
      }
      if (i != index && start < length && !dirty.containsKey(i)) {
        ByteBuffer recycled = free.poll();
        Chunk z = new Chunk(recycled != null ? recycled : ByteBuffer.allocate(chunkSize));
        if (recycled != null) {
          Arrays.fill(z.buf.array(), (byte) 0);
        }
        z.valid = (int) Math.min(chunkSize, length - start);
        dirty.put(i, z);
      }
    }
  }

  /**
   * Extends the file from {@code from} to {@code to}: the groups wholly past {@code from} become
   * holes, and the rest of the group that holds {@code from} (unless it is a hole) is
   * zero-filled; past {@link Holes#MAX_RANGES} hole ranges, every byte is zero-filled.
   */
  private void zeroFill(long from, long to) throws IOException {
    checkChunkIndex(to);
    long perGroup = (long) groupSize() * chunkSize;
    long firstHole = (from + perGroup - 1) / perGroup; // the first group wholly past from
    long denseTo = Math.min(to, firstHole * perGroup);
    if (from > 0 && holes.contains((from - 1) / perGroup)) {
      firstHole = (from - 1) / perGroup; // the end is in a hole: it just grows
      denseTo = from;
    }
    long lastHole = (to - 1) / perGroup;
    Holes more = holes.with(firstHole, lastHole);
    if (firstHole <= lastHole && more.ranges().size() <= Holes.MAX_RANGES) {
      fillZeros(from, denseTo);
      holes = more;
      length = Math.max(length, to);
      return;
    }
    if (to - from > MAX_ZEROS) {
      // a long extension could not be interrupted: refused before a byte is stored
      throw new FileTooLargeException(path, path + ": extending it from " + from + " to " + to
          + " bytes would store " + (to - from) + " bytes of zeros: its hole record is full ("
          + Holes.MAX_RANGES + " ranges of groups never stored), and at most " + MAX_ZEROS
          + " bytes of zeros are stored at once (write the file in order, or copy it to make"
          + " its holes one range)");
    }
    checkExtension(from, to);
    fillZeros(from, to);
  }

  /** Zero-filled chunks for {@code [from, to)} (their buffers: stored like any other). */
  private void fillZeros(long from, long to) throws IOException {
    long p = from;
    while (p < to) {
      int index = chunkIndex(p);
      int at = (int) (p - (long) index * chunkSize);
      int n = (int) Math.min(to - p, chunkSize - at);
      Chunk c = buffer(index);
      Arrays.fill(c.buf.array(), at, at + n, (byte) 0);
      c.valid = Math.max(c.valid, at + n);
      p += n;
      length = Math.max(length, p);
      evictBeyondBudget(index);
    }
  }

  /**
   * Refuses, before a byte is stored, an extension from {@code from} to {@code to} that the
   * file's targets could not hold ({@link ExtensionSpace}): past the layout's last chunk index,
   * or more zeros, with the copies or parity of its protection across nodes, than fit in the
   * free space of the file systems its targets are on. An extension of up to one chunk is left
   * to the store's own NO_SPACE.
   */
  private void checkExtension(long from, long to) throws IOException {
    if (to - from <= chunkSize) {
      return;
    }
    List<TargetInfo> targets = new ArrayList<>();
    for (String id : layout.targets()) {
      client.registry().target(id).ifPresent(targets::add);
    }
    String refusal = ExtensionSpace.refusal(layout, targets, to - from);
    if (refusal != null) {
      throw new FileTooLargeException(path, path + ": extending it from " + from + " to " + to
          + " bytes " + refusal);
    }
  }

  /** FILE_TOO_LARGE when a length of {@code to} is past what the file's layout can hold. */
  private void checkChunkIndex(long to) throws IOException {
    long max = Math.min(map.maxLength(), ((long) Integer.MAX_VALUE + 1) * chunkSize);
    if (to > max) {
      throw new FileTooLargeException(path, path + ": length " + to + " is past the largest chunk"
          + " index of its layout (" + max + " bytes)");
    }
  }

  /** Stores the oldest buffers (not {@code keep}) while there are more than the budget. */
  private void evictBeyondBudget(int keep) throws IOException {
    while (dirty.size() > maxBuffers) {
      // a fresh look each time: an ec group's store takes its other dirty chunks with it
      Map.Entry<Integer, Chunk> oldest = null;
      for (Map.Entry<Integer, Chunk> e : dirty.entrySet()) {
        if (e.getKey() != keep) {
          oldest = e;
          break;
        }
      }
      if (oldest == null) {
        return;
      }
      dirty.remove(oldest.getKey());
      store(oldest.getKey(), oldest.getValue());
    }
  }

  /**
   * Stores one chunk's buffer in the background; first waits for the oldest stores while as
   * many as the buffer budget are in flight (so at most twice writeBufferBytes are held).
   */
  private void store(int index, Chunk c) throws IOException {
    if (groups != null) {
      storeGroup(index, c);
      return;
    }
    awaitStoring(index);
    while (storing.size() >= maxBuffers) {
      awaitStoring(storing.keySet().iterator().next());
    }
    ByteBuffer data = c.buf.duplicate();
    data.position(0).limit(c.valid);
    storedSinceCommit.put(index, c.valid);
    follow(index, List.of(c.buf), () -> CompletableFuture.runAsync(() -> {
      try {
        client.chunks().write(file.id(), file.generation(), layout, index, data, stale);
      } catch (IOException e) {
        throw new CompletionException(e);
      }
    }, client.transfers()));
  }

  /**
   * Starts a store and follows it in {@link #storing} under {@code key}: its failure becomes the
   * writer's, and {@code buffers} are kept for reuse once it ends.
   */
  private void follow(int key, List<ByteBuffer> buffers,
      java.util.function.Supplier<CompletableFuture<Void>> start) throws ClientException {
    CompletableFuture<Void> f;
    try {
      f = start.get();
    } catch (RuntimeException e) {
      throw new ClientException(ClientStatus.IO_ERROR, path, "cannot schedule a store of " + path
          + ": " + e, e);
    }
    f.whenComplete((v, e) -> {
      if (e != null && failure == null) {
        failure = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      }
      for (ByteBuffer b : buffers) {
        if (free.size() < maxBuffers) {
          free.push(b);
        }
      }
    });
    storing.put(key, f);
  }

  /** Stores every buffer and waits for every store; throws the first failure. */
  private void storeAll() throws IOException {
    // oldest first, each taken out as it is stored: an ec group's store takes its other dirty
    // chunks with it, so each group is stored once, with all of its changes
    while (!dirty.isEmpty()) {
      Map.Entry<Integer, Chunk> e = dirty.entrySet().iterator().next();
      dirty.remove(e.getKey());
      store(e.getKey(), e.getValue());
    }
    for (Integer index : new ArrayList<>(storing.keySet())) {
      awaitStoring(index);
    }
    checkOpen();
  }

  /**
   * Tests: waits until every store started so far has ended, failed or not, without storing
   * or committing anything more (a writer about to be killed at a known point).
   */
  synchronized void awaitInFlight() {
    for (CompletableFuture<Void> f : new ArrayList<>(storing.values())) {
      try {
        f.join();
      } catch (CompletionException | java.util.concurrent.CancellationException e) {
        // recorded as the writer's failure
      }
    }
  }

  private void awaitStoring(int index) throws IOException {
    CompletableFuture<Void> f = storing.remove(storeKey(index));
    if (f == null) {
      return;
    }
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted storing chunk " + index + " of " + path);
    } catch (ExecutionException e) {
      checkOpen(); // the failure was recorded
      throw ClientException.rethrown(path, path + ": storing chunk " + index, e.getCause());
    }
  }

  private void deleteChunk(int index) throws IOException {
    client.chunks().delete(file.id(), file.generation(), layout, index, stale);
  }

  // ------------------------------------------------------------------ ec:K+M groups

  /** Data chunks per group (ec), else 1. */
  private int groupSize() {
    return groups == null ? 1 : layout.across().data();
  }

  /** Where a chunk's store is followed in {@link #storing}: its group's first chunk for ec. */
  private int storeKey(int index) {
    return groups == null ? index : (int) (map.group(index) * groupSize());
  }

  /**
   * Stores the group of chunk {@code index} (whose buffer {@code c} was just taken out of the
   * dirty ones) in one round: every data chunk it holds, its changed buffers and the stored
   * bytes of the others, with its parity (docs/across-nodes.md §3).
   */
  private void storeGroup(int index, Chunk c) throws IOException {
    int k = groupSize();
    int first = storeKey(index);
    awaitStoring(first);
    while (storing.size() >= maxBuffers) {
      awaitStoring(storing.keySet().iterator().next());
    }
    ByteBuffer[] data = new ByteBuffer[k];
    List<ByteBuffer> recycle = new ArrayList<>();
    for (int j = 0; j < k; j++) {
      int i = first + j;
      Chunk d = i == index ? c : dirty.remove(i);
      if (d != null) {
        data[j] = d.buf.duplicate().position(0).limit(d.valid);
        recycle.add(d.buf);
        storedSinceCommit.put(i, d.valid);
      } else {
        int stored = storedLength(i);
        if (stored > 0) {
          ByteBuffer b = ByteBuffer.allocate(stored);
          readStored(i, 0, b);
          data[j] = b.flip();
        }
      }
    }
    storeRound(first, data, recycle);
  }

  /**
   * Truncate inside an ec group: one round of the group cut at chunk {@code cut} (its first
   * {@code inChunk} bytes kept; the chunks after it gone), or, when nothing of the group is
   * left, nothing: the caller deletes its chunks and parity.
   */
  private void truncateGroup(int cut, int inChunk) throws IOException {
    int k = groupSize();
    int first = storeKey(cut);
    ByteBuffer[] data = new ByteBuffer[k];
    for (int i = first; i < cut; i++) {
      ByteBuffer b = ByteBuffer.allocate(storedLength(i));
      readStored(i, 0, b);
      data[i - first] = b.flip();
    }
    if (inChunk > 0) {
      ByteBuffer kept = ByteBuffer.allocate(inChunk);
      readStored(cut, 0, kept);
      data[cut - first] = kept.flip();
    } // else chunk cut is deleted after the commit, with those after it (never before the round)
    if (data[0] != null) {
      storeRound(first, data, List.of());
      awaitStoring(first);
    }
  }

  /** Stores one round of the group starting at chunk {@code first}, followed in storing. */
  private void storeRound(int first, ByteBuffer[] data, List<ByteBuffer> recycle)
      throws IOException {
    long g = map.group(first);
    // a group that holds committed bytes is copied first, so that no torn round can take the
    // bytes it does not change (audit C5, H6); a group past the committed end has none
    boolean committedBytes = g < map.groups(committed) && !committedHoles.contains(g);
    follow(first, recycle, () -> committedBytes ? groups.storeProtected(g, data)
        : groups.store(g, data));
  }

  /** After a commit: the copies of the groups stored since go (ec; best effort, in the background). */
  private void releaseCopies() {
    if (groups != null) {
      releases.removeIf(CompletableFuture::isDone);
      releases.add(groups.release());
    }
  }
}
