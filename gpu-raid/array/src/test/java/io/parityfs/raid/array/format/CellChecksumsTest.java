package io.parityfs.raid.array.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class CellChecksumsTest {
  static final int CELL = 4096;

  static ByteBuffer randomCells(int cells, boolean direct) {
    byte[] bytes = new byte[cells * CELL];
    new Random(cells).nextBytes(bytes);
    ByteBuffer b = direct ? ByteBuffer.allocateDirect(bytes.length) : ByteBuffer.allocate(
        bytes.length);
    b.put(bytes).flip();
    return b;
  }

  @Test
  void crcIsTheStandardCrc32cAndLeavesTheBufferAlone() {
    ByteBuffer b = ByteBuffer.wrap("xx123456789yy".getBytes()).position(2).limit(11);
    assertEquals(0xE3069283, CellChecksums.crc32c(b));
    assertEquals(2, b.position());
    assertEquals(11, b.limit());
  }

  @Test
  void aFlippedBitInAnyCellIsFoundAndAttributedToThatCell() {
    int cells = 6;
    for (boolean direct : new boolean[] {false, true}) {
      ByteBuffer data = randomCells(cells, direct);
      CellChecksums table = CellChecksums.compute(data, CELL);
      assertEquals(0, table.badCells(data, 0, CELL).length);
      for (int cell = 0; cell < cells; cell++) {
        for (int offset : new int[] {0, 1, 2047, CELL - 1}) {
          for (int bit = 0; bit < 8; bit++) {
            int at = cell * CELL + offset;
            data.put(at, (byte) (data.get(at) ^ (1 << bit)));
            assertArrayEquals(new int[] {cell}, table.badCells(data, 0, CELL),
                "bit " + bit + " of byte " + offset + " in cell " + cell);
            data.put(at, (byte) (data.get(at) ^ (1 << bit)));
          }
        }
      }
      assertEquals(0, table.badCells(data, 0, CELL).length);
    }
  }

  @Test
  void severalBadCellsAreAllReportedWithAbsoluteIndexes() {
    ByteBuffer data = randomCells(8, false);
    CellChecksums table = CellChecksums.compute(data, CELL);
    data.put(1 * CELL + 5, (byte) ~data.get(1 * CELL + 5));
    data.put(6 * CELL, (byte) ~data.get(6 * CELL));
    assertArrayEquals(new int[] {1, 6}, table.badCells(data, 0, CELL));
    // A read of cells 5..7 only: the window starts at cell 5 of the shard.
    ByteBuffer window = data.duplicate().position(5 * CELL);
    assertArrayEquals(new int[] {6}, table.badCells(window, 5, CELL));
    assertFalse(table.matches(6, data.duplicate().position(6 * CELL).limit(7 * CELL)));
    assertTrue(table.matches(7, data.duplicate().position(7 * CELL)));
  }

  @Test
  void tableEncodesBigEndianPaddedToBlocksAndDecodesBack() {
    for (int cells : new int[] {0, 1, 1024, 1025}) {
      int[] crcs = new Random(cells).ints(cells).toArray();
      CellChecksums table = CellChecksums.of(crcs);
      byte[] bytes = table.encode();
      assertEquals(ShardFormat.tableBlocks(cells) * 4096, bytes.length);
      ByteBuffer b = ByteBuffer.wrap(bytes);
      for (int i = 0; i < cells; i++) {
        assertEquals(crcs[i], b.getInt(4 * i));
      }
      for (int i = 4 * cells; i < bytes.length; i++) {
        assertEquals(0, bytes[i], "padding at " + i);
      }
      assertEquals(table, CellChecksums.decode(b, cells));
    }
  }

  @Test
  void oneTableBlockVerifiesOneCell() {
    // Cell 1500's entry sits in the second table block at 4 * (1500 - 1024).
    int[] crcs = new int[2000];
    ByteBuffer cell = randomCells(1, true);
    CRC32C crc = new CRC32C();
    crc.update(cell.duplicate());
    crcs[1500] = (int) crc.getValue();
    byte[] table = CellChecksums.of(crcs).encode();
    ByteBuffer block = ByteBuffer.wrap(table, 4096, 4096);
    CellChecksums part = CellChecksums.decode(block, 1024);
    assertTrue(part.matches(1500 - 1024, cell));
  }

  @Test
  void badArgumentsAreRefused() {
    ByteBuffer data = randomCells(2, false);
    CellChecksums table = CellChecksums.compute(data, CELL);
    assertThrows(IllegalArgumentException.class, () -> CellChecksums.compute(
        data.duplicate().limit(CELL + 1), CELL));
    assertThrows(IllegalArgumentException.class, () -> table.badCells(data, 1, CELL));
    assertThrows(IllegalArgumentException.class, () -> table.crc(2));
    assertThrows(IllegalArgumentException.class,
        () -> CellChecksums.decode(ByteBuffer.allocate(7), 2));
  }

  @Test
  void combiningTheChecksumsOfTwoPiecesGivesTheChecksumOfBoth() {
    Random r = new Random(41);
    byte[] bytes = new byte[3 * 65536 + 17];
    r.nextBytes(bytes);
    int[] splits = {0, 1, 7, 4096, 65536, 65537, 2 * 65536, bytes.length - 1, bytes.length};
    for (int split : splits) {
      int a = crc(bytes, 0, split);
      int b = crc(bytes, split, bytes.length - split);
      assertEquals(crc(bytes, 0, bytes.length),
          CellChecksums.combine(a, b, bytes.length - split), "split at " + split);
    }
    // Many pieces folded in turn, as a receiver does frame by frame.
    int folded = 0;
    for (int at = 0; at < bytes.length; ) {
      int n = Math.min(bytes.length - at, 1 + r.nextInt(20000));
      folded = CellChecksums.combine(folded, crc(bytes, at, n), n);
      at += n;
    }
    assertEquals(crc(bytes, 0, bytes.length), folded);
    // A damaged piece changes the result.
    int good = CellChecksums.combine(crc(bytes, 0, 100), crc(bytes, 100, 200), 200);
    bytes[150] ^= 1;
    assertTrue(good != CellChecksums.combine(crc(bytes, 0, 100), crc(bytes, 100, 200), 200));
    assertThrows(IllegalArgumentException.class, () -> CellChecksums.combine(1, 2, -1));
  }

  @Test
  void combiningIsAssociativeForLengthsBeyondIntegerRange() {
    // (A B) C == A (B C) for every split forces x^(8 (n1 + n2)) == x^(8 n1) x^(8 n2), which
    // exercises the table past 2^31 bytes without hashing that many.
    Random r = new Random(7);
    for (int i = 0; i < 50; i++) {
      int a = r.nextInt();
      int b = r.nextInt();
      int c = r.nextInt();
      long n1 = r.nextLong() >>> 2;
      long n2 = r.nextLong() >>> 2;
      assertEquals(CellChecksums.combine(CellChecksums.combine(a, b, n1), c, n2),
          CellChecksums.combine(a, CellChecksums.combine(b, c, n2), n1 + n2));
    }
  }

  private static int crc(byte[] b, int from, int n) {
    CRC32C c = new CRC32C();
    c.update(b, from, n);
    return (int) c.getValue();
  }
}
