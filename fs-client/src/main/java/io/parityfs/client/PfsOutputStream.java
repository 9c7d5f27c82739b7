package io.parityfs.client;

import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Holes;
import io.parityfs.meta.Layout;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;

/**
 * A file being written: bytes fill a chunk-sized buffer; a full buffer is stored on its target
 * in the background (write-behind) while the writer fills the next, with at most {@code
 * writesPerTarget} uploads in flight per target and at most {@code writeBufferBytes} of buffers
 * (at least two chunks) per stream, so a stream striped over N targets keeps all of them busy.
 *
 * <ul>
 *   <li>{@link #hflush()} / {@link #hsync()}: stores the partial chunk, waits for every upload,
 *       then commits the length in the namespace; readers see it from then on. Every chunk write
 *       is durable on the node's drives when acknowledged, so the two are the same.
 *   <li>{@link #close()}: the same, then the namespace closes the file (final length, lease
 *       released). If any upload failed, close throws and the file is <b>not</b> closed: no
 *       length is ever committed for bytes that are not stored. The lease then expires with the
 *       client or is recovered.
 * </ul>
 *
 * <p>With protection across nodes, a member whose target is down is left out while its group
 * still gets enough members stored ({@link StaleMembers}); the members left out are committed
 * with the length, in the file's repair record, and readers serve them from the others.
 *
 * <p>A failed upload fails the stream: every later call throws a {@link ClientException} with
 * the first failure's status (NO_SPACE for a full target, FENCED, ...) and that failure as its
 * cause.
 *
 * One writer thread at a time (as any {@code OutputStream}); not thread-safe.
 */
public final class PfsOutputStream extends OutputStream {
  /** Direct chunk buffers where chunks go out as they are (false: heap, for comparisons). */
  private static final boolean DIRECT =
      Boolean.parseBoolean(System.getProperty("parityfs.client.directChunks", "true"));

  private final ParityClient client;
  private final String path;
  private final FileStatus file;
  private final Layout layout;
  private final int chunkSize;
  private final Semaphore buffers;
  private final Semaphore[] perTarget;
  private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
  private final List<CompletableFuture<Void>> inflight = new ArrayList<>();
  /** Deletes of copies after commits (ec): waited for at close. */
  private final List<CompletableFuture<Void>> releases = new ArrayList<>();
  private final ExecutorService transfers;
  /** The chunk groups of an ec:K+M layout across nodes; null for other layouts. */
  private final GroupWriter groups;
  /** Members left out because their targets were down: committed with every length. */
  private final StaleMembers stale;
  private ByteBuffer cur;
  private int curIndex;
  private long pos;
  private long committed;
  private volatile Throwable failure;
  private final Object failureLock = new Object();
  private boolean closed;
  /**
   * The holes this stream commits once it has appended: the file's, less the group it appends
   * in and those after ({@link Holes}; a stream stores every group it writes whole).
   */
  private final Holes holes;

  PfsOutputStream(ParityClient client, String path, FileStatus file, ByteBuffer tail)
      throws IOException {
    this.client = client;
    this.path = path;
    this.file = file;
    this.layout = file.layout();
    this.chunkSize = ChunkIo.bufferSize(layout, path);
    ClientConfig c = client.config();
    int count = (int) Math.max(2, Math.min(1024, c.writeBufferBytes() / chunkSize));
    this.transfers = client.transfers();
    this.stale = new StaleMembers(layout.across(), c.writeMargin());
    this.groups = layout.across().isErasureCoded()
        ? new GroupWriter(client.chunks(), transfers, file, stale) : null;
    if (groups != null) {
      // the open group, and at least one full group storing while the next fills
      int k = groups.groupChunks();
      count = Math.max(2 * k, (count + k - 1) / k * k);
    }
    this.buffers = new Semaphore(count);
    this.perTarget = new Semaphore[layout.stripeCount()];
    for (int i = 0; i < perTarget.length; i++) {
      perTarget[i] = new Semaphore(c.writesPerTarget());
    }
    this.pos = file.length();
    this.committed = file.length();
    this.curIndex = (int) (pos / chunkSize);
    this.holes = file.holes().below(ChunkMap.of(layout).group(curIndex));
    if (groups != null) {
      resumeGroup();
    }
    if (tail != null && tail.hasRemaining()) {
      acquireBuffer();
      cur.put(tail);
    }
    if (groups != null && !file.holes().contains(ChunkMap.of(layout).group(curIndex))) {
      // copies of the committed content of the group appended to, before any member of the
      // round that stored it is replaced (audit C4)
      groups.protect(curIndex, cur);
    }
  }

