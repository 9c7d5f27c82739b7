package io.parityfs.raid.array.drive;

import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * One drive directory, as the array does its file I/O on it: every read, write, fsync, rename and
 * delete of the array goes through this seam, so tests can put a fault-injecting drive in its
 * place. Files are named relative to the drive root by a single name (no separators, not {@code .}
 * or {@code ..}); a bad name is an {@link IllegalArgumentException}.
 *
 * <p><b>Errors.</b> A failure of the device or its file system is an {@link ArrayException} with
 * {@link ArrayError#DRIVE_IO} ({@link #isDriveFailure}): the caller marks the drive FAILED. Expected
 * conditions pass through with their own types and say nothing about the drive's health: {@link
 * java.nio.file.NoSuchFileException} for an absent file, {@link
 * java.nio.channels.ClosedChannelException} for a file or drive already closed (or closed because
 * the calling thread was interrupted: do not interrupt I/O threads, the JDK closes the channel for
 * every thread using it).
 *
 * <p><b>Durability.</b> Nothing is durable until synced: file contents by {@link DriveFile#sync},
 * creations, renames and deletions by {@link #syncDirectory}. The crash-safe replace is: create a
 * temp file, write it, sync it, {@link #rename} it over the target, sync the directory.
 *
 * <p><b>Alignment.</b> See {@link #alignment()}: requests that follow it go straight to the
 * device in {@link IoMode#DIRECT} mode, others are served correctly but through the page cache.
 *
 * <p>Thread safety: implementations are safe for concurrent use; several requests may be in flight
 * on one drive and on one file at once.
 */
public interface Drive extends Closeable {

  /** How a drive moves data: straight to the device (O_DIRECT) or through the page cache. */
  enum IoMode {
    /** O_DIRECT for aligned requests; unaligned ones take the buffered path. */
    DIRECT,
    /** Buffered I/O only: the file system refused O_DIRECT, or it was not asked for. */
    BUFFERED
  }

  /** The drive directory, for messages and logs. */
  Path root();

  /** The mode this drive uses, chosen once when it was opened; for logs and metrics. */
  IoMode ioMode();

  /**
   * The I/O alignment in bytes (the file store's block size, a power of two, usually 512 or 4096).
   * A request is aligned when its file position and length are multiples of it and its buffer is
   * a direct buffer whose address at its position is a multiple of it ({@link
   * #allocateAligned}). Shard cells are multiples of 4096, so cell I/O into aligned buffers is
   * always aligned on drives with blocks of up to 4096 bytes.
   */
  int alignment();

  /** A direct buffer of {@code capacity} bytes whose address is a multiple of {@link #alignment}. */
  default ByteBuffer allocateAligned(int capacity) {
    int a = alignment();
    return ByteBuffer.allocateDirect(capacity + a).alignedSlice(a).limit(capacity).slice();
  }

  /** Creates {@code name}, or truncates it if it exists, and opens it for reading and writing. */
  DriveFile create(String name) throws IOException;

  /** Opens the existing file {@code name} for reading. */
  DriveFile open(String name) throws IOException;

  /**
   * Opens the existing file {@code name} for reading and writing, without truncating it (an
   * absent file is {@link java.nio.file.NoSuchFileException}; nothing is created). For in-place
   * updates such as a cell repair. The I/O rules are {@link #create}'s: aligned requests go
   * through O_DIRECT on a DIRECT drive. Writes are durable only after {@link DriveFile#sync}; until
   * then a crash may keep none, some or all of them.
   */
  DriveFile openForWrite(String name) throws IOException;

  /**
   * Renames {@code from} to {@code to} atomically, replacing {@code to} if it exists: a reader
   * sees the old {@code to} or the new one, never neither. Durable after {@link #syncDirectory}.
   */
  void rename(String from, String to) throws IOException;

  /** Makes the creations, renames and deletions done so far in the drive directory durable. */
  void syncDirectory() throws IOException;

  /** Deletes {@code name}; returns false if it did not exist. Durable after {@link #syncDirectory}. */
  boolean delete(String name) throws IOException;

  /** The names of the regular files in the drive directory starting with {@code prefix}, sorted. */
  List<String> list(String prefix) throws IOException;

  /** The size of {@code name} in bytes. */
  long size(String name) throws IOException;

  /** The capacity of the file store holding the drive, in bytes. */
  long totalSpace() throws IOException;

  /** The bytes still available to this process on the file store holding the drive. */
  long usableSpace() throws IOException;

  /** Whether {@code e} says the drive itself failed (as opposed to an absent file, say). */
  static boolean isDriveFailure(IOException e) {
    return e instanceof ArrayException && ((ArrayException) e).error() == ArrayError.DRIVE_IO;
  }
}
