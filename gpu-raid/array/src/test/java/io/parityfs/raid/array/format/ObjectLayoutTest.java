package io.parityfs.raid.array.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObjectLayoutTest {

  /** Byte b of the object, by the definition: cell b / cellSize, on shard cell % k. */
  record Where(int stripe, int shard, int offsetInCell) {}

  static Where bruteForce(long b, int k, int cellSize) {
    long cell = b / cellSize;
    return new Where((int) (cell / k), (int) (cell % k), (int) (b % cellSize));
  }

  static void checkEveryRange(Protection p, int k, int cellSize) {
    int stripeBytes = k * cellSize;
    for (int length = 0; length <= 3 * stripeBytes + 1; length++) {
      ObjectLayout layout = new ObjectLayout(p, cellSize, length);
      String what = p + " cell=" + cellSize + " length=" + length;
      assertEquals((length + stripeBytes - 1) / stripeBytes, layout.stripes(), what);
      // Shard data lengths: count the bytes brute force.
      long[] perShard = new long[k];
      for (long b = 0; b < length; b++) {
        Where w = bruteForce(b, k, cellSize);
        perShard[w.shard()]++;
        assertEquals(w, new Where(layout.locate(b).stripe(), layout.locate(b).shard(),
            layout.locate(b).offsetInCell()), what + " byte " + b);
      }
      for (int s = 0; s < layout.shards(); s++) {
        long expected = p instanceof Protection.Mirror ? length : perShard[s < k ? s : 0];
        assertEquals(expected, layout.shardDataLength(s), what + " shard " + s);
        assertTrue(layout.shardDataLength(s) <= (long) layout.stripes() * cellSize);
      }
      for (int off = 0; off <= length; off++) {
        for (int len = 0; off + len <= length; len++) {
          checkRange(layout, k, cellSize, off, len, what);
        }
      }
    }
  }

  static void checkRange(ObjectLayout layout, int k, int cellSize, long off, long len,
      String what) {
    String range = what + " range [" + off + ", +" + len + ")";
    // spans: concatenated, they are exactly the bytes of the range, each within one cell.
    List<ObjectLayout.CellSpan> spans = layout.spans(off, len);
    long b = off;
    long mask = 0;
    for (ObjectLayout.CellSpan s : spans) {
      assertEquals(b, s.objectOffset(), range);
      assertTrue(s.length() >= 1 && s.offsetInCell() + s.length() <= cellSize, range);
      for (int i = 0; i < s.length(); i++, b++) {
        assertEquals(bruteForce(b, k, cellSize),
            new Where(s.stripe(), s.shard(), s.offsetInCell() + i), range + " byte " + b);
      }
      mask |= 1L << s.shard();
    }
    assertEquals(off + len, b, range);
    assertEquals(mask, layout.shardsTouched(off, len), range);
    // stripeWrites: per stripe, the data cells holding a byte of the range; full when the range
    // holds every byte of the stripe that exists in the object.
    List<ObjectLayout.StripeWrite> expected = new ArrayList<>();
    long stripeBytes = (long) k * cellSize;
    for (long x = off; x < off + len; x++) {
      Where w = bruteForce(x, k, cellSize);
      if (expected.isEmpty() || expected.get(expected.size() - 1).stripe() != w.stripe()) {
        expected.add(new ObjectLayout.StripeWrite(w.stripe(), 0, false));
      }
      ObjectLayout.StripeWrite last = expected.remove(expected.size() - 1);
      long stripeStart = w.stripe() * stripeBytes;
      long stripeEnd = Math.min(stripeStart + stripeBytes, layout.length());
      boolean full = off <= stripeStart && off + len >= stripeEnd;
      expected.add(new ObjectLayout.StripeWrite(w.stripe(),
          last.dataShards() | 1L << w.shard(), full));
    }
    assertEquals(expected, layout.stripeWrites(off, len), range);
  }

  @Test
  void everyRangeOfSmallObjectsMatchesTheBytewiseMapping() {
    checkEveryRange(Protection.parse("raid5:3+1"), 3, 4);
    checkEveryRange(Protection.parse("raid6:4+2"), 4, 2);
    checkEveryRange(Protection.parse("rs:2+3"), 2, 8);
    checkEveryRange(Protection.parse("raid5:1+1"), 1, 4);
  }

  @Test
  void aMirrorCopyHoldsEveryCell() {
    checkEveryRange(Protection.mirror(3), 1, 4);
    ObjectLayout m = new ObjectLayout(Protection.mirror(2), 4096, 10_000);
    assertEquals(3, m.stripes());
    assertEquals(10_000, m.shardDataLength(0));
    assertEquals(10_000, m.shardDataLength(1));
    assertEquals(1, m.shardsTouched(5000, 5000));
  }

  @Test
  void anEmptyObjectHasNoCellsAndEveryEmptyRangeIsEmpty() {
    ObjectLayout layout = ObjectLayout.of(ArrayConfig.DEFAULT, 0);
    assertEquals(0, layout.stripes());
    assertEquals(0, layout.dataCells());
    for (int s = 0; s < 6; s++) {
      assertEquals(0, layout.shardDataLength(s));
    }
    assertTrue(layout.spans(0, 0).isEmpty());
    assertTrue(layout.stripeWrites(0, 0).isEmpty());
    assertEquals(0, layout.shardsTouched(0, 0));
    assertThrows(IllegalArgumentException.class, () -> layout.locate(0));
    assertThrows(IllegalArgumentException.class, () -> layout.spans(0, 1));
  }

  @Test
  void aHealthyReadTouchesOnlyTheDrivesHoldingTheRange() {
    ObjectLayout l = new ObjectLayout(Protection.parse("rs:10+4"), 65536, 64L << 20);
    assertEquals(0b1, l.shardsTouched(0, 65536));
    assertEquals(0b110, l.shardsTouched(65536 + 100, 65536));
    assertEquals(0b1000000001, l.shardsTouched(9 * 65536, 2 * 65536));
    assertEquals((1L << 10) - 1, l.shardsTouched(12345, 10 * 65536));
    ObjectLayout wide = new ObjectLayout(Protection.parse("rs:60+4"), 4096, 1 << 20);
    assertEquals((1L << 60) - 1, wide.shardsTouched(0, 1 << 20));
  }

  @Test
  void partialStripeWritesNameTheirCellsForAParityDelta() {
    ObjectLayout l = new ObjectLayout(Protection.parse("raid6:4+2"), 4096, 40_000);
    // stripe 0 = bytes 0..16383, stripe 1 = 16384..32767, stripe 2 = 32768..39999 (partial)
    assertEquals(List.of(new ObjectLayout.StripeWrite(0, 0b0110, false)),
        l.stripeWrites(5000, 4000));
    assertEquals(List.of(new ObjectLayout.StripeWrite(0, 0b1000, false),
            new ObjectLayout.StripeWrite(1, 0b1111, true),
            new ObjectLayout.StripeWrite(2, 0b0011, true)),
        l.stripeWrites(15_000, 25_000));
  }

  @Test
  void maximumObjectSizeIsEnforcedWithTheValues() {
    ArrayConfig c = ArrayConfig.builder().maxObjectSize(1 << 20).cellSize(4096).build();
    assertEquals(1 << 20, ObjectLayout.of(c, 1 << 20).length());
    IllegalArgumentException over =
        assertThrows(IllegalArgumentException.class, () -> ObjectLayout.of(c, (1 << 20) + 1));
    assertTrue(over.getMessage().contains("1048577") && over.getMessage().contains("1048576"),
        over.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ObjectLayout.of(c, -1));
    // The largest object a header can describe: 2^31 - 1 cells per shard.
    Protection one = Protection.parity(CodecGeometry.raid5(1));
    long maxCells = Integer.MAX_VALUE;
    assertEquals(Integer.MAX_VALUE, new ObjectLayout(one, 4096, maxCells * 4096).stripes());
    IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
        () -> new ObjectLayout(one, 4096, maxCells * 4096 + 1));
    assertTrue(tooMany.getMessage().contains("2147483648 cells"), tooMany.getMessage());
    // Near that bound, offsets need every bit of a long: 2^31 - 1 stripes of 32 x 16 MiB.
    long hugeLength = (long) Integer.MAX_VALUE << 29;
    ObjectLayout huge = ObjectLayout.of(c.toBuilder().maxObjectSize(Long.MAX_VALUE)
        .cellSize(16 << 20).geometry(CodecGeometry.reedSolomon(32, 32)).build(), hugeLength);
    assertEquals(Integer.MAX_VALUE, huge.stripes());
    ObjectLayout.CellSpan last = huge.spans(hugeLength - 1, 1).get(0);
    assertEquals(new ObjectLayout.CellSpan(hugeLength - 1, Integer.MAX_VALUE - 1, 31,
        (16 << 20) - 1, 1), last);
    assertEquals(List.of(new ObjectLayout.StripeWrite(Integer.MAX_VALUE - 1, 1L << 31, false)),
        huge.stripeWrites(hugeLength - 10, 10));
    assertEquals(16 << 20, huge.shardDataLength(40) / Integer.MAX_VALUE);
  }

  @Test
  void rangesOutsideTheObjectAreRefused() {
    ObjectLayout l = new ObjectLayout(Protection.parse("raid5:2+1"), 4096, 10_000);
    assertThrows(IllegalArgumentException.class, () -> l.spans(-1, 1));
    assertThrows(IllegalArgumentException.class, () -> l.spans(9_999, 2));
    assertThrows(IllegalArgumentException.class, () -> l.spans(1, Long.MAX_VALUE));
    assertThrows(IllegalArgumentException.class, () -> l.stripeWrites(10_001, 0));
    assertThrows(IllegalArgumentException.class, () -> l.shardDataLength(3));
    assertThrows(IllegalArgumentException.class,
        () -> new ObjectLayout(Protection.mirror(2), 3000, 1));
  }
}
