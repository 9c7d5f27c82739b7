package io.parityfs.fuse;

import io.parityfs.client.PfsFileWriter;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One file this mount has open, shared by every handle on it: the writer (one per file and
 * mount, since the lease is one per file) and how many handles write through it. The writer
 * may be absent while write handles exist: a rename or an unlink closed it (committing), and
 * the next write opens it again at the file's new path ({@link #detached}: never, the file is
 * gone). Fields are guarded by {@link #lock}, except that {@link #writer} and {@link #path} may
 * be read without it (a stat's length).
 */
final class OpenFile {
  final ReentrantLock lock = new ReentrantLock();
  volatile String path;
  volatile PfsFileWriter writer;
  /** Handles of any kind on this file (guarded by the table's monitor). */
  int refs;
  /** Write handles. */
  int writers;
  /** Unlinked while open: writes fail with ESTALE. */
  boolean detached;
  OpenFile(String path) {
    this.path = path;
  }
}