  /** The file as created or opened for append (its id, layout, length at open). */
  public FileStatus file() {
    return file;
  }

  /** Bytes written so far, including the file's length at open (append). */
  public long position() {
    return pos;
  }

  @Override
  public void write(int b) throws IOException {
    if (cur != null && cur.remaining() > 1 && !closed && failure == null) {
      cur.put((byte) b);
      pos++;
      return;
    }
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    checkOpen();
    while (len > 0) {
      if (cur == null) {
        acquireBuffer();
      }
      int n = Math.min(len, cur.remaining());
      cur.put(b, off, n);
      off += n;
      len -= n;
      pos += n;
      if (!cur.hasRemaining()) {
        ByteBuffer full = cur;
        cur = null;
        chunkFull(curIndex++, full);
      }
    }
  }

  /** Writes the remaining bytes of {@code src} (consumed). */
  public void write(ByteBuffer src) throws IOException {
    checkOpen();
    while (src.hasRemaining()) {
      if (cur == null) {
        acquireBuffer();
      }
      int n = Math.min(src.remaining(), cur.remaining());
      ByteBuffer slice = src.duplicate();
      slice.limit(slice.position() + n);
      cur.put(slice);
      src.position(src.position() + n);
      pos += n;
      if (!cur.hasRemaining()) {
        ByteBuffer full = cur;
        cur = null;
        chunkFull(curIndex++, full);
      }
    }
  }

  /** Stores everything written so far and makes it visible to readers. */
  public void hflush() throws IOException {
    checkOpen();
    if (groups != null) {
      track(groups.copy(curIndex, cur)); // copies of the open group, never its round (§3)
    } else if (cur != null && cur.position() > 0) {
      upload(curIndex, cur, false);
    }
    awaitUploads();
    if (pos != committed) {
      client.namespace().setLength(path, file.id(), -1, pos, -1, stale.repairs(), holes());
      committed = pos;
    }
    if (groups != null) {
      releases.removeIf(CompletableFuture::isDone);
      releases.add(groups.release()); // copies of the groups sealed and committed since
    }
  }

  /** As {@link #hflush()}: acknowledged chunk writes are already on the drives. */
  public void hsync() throws IOException {
    hflush();
  }

  /** {@link #hflush()}; {@code OutputStream.flush} promises no more than that. */
  @Override
  public void flush() throws IOException {
    if (!closed) {
      hflush();
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    try {
      if (failure == null && groups != null) {
        track(groups.flush(curIndex, cur));
      } else if (failure == null && cur != null && cur.position() > 0) {
        ByteBuffer last = cur;
        cur = null;
        upload(curIndex, last, true);
      }
      awaitUploads();
      client.namespace().complete(path, file.id(), -1, pos, -1, stale.repairs(), holes());
      committed = pos;
      if (groups != null) {
        releases.add(groups.release());
      }
      giveBuffersBack();
    } finally {
      closed = true;
      releases.forEach(CompletableFuture::join); // deletes of copies: they never fail
    }
  }

  /** The holes to commit: the file's until this stream appended a byte (null: keep them). */
  private Holes holes() {
    return pos > file.length() ? holes : null;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(path + ": stream is closed");
    }
    rethrow();
  }

  private void rethrow() throws IOException {
    Throwable f = failure;
    if (f != null) {
      // the first failure's status (NO_SPACE, FENCED, ...) travels with it to the caller
      throw ClientException.rethrown(path, "writing " + path + " failed; nothing after the last"
          + " hflush (" + committed + " bytes) is committed", f);
    }
  }

  private void acquireBuffer() throws IOException {
    try {
      buffers.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for a write buffer of " + path);
    }
    synchronized (free) {
      cur = free.poll();
    }
    if (cur == null) {
      // direct where chunks go out as they are: sent without a copy; an ec group's chunks
      // are the codec's input and stay on the heap
      cur = groups == null && DIRECT ? client.chunkBuffers().take(chunkSize)
          : ByteBuffer.allocate(chunkSize);
    }
  }

  /** Every upload is done: the stream's direct buffers go back to the client for reuse. */
  private void giveBuffersBack() {
    if (groups != null) {
      return;
    }
    synchronized (free) {
      for (ByteBuffer b; (b = free.poll()) != null; ) {
        client.chunkBuffers().give(b);
      }
    }
    if (cur != null) {
      client.chunkBuffers().give(cur);
      cur = null;
    }
  }

  private void recycle(ByteBuffer b) {
    b.clear();
    synchronized (free) {
      free.push(b);
    }
    buffers.release();
  }

