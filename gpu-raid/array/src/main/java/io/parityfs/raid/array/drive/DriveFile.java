package io.parityfs.raid.array.drive;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * An open file of a {@link Drive}, read and written by position. Errors follow {@link Drive}'s
 * rules. Safe for concurrent use: positional reads and writes from several threads may overlap in
 * time (not in file range, if the result is to be defined). The caller owns the buffers; they are
 * consumed from their position to their limit and not kept after a call returns.
 */
public interface DriveFile extends Closeable {

  /** The file's name on its drive. */
  String name();

  /** Writes all of {@code src} at {@code position}; src's position ends at its limit. */
  void write(ByteBuffer src, long position) throws IOException;

  /**
   * Reads from {@code position} until {@code dst} is full or the end of the file; returns the
   * number of bytes read, fewer than requested only at the end of the file.
   */
  int read(ByteBuffer dst, long position) throws IOException;

  /** Reads exactly {@code dst.remaining()} bytes from {@code position}, or throws EOFException. */
  default void readFully(ByteBuffer dst, long position) throws IOException {
    int wanted = dst.remaining();
    int got = read(dst, position);
    if (got < wanted) {
      throw new EOFException(
          "file " + name() + ": wanted " + wanted + " bytes at " + position + ", end of file after "
              + got);
    }
  }

  /** Makes the data written so far durable (fsync). */
  void sync() throws IOException;

  /** The file's current size in bytes. */
  long size() throws IOException;
}
