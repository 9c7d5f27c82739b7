package io.parityfs.node.chunk;

import io.parityfs.node.protocol.Status;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.zip.CRC32C;

/**
 * The writer fences of one target: per file, the highest writer generation any WRITE or DELETE
 * of it carried. A request of an older generation is refused ({@link
 * Status#STALE_GENERATION}); a newer one raises the fence, durably, before anything else of it
 * happens. The fence is per file, not per chunk, so it also refuses an old writer
 * <em>creating</em> a chunk the target never had.
 *
 * <p><b>Storage.</b> One 16-byte record per fenced file, named by the file id in 10 hex digits
 * (generation u64, CRC32C of it u32, 4 zero bytes; see {@link #encode}), in a {@code
 * parityfs-fences} directory on every drive of the array (written to each: temp, fsync, rename, directory fsync),
 * read back as the largest generation any readable copy holds. A raise must reach at least
 * {@code minCopies} drives (the array's tolerance + 1), so that losing as many drives as the
 * array survives never loses a fence. A file never fenced is at generation 0. Records of
 * removed files stay (16 bytes each); nothing reads them again.
 *
 * <p><b>Ordering.</b> A write's commit and a delete run under the file's shared lock after
 * re-checking the fence ({@link #underFence}); a raise takes the exclusive lock. So once {@link
 * #admit} has raised a file's fence, no older writer's commit can land any more: a listing after
 * it sees every chunk it will ever see from older writers. Thread-safe.
 */
final class FenceTable {
  static final String DIRECTORY = "parityfs-fences";
  private static final int STRIPES = 64;

  private final List<Path> dirs;
  private final int minCopies;
  private final ConcurrentHashMap<Long, Long> cache = new ConcurrentHashMap<>();
  private final ReentrantReadWriteLock[] locks = new ReentrantReadWriteLock[STRIPES];

  /** Operation run under a fence. */
  @FunctionalInterface
  interface Fenced<T> {
    T run() throws IOException;
  }

  /**
   * @param drives the array's drive directories (a record is kept on each)
   * @param minCopies the copies a raise must write (clamped to the number of drives)
   */
  FenceTable(List<Path> drives, int minCopies) {
    List<Path> d = new ArrayList<>();
    for (Path p : drives) {
      d.add(p.resolve(DIRECTORY));
    }
    this.dirs = List.copyOf(d);
    this.minCopies = Math.max(1, Math.min(minCopies, dirs.size()));
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantReadWriteLock();
    }
  }

  /** The file's fence: the highest generation seen, 0 when never fenced. */
  long generation(long fileId) throws ChunkStoreException {
    Long g = cache.get(fileId);
    if (g != null) {
      return g;
    }
    ReentrantReadWriteLock.WriteLock lock = lock(fileId).writeLock();
    lock.lock();
    try {
      return load(fileId);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Admits a request of {@code generation}: refuses an older one than the fence, raises the
   * fence (durably on {@code minCopies} drives) to a newer one.
   *
   * @throws ChunkStoreException STALE_GENERATION when older; DRIVE_IO when a raise reached too
   *     few drives
   */
  void admit(long fileId, long generation) throws ChunkStoreException {
    long current = generation(fileId);
    if (generation == current) {
      return;
    }
    if (generation < current) {
      throw stale(fileId, generation, current);
    }
    ReentrantReadWriteLock.WriteLock lock = lock(fileId).writeLock();
    lock.lock();
    try {
      current = load(fileId);
      if (generation < current) {
        throw stale(fileId, generation, current);
      }
      if (generation > current) {
        persist(fileId, generation);
        cache.put(fileId, generation);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code op} under the file's shared lock if {@code generation} is still not older than
   * its fence (a commit or a delete: no raise can pass it meanwhile).
   */
  <T> T underFence(long fileId, long generation, Fenced<T> op) throws IOException {
    ReentrantReadWriteLock.ReadLock lock = lock(fileId).readLock();
    lock.lock();
    try {
      Long cached = cache.get(fileId);
      long current = cached != null ? cached : load(fileId); // raises hold the write lock
      if (generation < current) {
        throw stale(fileId, generation, current);
      }
      return op.run();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The highest file id with a fence record on any drive, 0 when none: one listing of each
   * drive's fence directory (what the node advertises at start, see {@link ChunkStore#maxFileId}).
   */
  long highestFencedFile() {
    long best = 0;
    for (Path d : dirs) {
      try (DirectoryStream<Path> names = Files.newDirectoryStream(d)) {
        for (Path p : names) {
          String n = p.getFileName().toString();
          if (n.length() == 10) {
            try {
              best = Math.max(best, Long.parseLong(n, 16));
            } catch (NumberFormatException e) {
              // not a fence record
            }
          }
        }
      } catch (IOException e) {
        // no fence directory on this drive (or unreadable: the other copies count)
      }
    }
    return best;
  }

  private ReentrantReadWriteLock lock(long fileId) {
    return locks[(int) Long.remainderUnsigned(fileId * 0x9E3779B97F4A7C15L >>> 32, STRIPES)];
  }

  private static ChunkStoreException stale(long fileId, long generation, long current) {
    return new ChunkStoreException(Status.STALE_GENERATION, "file " + fileId
        + ": writer generation " + generation + " is older than " + current
        + " (its lease was recovered or the file reopened)");
  }

  /** Reads the fence from the drives (caller holds the file's lock, shared or exclusive). */
  private long load(long fileId) {
    Long cached = cache.get(fileId);
    if (cached != null) {
      return cached;
    }
    long best = 0;
    String name = name(fileId);
    for (Path d : dirs) {
      try {
        byte[] b = Files.readAllBytes(d.resolve(name));
        long g = decode(b);
        if (g > best) {
          best = g;
        }
      } catch (NoSuchFileException e) {
        // no fence on this drive
      } catch (IOException e) {
        // an unreadable copy: the others decide (a raise wrote at least minCopies)
      }
    }
    cache.put(fileId, best);
    return best;
  }

  private void persist(long fileId, long generation) throws ChunkStoreException {
    String name = name(fileId);
    byte[] record = encode(generation);
    int written = 0;
    IOException last = null;
    for (Path d : dirs) {
      try {
        Files.createDirectories(d);
        Path tmp = d.resolve(name + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
            StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
          ch.write(ByteBuffer.wrap(record));
          ch.force(true);
        }
        Files.move(tmp, d.resolve(name), StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(d, StandardOpenOption.READ)) {
          dir.force(true);
        }
        written++;
      } catch (IOException e) {
        last = e;
      }
    }
    if (written < minCopies) {
      throw new ChunkStoreException(Status.DRIVE_IO, "file " + fileId + ": the fence at"
          + " generation " + generation + " reached " + written + " of the " + minCopies
          + " drives it needs" + (last == null ? "" : ": " + last), last);
    }
  }

  private static String name(long fileId) {
    return String.format("%010x", fileId);
  }

  /** generation u64, then CRC32C of those 8 bytes as u32, then 4 zero bytes: 16 bytes. */
  static byte[] encode(long generation) {
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(generation);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, 8);
    b.putInt((int) crc.getValue());
    b.putInt(0);
    return b.array();
  }

  static long decode(byte[] b) throws IOException {
    if (b.length != 16) {
      throw new IOException("fence record of " + b.length + " bytes, expected 16");
    }
    ByteBuffer buf = ByteBuffer.wrap(b);
    long g = buf.getLong();
    CRC32C crc = new CRC32C();
    crc.update(b, 0, 8);
    if (buf.getInt() != (int) crc.getValue()) {
      throw new IOException("fence record with a bad CRC");
    }
    return g;
  }
}
