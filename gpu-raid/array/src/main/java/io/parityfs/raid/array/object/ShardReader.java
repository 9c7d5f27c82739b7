package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveFile;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.CellChecksums;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.array.format.ShardHeader;
import io.parityfs.raid.array.format.ShardHeaderDecoder;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads one shard file ({@link ShardFormat}) on one drive, checking every cell against its CRC32C.
 * Opening reads and validates the header and the file length; the CRC table is loaded lazily, one
 * 4 KiB table block (1024 entries) at a time, the first time a cell it covers is read.
 *
 * <p><b>Corruption is an exception.</b> {@link #readCell} throws {@link ArrayError#CORRUPT_CELL}
 * naming the file, the cell and both checksums rather than returning a status: the only wrong
 * outcome is handing back bad bytes, and an exception cannot be ignored by mistake. The caller
 * catches it by code, reconstructs the cell from the other shards and calls {@link #rewriteCell}.
 * {@link #readRange} reads several cells in one request and returns the bad ones instead, so one
 * pass finds every cell to reconstruct.
 *
 * <p><b>Errors.</b> A device failure is {@link ArrayError#DRIVE_IO} (see {@link Drive}); a header
 * that fails validation, or a file of the wrong length, is {@link ArrayError#CORRUPT_SHARD}; an
 * absent file is {@link java.nio.file.NoSuchFileException}.
 *
 * <p><b>Buffers.</b> Cells are read into the caller's buffer at its position, which advances past
 * them; an aligned direct buffer ({@link Drive#allocateAligned}) is filled by O_DIRECT with no
 * copy.
 *
 * <p>Thread-safe: reads may run concurrently, with each other and with {@link #rewriteCell}, which
 * repairs in place (one rewrite at a time).
 */
public final class ShardReader implements Closeable {
  private final Drive drive;
  private final String name;
  private final ShardHeader header;
  /** Loaded table blocks (entries of cells 1024 b .. 1024 b + 1023); null until first used. */
  private final int[][] table;
  private final DriveFile file;

  private ShardReader(Drive drive, String name, DriveFile file, ShardHeader header) {
    this.drive = drive;
    this.name = name;
    this.file = file;
    this.header = header;
    this.table = new int[ShardFormat.tableBlocks(header.cellCount())][];
  }

  /**
   * Opens shard {@code name} on {@code drive} and validates its header.
   *
   * @throws ArrayException CORRUPT_SHARD (bad header, wrong file length), UNSUPPORTED_VERSION,
   *     DRIVE_IO
   */
  public static ShardReader open(Drive drive, String name) throws IOException {
    DriveFile file = drive.open(name);
    try {
      Path path = drive.root().resolve(name);
      ByteBuffer block = drive.allocateAligned(ShardFormat.HEADER_LENGTH);
      int n = file.read(block, 0);
      block.flip();
      ShardHeader header = ShardHeaderDecoder.decode(block.limit(n), path);
      long size = file.size();
      if (size != header.fileLength()) {
        throw new ArrayException(ArrayError.CORRUPT_SHARD, path,
            "shard " + path + " is " + size + " bytes; its header (" + header.cellCount() + " cells of "
                + header.cellSize() + " bytes) implies " + header.fileLength());
      }
      return new ShardReader(drive, name, file, header);
    } catch (IOException | RuntimeException e) {
      file.close();
      throw e;
    }
  }

  /** The validated header. */
  public ShardHeader header() {
    return header;
  }

  /** The file's name on its drive. */
  public String name() {
    return name;
  }

  /**
   * Reads cell {@code index} into {@code into} (cellSize bytes at its position, which advances)
   * and checks it.
   *
   * @throws ArrayException CORRUPT_CELL when the cell fails its CRC (the bytes are in {@code into}
   *     all the same, its position not advanced), DRIVE_IO, CORRUPT_SHARD if the file shrank
   */
  public void readCell(int index, ByteBuffer into) throws IOException {
    int[] bad = readCells(index, 1, into);
    if (bad.length > 0) {
      int expected = crc(index);
      int actual = CellChecksums.crc32c(into.duplicate().limit(into.position() + header.cellSize()));
      Path path = drive.root().resolve(name);
      throw new ArrayException(ArrayError.CORRUPT_CELL, path, String.format(
          "shard %s cell %d fails its checksum: stored CRC32C %08x, computed %08x", path, index,
          expected, actual));
    }
    into.position(into.position() + header.cellSize());
  }

  /**
   * The number of cells that hold shard bytes {@code [offset, offset + length)}: the size of the
   * buffer {@link #readRange} needs, in cells.
   */
  int cellsTouched(long offset, long length) {
    checkRange(offset, length);
    return length == 0 ? 0 : (int) ((offset + length - 1) / header.cellSize()
        - offset / header.cellSize() + 1);
  }

  /**
   * Reads the whole cells that hold shard bytes {@code [offset, offset + length)} (offsets within
   * this shard's cells, not the object) into {@code into}, in one request, and checks each. The
   * byte at {@code offset} lands at {@code offset % cellSize} past into's position; the position
   * advances past all the cells read, bad ones included.
   *
   * @return the indexes of the cells that fail their CRC, ascending; empty when all are good
   * @throws IllegalArgumentException when the range is outside the cells or into is too small
   */
  public int[] readRange(long offset, long length, ByteBuffer into) throws IOException {
    int count = cellsTouched(offset, length);
    if (count == 0) {
      return new int[0];
    }
    int[] bad = readCells((int) (offset / header.cellSize()), count, into);
    into.position(into.position() + count * header.cellSize());
    return bad;
  }

  /**
   * Replaces cell {@code index} with {@code data} (exactly cellSize bytes; not moved) and its CRC
   * entry, durably and in place: opens the shard with {@link Drive#openForWrite}, writes the cell
   * at its offset, reads the 4 KiB table block holding the entry, sets the entry and writes the
   * block back, fsyncs. Nothing else of the file is touched, so a repair costs one cell and one
   * block, whatever the shard's size.
   *
   * <p><b>Crash safety.</b> Until the fsync returns, a crash may persist none, either or both of
   * the two writes, and the cell write possibly torn. A cell is accepted only when its CRC32C
   * equals its stored entry, and the entry is either the old one or the CRC of exactly {@code
   * data}. So after a crash the cell reads as the old bytes (for a cell being repaired: still
   * {@link ArrayError#CORRUPT_CELL}, and repaired again from parity on the next read), as {@code
   * data}, or fails its CRC: new bytes under the old entry, old bytes under the new entry, or a
   * torn mix of the two under either, all mismatch (up to CRC32C collisions) and are detected, never
   * "valid but wrong". When the old entry was the bad part (table rot) the cell bytes do not change
   * and any outcome is correct. <b>Assumption:</b> the devices we target do not tear an aligned
   * 4 KiB write, so the table block lands old or new; the entry is 4 bytes at a 4-byte-aligned
   * offset inside that one block (even a sector-torn block keeps it whole), and the block's other
   * entries are rewritten with the values just read. Were a block torn into garbage, the damage
   * would make good cells fail their CRC (then rebuilt from parity), not accept bad bytes.
   *
   * <p>Other calls on this reader may run meanwhile: a concurrent read of this cell may see the
   * new bytes before the new entry and report the cell bad, which only causes another repair.
   */
  public synchronized void rewriteCell(int index, ByteBuffer data) throws IOException {
    checkCell(index);
    int cellSize = header.cellSize();
    if (data.remaining() != cellSize) {
      throw new IllegalArgumentException(
          "a repaired cell has " + data.remaining() + " bytes; cells have " + cellSize);
    }
    int cells = header.cellCount();
    int newCrc = CellChecksums.crc32c(data);
    int b = index / ShardFormat.ENTRIES_PER_BLOCK;
    int entry = index % ShardFormat.ENTRIES_PER_BLOCK;
    long blockAt = ShardFormat.tableOffset(cellSize, cells) + (long) b * ShardFormat.BLOCK;
    ByteBuffer block = drive.allocateAligned(ShardFormat.BLOCK);
    try (DriveFile out = drive.openForWrite(name)) {
      out.write(data.duplicate(), ShardFormat.cellOffset(cellSize, index));
      readFully(out, block, blockAt);
      block.putInt(4 * entry, newCrc);
      out.write(block.flip(), blockAt);
      out.sync();
    }
    // Publish the entry only now that it is durable; a copy, so readers never see it half set.
    int entries = Math.min(ShardFormat.ENTRIES_PER_BLOCK, cells - b * ShardFormat.ENTRIES_PER_BLOCK);
    synchronized (table) {
      int[] updated = table[b] == null ? decode(block, entries) : table[b].clone();
      updated[entry] = newCrc;
      table[b] = updated;
    }
  }

  @Override
  public synchronized void close() throws IOException {
    file.close();
  }

  /** The stored CRC of cell {@code index}, loading its table block on first use. */
  int crc(int index) throws IOException {
    checkCell(index);
    return tableBlock(index / ShardFormat.ENTRIES_PER_BLOCK)[index % ShardFormat.ENTRIES_PER_BLOCK];
  }

  private int[] readCells(int first, int count, ByteBuffer into) throws IOException {
    int cellSize = header.cellSize();
    long bytes = (long) count * cellSize;
    if (into.remaining() < bytes) {
      throw new IllegalArgumentException("a buffer of " + into.remaining() + " bytes cannot hold "
          + count + " cells of " + cellSize + " bytes");
    }
    checkCell(first);
    checkCell(first + count - 1);
    ByteBuffer dst = into.duplicate().limit(into.position() + (int) bytes);
    readFully(dst, ShardFormat.cellOffset(cellSize, first));
    int[] bad = new int[count];
    int found = 0;
    for (int i = 0; i < count; i++) {
      int from = into.position() + i * cellSize;
      int crc = CellChecksums.crc32c(into.duplicate().limit(from + cellSize).position(from));
      if (crc != crc(first + i)) {
        bad[found++] = first + i;
      }
    }
    if (found > 0) {
      // The cached table block may be what is wrong (read corrupted, or rewritten since by a
      // repair through another reader): reload it once and check the suspects again.
      int still = 0;
      int reloaded = -1;
      for (int j = 0; j < found; j++) {
        int index = bad[j];
        int block = index / ShardFormat.ENTRIES_PER_BLOCK;
        if (block != reloaded) {
          synchronized (table) {
            table[block] = null;
          }
          reloaded = block;
        }
        int from = into.position() + (index - first) * cellSize;
        int crc = CellChecksums.crc32c(into.duplicate().limit(from + cellSize).position(from));
        if (crc != crc(index)) {
          bad[still++] = index;
        }
      }
      found = still;
    }
    return Arrays.copyOf(bad, found);
  }

  private int[] tableBlock(int b) throws IOException {
    synchronized (table) {
      if (table[b] != null) {
        return table[b];
      }
    }
    int cells = header.cellCount();
    int entries = Math.min(ShardFormat.ENTRIES_PER_BLOCK, cells - b * ShardFormat.ENTRIES_PER_BLOCK);
    ByteBuffer buf = drive.allocateAligned(ShardFormat.BLOCK);
    readFully(buf,
        ShardFormat.tableEntryOffset(header.cellSize(), cells, b * ShardFormat.ENTRIES_PER_BLOCK));
    int[] loaded = decode(buf.flip(), entries);
    synchronized (table) {
      if (table[b] == null) {
        table[b] = loaded;
      }
      return table[b];
    }
  }

  private static int[] decode(ByteBuffer block, int entries) {
    int[] decoded = new int[entries];
    for (int i = 0; i < entries; i++) {
      decoded[i] = block.getInt(4 * i);
    }
    return decoded;
  }

  /** Reads from the shard; a short read means the file shrank since it was opened. */
  private void readFully(ByteBuffer dst, long position) throws IOException {
    readFully(file, dst, position);
  }

  private void readFully(DriveFile f, ByteBuffer dst, long position) throws IOException {
    try {
      f.readFully(dst, position);
    } catch (EOFException e) {
      Path path = drive.root().resolve(name);
      throw new ArrayException(ArrayError.CORRUPT_SHARD, path,
          "shard " + path + " ended early: " + e.getMessage(), e);
    }
  }

  private void checkCell(int index) {
    if (index < 0 || index >= header.cellCount()) {
      throw new IllegalArgumentException("cell (" + index + ") must be in 0.."
          + (header.cellCount() - 1) + " for shard " + name);
    }
  }

  private void checkRange(long offset, long length) {
    long size = (long) header.cellCount() * header.cellSize();
    if (offset < 0 || length < 0 || offset > size || length > size - offset) {
      throw new IllegalArgumentException("range [" + offset + ", +" + length
          + ") is not inside the " + size + " bytes of cells of shard " + name);
    }
  }
}
