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
   * The CRC32C of the bytes A then B, from A's CRC, B's CRC and B's length: what a receiver that
   * checksummed pieces of a stream separately (a cell's part in each frame, a frame's part in
   * each cell) needs to compare with a checksum over the whole, without another pass over the
   * bytes. Multiplies A's CRC by x^(8 lenB) modulo the CRC32C polynomial in GF(2).
   *
   * @throws IllegalArgumentException when {@code lenB} is negative
   */
  public static int combine(int crcA, int crcB, long lenB) {
    if (lenB < 0) {
      throw new IllegalArgumentException("lenB (" + lenB + ") must not be negative");
    }
    if (crcA == 0) {
      return crcB; // 0 times anything is 0: nothing before B, or bytes whose CRC is 0
    }
    Power p = lastPower; // pieces repeat their length (a cell, a frame): one multiply for them
    if (p == null || p.n != lenB) {
      p = new Power(lenB, xPower8n(lenB));
      lastPower = p;
    }
    return multiplyModP(p.value, crcA) ^ crcB;
  }

  /** x^(8n) mod P for one n; immutable, so a racy read of {@link #lastPower} is safe. */
  private record Power(long n, int value) {}

  private static Power lastPower;

  /** The CRC32C polynomial, bit-reflected: bit 31 is x^0's coefficient, bit 0 x^31's. */
  private static final int POLY = 0x82F63B78;
  /** x^0 in the reflected representation. */
  private static final int ONE = 1 << 31;
  /** X_POW2[i] = x^(2^i) mod P: enough entries for x^(8n) with n up to 2^63. */
  private static final int[] X_POW2 = new int[67];

  static {
    X_POW2[0] = ONE >>> 1; // x^1
    for (int i = 1; i < X_POW2.length; i++) {
      X_POW2[i] = multiplyModP(X_POW2[i - 1], X_POW2[i - 1]);
    }
  }

  /** a(x) b(x) mod P(x), both reflected. */
  private static int multiplyModP(int a, int b) {
    int product = 0;
    for (int bit = ONE; a != 0; bit >>>= 1) {
      if ((a & bit) != 0) {
        product ^= b;
        a ^= bit;
      }
      b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1; // b(x) times x, reduced
    }
    return product;
  }

  /** x^(8n) mod P. */
  private static int xPower8n(long n) {
    int p = ONE;
    for (int i = 3; n != 0; n >>>= 1, i++) {
      if ((n & 1) != 0) {
        p = multiplyModP(X_POW2[i], p);
      }
    }
    return p;
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