  /** A chunk is full: stored now, or (ec) held in its group until the group is. */
  private void chunkFull(int index, ByteBuffer full) throws IOException {
    if (groups == null) {
      upload(index, full, true);
    } else {
      track(groups.full(index, full, this::recycle));
    }
  }

  /**
   * An ec file opened for append at a length inside a group: the group's full chunks before
   * the tail are read back into buffers of this stream, since its next round stores them all
   * again under one tag; the constructor then copies them, and the tail, to the group's parity
   * targets ({@link GroupWriter#protect}).
   */
  private void resumeGroup() throws IOException {
    int k = groups.groupChunks();
    int first = curIndex / k * k;
    for (int index = first; index < curIndex; index++) {
      acquireBuffer();
      ByteBuffer b = cur;
      cur = null;
      if (file.holes().contains(ChunkMap.of(layout).group(index))) {
        b.put(new byte[b.remaining()]); // a hole: zeros, stored with the group's next round
      }
      while (b.hasRemaining()) {
        int n = client.chunks().read(file.id(), layout, file.repairs(), index, b.position(), b);
        if (n <= 0) {
          recycle(b);
          throw new ClientException(ClientStatus.DATA_LOST, path, path + ": chunk " + index
              + " is shorter than the file's length says");
        }
      }
      track(groups.full(index, b, this::recycle));
    }
  }

  /** Follows a round of {@link #groups} (null: none started) as an upload of this stream. */
  private void track(CompletableFuture<Void> round) {
    if (round == null) {
      return;
    }
    CompletableFuture<Void> f = round.whenComplete((v, e) -> {
      if (e != null) {
        fail(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
      }
    });
    harvestDone();
    inflight.add(f);
  }

  /**
   * Stores chunk {@code index} as the bytes of {@code buf} up to its position, in the
   * background; {@code release} gives the buffer back when done (a partial chunk that the writer
   * keeps filling is not released).
   */
  private void upload(int index, ByteBuffer buf, boolean release) throws IOException {
    ByteBuffer data = buf.duplicate();
    data.flip();
    Semaphore window = perTarget[index % perTarget.length];
    try {
      window.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      // the chunk's bytes are counted in pos but never sent: no later hflush or close may
      // commit a length covering them
      throw fail(new InterruptedIOException("interrupted waiting to upload chunk " + index
          + " of " + path));
    }
    CompletableFuture<Void> f;
    try {
      f = CompletableFuture.runAsync(() -> {
        try {
          client.chunks().write(file.id(), file.generation(), layout, index, data, stale);
        } catch (IOException e) {
          // recorded here, before the future completes: whoever sees the future done (join,
          // isDone) sees the failure too (a whenComplete callback may run after join returns)
          throw new CompletionException(fail(e));
        } catch (RuntimeException e) {
          throw fail(e);
        } catch (Error e) {
          throw fail(e);
        } finally {
          window.release();
          if (release) {
            recycle(buf);
          }
        }
      }, transfers);
    } catch (RuntimeException e) {
      window.release();
      throw fail(new ClientException(ClientStatus.IO_ERROR, path, "cannot schedule an upload of"
          + " chunk " + index + " of " + path + ": " + e, e));
    }
    harvestDone();
    inflight.add(f);
  }

  /**
   * Records the stream's first failure (later ones are dropped: the first names the cause);
   * returns {@code e} for {@code throw}.
   */
  private <T extends Throwable> T fail(T e) {
    synchronized (failureLock) {
      if (failure == null) {
        failure = e;
      }
    }
    return e;
  }

  /** Forgets finished uploads, noting a failed one first (never dropped unseen). */
  private void harvestDone() {
    inflight.removeIf(f -> {
      if (!f.isDone()) {
        return false;
      }
      if (f.isCompletedExceptionally()) {
        try {
          f.join();
        } catch (CompletionException | CancellationException e) {
          fail(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
        }
      }
      return true;
    });
  }

  /**
   * Tests: waits until every upload and round started so far has ended, failed or not, without
   * committing anything (a writer about to be killed at a known point).
   */
  void awaitInFlight() {
    for (CompletableFuture<Void> f : new ArrayList<>(inflight)) {
      try {
        f.join();
      } catch (CompletionException | CancellationException e) {
        // recorded as the stream's failure
      }
    }
  }

  private void awaitUploads() throws IOException {
    for (CompletableFuture<Void> f : inflight) {
      try {
        f.join();
      } catch (CompletionException | CancellationException e) {
        // normally recorded by the task already; recorded here too, so that a failure is
        // never lost whatever ran first
        fail(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
      }
    }
    inflight.clear();
    rethrow();
  }
}
