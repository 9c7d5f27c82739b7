package io.parityfs.fuse;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsFileWriter;
import io.parityfs.client.PfsInputStream;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mount's open files and handles, and the writer lifecycle behind them, for {@link
 * PfsFuseOperations}: the handle table ({@link OpenFiles}), opens and creates, reads and writes
 * through a handle, flush/fsync commits, releases, and what renames, unlinks, truncates and
 * time changes must do to a file this mount has open. A method named after an operation is
 * that operation's body: it returns 0, a byte count or a negative errno, and throws what the
 * caller maps to an errno ({@link Errno#of}).
 *
 * <p><b>Locks</b>, all owned here and taken in this order:
 * <ol>
 *   <li>{@link #moves}: opens, creates, truncates and time changes hold it shared; renames and
 *       unlinks of open files hold it alone, so no open, create or truncate sees a file between
 *       its namespace move and the table's;
 *   <li>each {@link OpenFile#lock}: its writer, its count of write handles and whether it was
 *       unlinked ({@link OpenFile}); a rename holds those of every open file it moves;
 *   <li>the {@link OpenFiles} table's monitor, taken only inside its own methods (which take
 *       no other lock).
 * </ol>
 * A {@link FileHandle}'s read stream is guarded by the handle's monitor, taken with no file
 * lock held. Thread-safe: the binding calls from many threads.
 */
final class FuseHandles {
  /** The operations' logger: a writer's failed close is the mount's to report. */
  private static final Logger LOG = LoggerFactory.getLogger(PfsFuseOperations.class);
  private static final int O_ACCMODE = 03;
  private static final int O_RDONLY = 0;
  private static final int O_TRUNC = 01000;
  private static final int O_APPEND = 02000;
  /** How far ahead of a handle's stream position a read still continues its stream. */
  private static final long SEQUENTIAL_SLACK = 1L << 20;
  /**
   * Windows a handle's stream keeps after passing them: the kernel's concurrent read-ahead
   * requests reach the mount's threads up to a few MiB late (measured: up to 5 MiB behind the
   * stream with 4 MiB windows), and one served from memory costs no second read of the nodes.
   */
  private static final int PASSED_WINDOWS = 2;

  private final ParityClient client;
  private final OpenFiles files = new OpenFiles();
  /** Opens share it; renames and unlinks of open files take it alone. */
  private final ReadWriteLock moves = new ReentrantReadWriteLock();

  /** Makes the writer of a file being created (one namespace create, as its requester). */
  @FunctionalInterface
  interface WriterSource {
    PfsFileWriter create() throws IOException;
  }

  /** @param client the mount's client: file data and leases go through it */
  FuseHandles(ParityClient client) {
    this.client = client;
  }

  // ------------------------------------------------------------------ handles

  /** The current path of handle {@code fh}'s file, or null when it is no file handle. */
  String pathOf(long fh) {
    FileHandle h = files.handle(fh, FileHandle.class);
    return h == null ? null : h.file.path;
  }

  /** Registers a directory being listed; returns its handle. */
  long openDirectory(DirectoryCursor cursor) {
    return files.register(cursor);
  }

  /** The directory being listed through {@code fh}, or null. */
  DirectoryCursor directory(long fh) {
    return files.handle(fh, DirectoryCursor.class);
  }

  void closeDirectory(long fh) {
    files.remove(fh, DirectoryCursor.class);
  }

  /** Open files (those with at least one handle). */
  int openFiles() {
    return files.all().size();
  }

  // ------------------------------------------------------------------ opens and creates

  /**
   * Creates a file open for writing (O_CREAT) at {@code path}, its writer from {@code source};
   * {@code fh[0]} receives its handle.
   */
  int create(String path, int flags, WriterSource source, long[] fh) throws IOException {
    moves.readLock().lock();
    try {
      PfsFileWriter w = source.create();
      OpenFile f = files.acquire(path);
      f.lock.lock();
      try {
        if (f.writer != null) { // cannot happen: the name was free; keep the first writer
          w.close();
        } else {
          f.writer = w;
        }
        f.writers++;
        f.detached = false;
      } finally {
        f.lock.unlock();
      }
      fh[0] = files.register(new FileHandle(f, true, (flags & O_APPEND) != 0));
      return 0;
    } finally {
      moves.readLock().unlock();
    }
  }

  /** Opens an existing file with {@code open(2)} flags; {@code fh[0]} receives its handle. */
  int open(Namespace ns, String path, int flags, long[] fh) throws IOException {
    boolean write = (flags & O_ACCMODE) != O_RDONLY;
    moves.readLock().lock();
    try {
      FileStatus st = ns.getStatus(path);
      if (st.isDirectory()) {
        return -Errno.EISDIR;
      }
      OpenFile f = files.acquire(path);
      boolean ok = false;
      try {
        if (write) {
          f.lock.lock();
          try {
            f.writers++;
            try {
              writer(f);
            } catch (IOException | RuntimeException e) {
              f.writers--;
              throw e;
            }
            if ((flags & O_TRUNC) != 0 && f.writer.length() > 0) {
              f.writer.truncate(0);
            }
          } finally {
            f.lock.unlock();
          }
        }
        fh[0] = files.register(new FileHandle(f, write, (flags & O_APPEND) != 0));
        ok = true;
        return 0;
      } finally {
        if (!ok) {
          files.release(f);
        }
      }
    } finally {
      moves.readLock().unlock();
    }
  }

  // ------------------------------------------------------------------ data

  /** {@link PfsFuseOperations#read}. */
  int read(long fh, long offset, ByteBuffer dst) throws IOException {
    FileHandle h = files.handle(fh, FileHandle.class);
    if (h == null) {
      return -Errno.EBADF;
    }
    int start = dst.position();
    OpenFile f = h.file;
    f.lock.lock();
    try {
      PfsFileWriter w = f.writers > 0 && !f.detached ? writer(f) : null;
      if (w != null) {
        while (dst.hasRemaining()) {
          int n = w.read(offset + dst.position() - start, dst);
          if (n <= 0) {
            break;
          }
        }
        return dst.position() - start;
      }
    } finally {
      f.lock.unlock();
    }
    synchronized (h) {
      if (h.in == null) {
        h.in = client.open(f.path, 2 * client.config().readAheadBytes());
        h.in.keepPassedWindows(PASSED_WINDOWS);
      }
      PfsInputStream in = h.in;
      // The stream serves reads at or a little ahead of its position (the kernel's
      // read-ahead requests reach the mount's threads slightly out of order; a forward seek
      // keeps the stream's read-ahead), and a read continuing the previous one (a sequential
      // reader elsewhere in the file: the stream moves there). Any other read, one behind the
      // stream included, reads just its range and leaves the stream's read-ahead alone.
      long pos = in.getPos();
      boolean sequential = (offset >= pos && offset - pos <= SEQUENTIAL_SLACK)
          || offset == h.lastEnd;
      h.lastEnd = offset + dst.remaining();
      if (!sequential) {
        // a request that came late or early is served from what the stream holds for the
        // others; any other jump reads just its range (the stream's read-ahead is for
        // sequential readers, and a seek would throw it away and start another)
        if (in.readBuffered(offset, dst) < 0) {
          in.read(offset, dst);
        }
        return dst.position() - start;
      }
      if (in.getPos() != offset) {
        in.seek(offset);
      }
      while (dst.hasRemaining()) {
        if (in.read(dst) < 0) {
          break;
        }
      }
      return dst.position() - start;
    }
  }

  /** {@link PfsFuseOperations#write}. */
  int write(long fh, long offset, ByteBuffer src) throws IOException {
    FileHandle h = files.handle(fh, FileHandle.class);
    if (h == null || !h.write) {
      return -Errno.EBADF;
    }
    int n = src.remaining();
    OpenFile f = h.file;
    f.lock.lock();
    try {
      if (f.detached) {
        return -Errno.ESTALE;
      }
      PfsFileWriter w = writer(f);
      w.write(h.append ? w.length() : offset, src);
      return n;
    } finally {
      f.lock.unlock();
    }
  }

  /**
   * Sets a file's length: through its writer when this mount writes it, else by {@code
   * unwritten} (the namespace's truncate), either with no rename or unlink in between.
   */
  int truncate(String path, long size, PfsFuseOperations.Body unwritten) throws IOException {
    moves.readLock().lock();
    try {
      OpenFile f = files.get(path);
      if (f != null) {
        f.lock.lock();
        try {
          if (f.writers > 0 && !f.detached) {
            writer(f).truncate(size);
            return 0;
          }
        } finally {
          f.lock.unlock();
        }
      }
      return unwritten.run();
    } finally {
      moves.readLock().unlock();
    }
  }

  /** flush and fsync: commits what the file's writer holds, for a write handle. */
  int commit(long fh) throws IOException {
    FileHandle h = files.handle(fh, FileHandle.class);
    if (h == null || !h.write) {
      return 0;
    }
    h.file.lock.lock();
    try {
      PfsFileWriter w = h.file.writer;
      if (w != null) {
        w.sync();
      }
      return 0;
    } finally {
      h.file.lock.unlock();
    }
  }

  /** The last close of a handle: the last write handle of a file closes its writer. */
  int release(long fh) throws IOException {
    FileHandle h = files.remove(fh, FileHandle.class);
    if (h == null) {
      return 0;
    }
    OpenFile f = h.file;
    try {
      if (h.write) {
        f.lock.lock();
        try {
          if (--f.writers == 0) {
            closeWriter(f);
          }
        } finally {
          f.lock.unlock();
        }
      }
    } finally {
      synchronized (h) {
        if (h.in != null) {
          h.in.close();
        }
      }
      files.release(f);
    }
    return 0;
  }

  // ------------------------------------------------------------------ namespace changes

  /**
   * The namespace's {@code setTimesPosix}; a modification time set on a file this mount writes
   * is also kept by its writer ({@link PfsFuseOperations#utimens}).
   */
  void setTimes(Namespace ns, String path, long mtime, long atime, boolean touch)
      throws IOException {
    moves.readLock().lock();
    try {
      OpenFile f = files.get(path);
      if (f == null) {
        ns.setTimesPosix(path, mtime, atime, touch);
        return;
      }
      f.lock.lock();
      try {
        ns.setTimesPosix(path, mtime, atime, touch);
        PfsFileWriter w = f.writer;
        if (mtime != -1 && w != null && !f.detached) {
          w.keepMtime(mtime);
        }
      } finally {
        f.lock.unlock();
      }
    } finally {
      moves.readLock().unlock();
    }
  }

  /** Deletes the file {@code st} (at {@code path}), detaching it first when it is open. */
  int unlink(Namespace ns, FileStatus st, String path) throws IOException {
    moves.writeLock().lock();
    try {
      OpenFile f = files.get(st.path());
      if (f != null) {
        detach(f);
      }
      return ns.delete(path, false) ? 0 : -Errno.ENOENT;
    } finally {
      moves.writeLock().unlock();
    }
  }

  /**
   * Renames {@code src} to {@code to}, replacing {@code dst} (null when there is none): the
   * writers of the open files moving are closed (committing), an open destination detached.
   */
  int rename(Namespace ns, FileStatus src, FileStatus dst, String to) throws IOException {
    moves.writeLock().lock();
    List<OpenFile> moving = files.under(src.path());
    for (OpenFile f : moving) {
      f.lock.lock();
    }
    try {
      for (OpenFile f : moving) {
        closeWriter(f); // committed; the next write reopens it at the new path
      }
      if (dst != null) {
        OpenFile old = files.get(dst.path());
        if (old != null) {
          detach(old);
        }
      }
      // one multi: observers see the old destination or the source under its name
      String moved = ns.renameReplacing(src.path(), to);
      files.move(src.path(), moved);
      return 0;
    } finally {
      for (OpenFile f : moving) {
        f.lock.unlock();
      }
      moves.writeLock().unlock();
    }
  }

  /**
   * The length of {@code s} as this mount sees it: for a file it writes, its writer's (with
   * the writes not yet committed).
   */
  long length(FileStatus s) {
    long size = s.length();
    if (!s.isDirectory()) {
      OpenFile f = files.get(s.path());
      PfsFileWriter w = f == null ? null : f.writer;
      if (w != null && w.file().id() == s.id()) {
        size = w.length();
      }
    }
    return size;
  }

  /**
   * Closes every writer still open (committing its data), as at unmount. Handles stay
   * registered; a write through them reopens the file.
   */
  void closeAll() {
    for (OpenFile f : files.all()) {
      f.lock.lock();
      try {
        closeWriter(f);
      } finally {
        f.lock.unlock();
      }
    }
  }

  // ------------------------------------------------------------------ writers

  /** The file's writer, reopened when a rename or an earlier close left none (lock held). */
  private PfsFileWriter writer(OpenFile f) throws IOException {
    PfsFileWriter w = f.writer;
    if (w == null) {
      if (f.detached) {
        throw new IOException(f.path + ": unlinked while open");
      }
      w = client.openWriter(f.path);
      f.writer = w;
    }
    return w;
  }

  /** Closes the file's writer, if any, committing (lock held); failures are logged. */
  private void closeWriter(OpenFile f) {
    PfsFileWriter w = f.writer;
    if (w == null) {
      return;
    }
    f.writer = null;
    try {
      w.close();
    } catch (IOException e) {
      LOG.warn("closing {}: {}", f.path, e.toString());
    }
  }

  /** An open file being unlinked: its writer closed, its handles stale, its path free. */
  private void detach(OpenFile f) {
    f.lock.lock();
    try {
      closeWriter(f);
      f.detached = true;
      files.detach(f);
    } finally {
      f.lock.unlock();
    }
  }
}
