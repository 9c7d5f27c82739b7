package io.parityfs.client;

import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Holes;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A file being read. Sequential reads go through a window of up to {@code readRequestBytes}
 * (never crossing a chunk), and keep up to {@code readAheadBytes} of the following windows in
 * flight (read-ahead), which spreads a sequential read over all of the file's targets.
 * Positional reads ({@link #read(long, byte[], int, int)}) read what they ask for, the chunks of
 * a range in parallel, and leave the position and the read-ahead alone.
 *
 * <p>A window's buffer is reused for a later window once the reader has moved past it (or
 * its read-ahead was dropped after it completed), so a long sequential read allocates about
 * as many buffers as it keeps windows in flight, not one per window; a fetch cancelled while
 * it may still be running keeps its buffer. {@link #unbuffer()} releases them all.
 *
 * <p>The length is the file's at open: for a file being written, the length of its last
 * hflush; when a read reaches it, the stream asks the namespace once for a newer one. Not
 * thread-safe, except the positional reads, which any number of threads may call.
 */
public final class PfsInputStream extends InputStream {
  private record Window(long start, int length, CompletableFuture<ByteBuffer> data) {}

  /** A window the reader has moved past, kept for {@link #readBuffered}. */
  private record Passed(long start, ByteBuffer data) {}

  private static final byte[] ZEROS = new byte[64 * 1024];
  /** How long a read of a file being written waits for a group's round in flight. */
  static final long ROUND_WAIT_NANOS = 10_000_000_000L;
  static final long ROUND_WAIT_PAUSE_MILLIS = 50;
  /** Tests: run before each pause of such a wait (null: none). */
  static volatile Runnable ROUND_WAIT_HOOK;
  private final ParityClient client;
  private final String path;
  private final FileStatus file;
  /** The file's layout, followed when a mover switches it (docs/across-nodes.md §5). */
  private volatile Layout layout;
  private final long chunkSize;
  private final long readAheadBytes;
  private volatile long length;
  /** The file's repair record as of {@link #length}: members no read may use. */
  private volatile Repairs repairs;
  /** The file's holes as of {@link #length}: groups never stored, read as zeros. */
  private volatile Holes holes;
  private long pos;
  private ByteBuffer win;
  private long winStart;
  private final ArrayDeque<Window> ahead = new ArrayDeque<>();
  /** The last windows the reader moved past, oldest first, at most {@link #keepPassed}. */
  private final ArrayDeque<Passed> passed = new ArrayDeque<>();
  private int keepPassed;
  /** Buffers of finished windows, for the next fetches (taken on the transfer threads). */
  private final Queue<ByteBuffer> spare = new ConcurrentLinkedQueue<>();
  private final AtomicLong buffersAllocated = new AtomicLong();
  private boolean closed;

  PfsInputStream(ParityClient client, String path, FileStatus file, long readAheadBytes) {
    this.client = client;
    this.readAheadBytes = readAheadBytes;
    this.path = path;
    this.file = file;
    this.layout = file.layout();
    this.chunkSize = layout.chunkSize();
    this.length = file.length();
    this.repairs = file.repairs();
    this.holes = file.holes();
  }

  public FileStatus file() {
    return file;
  }

  /** Bytes this stream reads ahead of a sequential reader (0: none). */
  public long readAheadBytes() {
    return readAheadBytes;
  }

  /** The length this stream reads up to. */
  public long length() {
    return length;
  }

  public long getPos() {
    return pos;
  }

  /** Moves the position; past the end, reads return -1. */
  public void seek(long newPos) throws IOException {
    checkOpen();
    if (newPos < 0) {
      throw new EOFException(path + ": cannot seek to a negative offset " + newPos);
    }
    pos = newPos;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    checkOpen();
    if (len == 0) {
      return 0;
    }
    ByteBuffer src = window(len);
    if (src == null) {
      return -1;
    }
    int n = src.remaining();
    src.get(b, off, n);
    pos += n;
    return n;
  }

  /**
   * The bytes at the position, at most {@code max}, as a view of the window (filled first if
   * it does not cover the position); null at the end of the file.
   */
  private ByteBuffer window(int max) throws IOException {
    if (pos >= length && !refreshLength()) {
      return null;
    }
    if (win == null || pos < winStart || pos >= winStart + win.limit()) {
      fill();
    }
    int at = (int) (pos - winStart);
    ByteBuffer src = win.duplicate();
    src.position(at).limit(at + Math.min(max, win.limit() - at));
    return src;
  }

  /** Reads into the remaining bytes of {@code dst} from the position; -1 at the end. */
  public int read(ByteBuffer dst) throws IOException {
    checkOpen();
    if (!dst.hasRemaining()) {
      return 0;
    }
    ByteBuffer src = window(dst.remaining());
    if (src == null) {
      return -1;
    }
    int n = src.remaining();
    dst.put(src);
    pos += n;
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    checkOpen();
    if (n <= 0) {
      return 0;
    }
    long to = Math.min(length, pos + n);
    long skipped = Math.max(0, to - pos);
    pos += skipped;
    return skipped;
  }

  @Override
  public int available() throws IOException {
    checkOpen();
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, length - pos));
  }

  /**
   * Reads up to {@code len} bytes at {@code position} without moving the stream's position;
   * -1 when {@code position} is at or past the end. The chunks of the range are read in
   * parallel.
   */
  public int read(long position, byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    return read(position, ByteBuffer.wrap(b, off, len));
  }

  /**
   * Reads up to {@code dst.remaining()} bytes at {@code position} into {@code dst} (heap or
   * direct; its position moves past them) without moving the stream's position; -1 when
   * {@code position} is at or past the end. The chunks of the range are read in parallel.
   */
  public int read(long position, ByteBuffer dst) throws IOException {
    checkOpen();
    int len = dst.remaining();
    if (len == 0) {
      return 0;
    }
    if (position < 0) {
      throw new EOFException(path + ": negative position " + position);
    }
    if (position >= length && !refreshLength()) {
      return -1;
    }
    int n = (int) Math.min(len, length - position);
    readRange(position, dst.slice(dst.position(), n));
    dst.position(dst.position() + n);
    return n;
  }

  /** Reads exactly {@code dst.remaining()} bytes at {@code position}; EOFException past the end. */
  public void readFully(long position, ByteBuffer dst) throws IOException {
    checkOpen();
    if (position < 0 || position + dst.remaining() > length) {
      if (!(position >= 0 && refreshLength() && position + dst.remaining() <= length)) {
        throw new EOFException(path + ": " + dst.remaining() + " bytes at " + position
            + " pass the end of the file (" + length + ")");
      }
    }
    readRange(position, dst);
  }

  /**
   * Keeps the last {@code windows} windows the reader has moved past (0, the default: none),
   * so that {@link #readBuffered} can serve a request that arrives after the reader passed it.
   * Costs up to that many read requests' worth of memory.
   */
  public void keepPassedWindows(int windows) {
    if (windows < 0) {
      throw new IllegalArgumentException("windows (" + windows + ") must be >= 0");
    }
    keepPassed = windows;
    while (passed.size() > keepPassed) {
      spare.offer(passed.pollFirst().data());
    }
  }

  /**
   * Copies the bytes at {@code position} into {@code dst}, up to its remaining bytes or the
   * end of the file, if this stream holds or is already fetching every one of them: in the
   * window, the windows kept after the reader passed them ({@link #keepPassedWindows}), or the
   * read-ahead (waiting for a window still in flight). The position and the read-ahead stay as
   * they are. Returns the count copied, or -1 with nothing copied when any byte of the range is
   * elsewhere (or a read-ahead window failed): then a positional read is the caller's way.
   *
   * <p>For a reader whose sequential requests arrive slightly out of order (the FUSE mount's
   * concurrent read-ahead requests): one that arrives late, or well ahead of the position, is
   * served from what the stream read for the others instead of asking the nodes again.
   */
  public int readBuffered(long position, ByteBuffer dst) throws IOException {
    checkOpen();
    if (position < 0 || position >= length || !dst.hasRemaining()) {
      return -1;
    }
    int n = (int) Math.min(dst.remaining(), length - position);
    List<ByteBuffer> pieces = new ArrayList<>();
    long p = position;
    long end = position + n;
    while (p < end) {
      ByteBuffer held = held(p);
      if (held == null) {
        return -1;
      }
      held.limit((int) Math.min(held.limit(), held.position() + (end - p)));
      pieces.add(held);
      p += held.remaining();
    }
    for (ByteBuffer piece : pieces) {
      dst.put(piece);
    }
    return n;
  }

  /**
   * A view from {@code p} to the end of the held window that covers it (waiting for a
   * read-ahead window in flight), or null when none does or that window's fetch failed.
   */
  private ByteBuffer held(long p) {
    if (win != null && p >= winStart && p < winStart + win.limit()) {
      return win.duplicate().position((int) (p - winStart));
    }
    for (Passed w : passed) {
      if (p >= w.start() && p < w.start() + w.data().limit()) {
        return w.data().duplicate().position((int) (p - w.start()));
      }
    }
    for (Window w : ahead) {
      if (p >= w.start() && p < w.start() + w.length()) {
        try {
          return await(w.data()).duplicate().position((int) (p - w.start()));
        } catch (IOException | CancellationException e) {
          return null; // the stream meets that failure itself when it reaches the window
        }
      }
    }
    return null;
  }

  /** Drops the read-ahead, the window and the spare buffers (Hadoop's {@code CanUnbuffer}). */
  public void unbuffer() {
    cancelAhead();
    passed.clear();
    win = null;
    spare.clear();
  }

  /** Window buffers this stream has allocated (the rest were reused), for tests. */
  long windowBuffersAllocated() {
    return buffersAllocated.get();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      unbuffer();
    }
  }

  // ------------------------------------------------------------------ internals

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(path + ": stream is closed");
    }
  }

  /** For a file still being written: whether its committed length grew past the position. */
  private boolean refreshLength() throws IOException {
    if (!file.isOpenForWrite()) {
      return false;
    }
    FileStatus now = client.namespace().getStatus(path);
    if (now.id() != file.id()) {
      return false;
    }
    long old = length;
    length = Math.max(length, now.length());
    repairs = now.repairs(); // the members left out of what the length now covers
    holes = now.holes();
    return length > old && pos < length;
  }

  /**
   * After a failed read of a closed file: whether its layout was switched since this stream
   * read it (a move's new targets hold the same members); then reads go to the new one. A
   * stream follows each switch once, so a failure that is not a move still surfaces.
   */
  private synchronized boolean moved() throws IOException {
    if (file.isOpenForWrite()) {
      return false;
    }
    FileStatus now = client.namespace().getStatus(path);
    if (now.id() != file.id() || now.layout().equals(layout) || now.length() != length) {
      return false;
    }
    layout = now.layout();
    repairs = now.repairs();
    holes = now.holes();
    return true;
  }

  /** Makes the window cover {@code pos}: from the read-ahead if it has it, else read now. */
  private void fill() throws IOException {
    while (!ahead.isEmpty()) {
      Window w = ahead.peekFirst();
      if (w.start() <= pos && pos < w.start() + w.length()) {
        break;
      }
      drop(ahead.pollFirst());
    }
    if (win != null) {
      // the reader has moved past it: kept for late requests, or reused (no view of it is left)
      passed.addLast(new Passed(winStart, win));
      while (passed.size() > keepPassed) {
        spare.offer(passed.pollFirst().data());
      }
      win = null;
    }
    if (!ahead.isEmpty()) {
      Window w = ahead.pollFirst();
      win = await(w.data());
      winStart = w.start();
    } else {
      long start = pos;
      win = fetch(start, windowLength(start));
      winStart = start;
    }
    scheduleAhead(winStart + win.limit());
  }

  private void scheduleAhead(long from) {
    long budget = readAheadBytes;
    long next = ahead.isEmpty() ? from : ahead.peekLast().start() + ahead.peekLast().length();
    long queued = next - from;
    while (queued < budget && next < length) {
      long start = next;
      int len = windowLength(start);
      ahead.addLast(new Window(start, len, CompletableFuture.supplyAsync(() -> {
        try {
          return fetch(start, len);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      }, client.transfers())));
      next += len;
      queued += len;
    }
  }

  private void cancelAhead() {
    for (Window w : ahead) {
      drop(w);
    }
    ahead.clear();
  }

  /**
   * Cancels a read-ahead window; a completed one gives its buffer back. A cancelled fetch may
   * still be filling its buffer, so that one is left to the garbage collector.
   */
  private void drop(Window w) {
    CompletableFuture<ByteBuffer> f = w.data();
    if (!f.cancel(false) && f.isDone() && !f.isCompletedExceptionally()) {
      spare.offer(f.join());
    }
  }

  /** A window from {@code start}: at most a read request, never past its chunk or the end. */
  private int windowLength(long start) {
    long chunkEnd = (start / chunkSize + 1) * chunkSize;
    return (int) Math.min(client.config().readRequestBytes(),
        Math.min(chunkEnd, length) - start);
  }

  /** Reads {@code len} bytes at {@code start}, all in one chunk. */
  private ByteBuffer fetch(long start, int len) throws IOException {
    ByteBuffer buf = spare.poll();
    if (buf == null || buf.capacity() < len) {
      buf = ByteBuffer.allocate(Math.max(len, buf == null ? 0 : buf.capacity()));
      buffersAllocated.incrementAndGet();
    }
    buf.clear().limit(len);
    readChunkPart(start, buf);
    buf.flip();
    return buf;
  }

  private void readChunkPart(long start, ByteBuffer dst) throws IOException {
    int index = (int) (start / chunkSize);
    long offset = start % chunkSize;
    Long roundWait = null;
    if (!holes.isEmpty() && holes.contains(ChunkMap.of(layout).group(index))) {
      while (dst.hasRemaining()) { // a hole: never stored, zeros (no node is asked)
        dst.put(ZEROS, 0, Math.min(ZEROS.length, dst.remaining()));
      }
      return;
    }
    while (dst.hasRemaining()) {
      int want = dst.remaining();
      int n;
      try {
        n = client.chunks().read(file.id(), layout, repairs, index, offset, dst);
      } catch (NoRoundException e) {
        if (moved()) {
          continue;
        }
        if (roundWait == null) {
          roundWait = System.nanoTime() + ROUND_WAIT_NANOS;
        }
        if (!awaitRound(roundWait)) {
          throw e;
        }
        continue;
      } catch (IOException e) {
        if (moved()) {
          continue; // its members were moved (drain, rebalance) and the old ones deleted
        }
        throw e;
      }
      if (n <= 0 && want > 0) {
        if (moved()) {
          continue;
        }
        throw new ClientException(ClientStatus.DATA_LOST, path, path + ": chunk " + index
            + " of file " + file.id() + " ends before the file's length " + length
            + " says (data lost or not yet stored)");
      }
      offset += n;
    }
  }

  /**
   * After a degraded read found no round to decode from: whether to read again. While the file
   * is being written, a round of the group may be in flight (its members land one by one:
   * audit H8), so the committed bytes are read again after a pause, until {@link
   * #ROUND_WAIT_NANOS} after the first failure; a closed file's group is torn, and fails at once.
   */
  private boolean awaitRound(long deadline) throws IOException {
    FileStatus now = client.namespace().getStatus(path);
    if (now.id() != file.id() || !now.isOpenForWrite() || System.nanoTime() >= deadline) {
      return false;
    }
    Runnable hook = ROUND_WAIT_HOOK;
    if (hook != null) {
      hook.run();
    }
    try {
      Thread.sleep(ROUND_WAIT_PAUSE_MILLIS);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading " + path);
    }
    repairs = now.repairs();
    holes = now.holes();
    return true;
  }

  /** Reads a range, one piece per chunk, the pieces in parallel. */
  private void readRange(long position, ByteBuffer dst) throws IOException {
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    long p = position;
    int filled = 0;
    int total = dst.remaining();
    while (filled < total) {
      long chunkEnd = (p / chunkSize + 1) * chunkSize;
      int n = (int) Math.min(total - filled, chunkEnd - p);
      ByteBuffer piece = dst.duplicate();
      piece.position(dst.position() + filled).limit(dst.position() + filled + n);
      long at = p;
      if (filled == 0 && n == total) {
        readChunkPart(at, piece); // one chunk: in this thread
      } else {
        parts.add(CompletableFuture.runAsync(() -> {
          try {
            readChunkPart(at, piece);
          } catch (IOException e) {
            throw new CompletionException(e);
          }
        }, client.transfers()));
      }
      p += n;
      filled += n;
    }
    for (CompletableFuture<Void> f : parts) {
      await(f);
    }
    dst.position(dst.position() + total);
  }

  private <T> T await(CompletableFuture<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading " + path);
    } catch (ExecutionException e) {
      Throwable c = e.getCause() instanceof CompletionException && e.getCause().getCause() != null
          ? e.getCause().getCause() : e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      throw new ClientException(ClientStatus.IO_ERROR, path, "reading " + path + ": " + c, c);
    }
  }
}
