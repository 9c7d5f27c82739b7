package io.parityfs.raid.array.drive;

import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exclusive locks an open array holds on its drive directories: an OS file lock ({@link
 * FileChannel#tryLock}, fcntl on Linux) on the file {@value #FILE_NAME} in each drive's root,
 * taken when the array opens (and when a drive joins it) and released at close or when the
 * process dies. A second array open over one of the same drives, in another process or in this
 * one, fails with {@link ArrayError#DRIVE_IN_USE} naming the drive: two stores writing one set
 * of drives would delete each other's temp files and versions. The lock file is left in place
 * (deleting it would race the next holder); it does not make a drive non-blank.
 */
public final class DriveLocks implements Closeable {
  static final String FILE_NAME = ".parityfs.lock";

  private record Held(FileChannel channel, FileLock lock) {}

  private final Map<Path, Held> held = new ConcurrentHashMap<>();

  /** Locks {@code drive} (no-op when these locks hold it already). */
  public synchronized void lock(Path drive) throws IOException {
    Path key = drive.toAbsolutePath().normalize();
    if (held.containsKey(key)) {
      return;
    }
    FileChannel ch;
    try {
      ch = FileChannel.open(key.resolve(FILE_NAME), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new ArrayException(ArrayError.IO_ERROR, key, "drive " + key + ": cannot open its"
          + " lock file " + FILE_NAME + ": " + e, e);
    }
    FileLock lock;
    String by;
    try {
      lock = ch.tryLock();
      by = "another process";
    } catch (OverlappingFileLockException e) {
      lock = null;
      by = "another array open in this process";
    } catch (IOException e) {
      ch.close();
      throw new ArrayException(ArrayError.IO_ERROR, key, "drive " + key + ": cannot lock "
          + FILE_NAME + ": " + e, e);
    }
    if (lock == null) {
      ch.close();
      throw new ArrayException(ArrayError.DRIVE_IN_USE, key, "drive " + key + " is in use: "
          + by + " holds its lock (" + key.resolve(FILE_NAME) + "); is another storage node"
          + " running on these drives?");
    }
    held.put(key, new Held(ch, lock));
  }

  /** Releases every lock. */
  @Override
  public synchronized void close() {
    for (Held h : held.values()) {
      try {
        h.channel().close(); // releases the lock
      } catch (IOException e) {
        // the process's exit releases it
      }
    }
    held.clear();
  }
}
