package io.parityfs.raid.array.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The CRC32C of every cell of one shard: the {@link ShardFormat} CRC table. Computes a cell's
 * checksum on the caller's buffer without copying, encodes and decodes the table, and says which
 * cells of a buffer do not match it. Immutable; buffers passed in are read, never moved or kept.
 */
public final class CellChecksums {
  private final int[] crcs;

  private CellChecksums(int[] crcs) {
    this.crcs = crcs;
  }

  /** The table holding {@code crcs} (copied), entry i for cell i. */
  static CellChecksums of(int... crcs) {
    return new CellChecksums(crcs.clone());
  }

  /**
   * The CRC32C of the remaining bytes of {@code cell} (heap or direct); its position is left
   * where it was.
   */
  public static int crc32c(ByteBuffer cell) {
    CRC32C crc = new CRC32C();
    crc.update(cell.duplicate()); // a view of the same memory: no copy, caller's position kept
    return (int) crc.getValue();
  }

  /**
   * The checksums of the cells in the remaining bytes of {@code cells}, {@code cellSize} bytes
   * each.
   *
   * @throws IllegalArgumentException when the bytes are not a whole number of cells
   */
  static CellChecksums compute(ByteBuffer cells, int cellSize) {
    int n = cellCount(cells, cellSize);
    int[] crcs = new int[n];
    for (int i = 0; i < n; i++) {
      crcs[i] = crc32c(cell(cells, cellSize, i));
    }
    return new CellChecksums(crcs);
  }

  /**
   * Reads {@code cellCount} entries from the remaining bytes of {@code table} (the table region,
   * or the part of it from the block holding the first entry wanted). Padding after the last
   * entry is not read: it protects nothing.
   *
   * @throws IllegalArgumentException when {@code table} is too short for the entries
   */
  static CellChecksums decode(ByteBuffer table, int cellCount) {
    if (cellCount < 0 || table.remaining() / 4 < cellCount) {
      throw new IllegalArgumentException("a CRC table of " + table.remaining()
          + " bytes cannot hold " + cellCount + " entries");
    }
    ByteBuffer b = table.slice().order(ByteOrder.BIG_ENDIAN);
    int[] crcs = new int[cellCount];
    for (int i = 0; i < cellCount; i++) {
      crcs[i] = b.getInt(4 * i);
    }
    return new CellChecksums(crcs);
  }

  /** The table region: 4 bytes big-endian per cell, zero-padded to whole blocks. */
  byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(ShardFormat.tableBlocks(crcs.length) * ShardFormat.BLOCK);
    for (int crc : crcs) {
      b.putInt(crc);
    }
    return b.array();
  }

  /** Number of cells. */
  int count() {
    return crcs.length;
  }

  /** The stored CRC32C of cell {@code cell}. */
  int crc(int cell) {
    checkCell(cell);
    return crcs[cell];
  }

  /** Whether the remaining bytes of {@code data} match cell {@code cell}'s checksum. */
  boolean matches(int cell, ByteBuffer data) {
    checkCell(cell);
    return crc32c(data) == crcs[cell];
  }

  /**
   * The indexes of the cells that fail their checksum, in ascending order, among the cells in the
   * remaining bytes of {@code cells}: {@code cellSize} bytes each, the first being cell
   * {@code firstCell}. Empty when all match.
   *
   * @throws IllegalArgumentException when the buffer is not a whole number of cells or runs past
   *     the table
   */
  int[] badCells(ByteBuffer cells, int firstCell, int cellSize) {
    int n = cellCount(cells, cellSize);
    if (firstCell < 0 || firstCell > crcs.length - n) {
      throw new IllegalArgumentException("cells " + firstCell + ".." + (firstCell + n - 1)
          + " are not all in a table of " + crcs.length);
    }
    int[] bad = new int[n];
    int found = 0;
    for (int i = 0; i < n; i++) {
      if (crc32c(cell(cells, cellSize, i)) != crcs[firstCell + i]) {
        bad[found++] = firstCell + i;
      }
    }
    return Arrays.copyOf(bad, found);
  }

  private static ByteBuffer cell(ByteBuffer cells, int cellSize, int i) {
    int from = cells.position() + i * cellSize;
    return cells.duplicate().limit(from + cellSize).position(from);
  }

  private static int cellCount(ByteBuffer cells, int cellSize) {
    if (cellSize < 1 || cells.remaining() % cellSize != 0) {
      throw new IllegalArgumentException("a buffer of " + cells.remaining()
          + " bytes is not a whole number of " + cellSize + "-byte cells");
    }
    return cells.remaining() / cellSize;
  }

  private void checkCell(int cell) {
    if (cell < 0 || cell >= crcs.length) {
      throw new IllegalArgumentException(
          "cell (" + cell + ") must be in 0.." + (crcs.length - 1));
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CellChecksums c && Arrays.equals(crcs, c.crcs);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(crcs);
  }

  @Override
  public String toString() {
    return "CellChecksums[" + crcs.length + " cells]";
  }
}
