package io.parityfs.client.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The content is a function of (seed, stream, offset) alone, whatever the call sizes. */
class ContentPatternTest {
  private final ContentPattern p = new ContentPattern(7);

  @Test
  void fillIsIndependentOfCallBoundaries() {
    int len = 3 * ContentPattern.PERIOD + 12345;
    byte[] whole = new byte[len];
    p.fill(4, 0, whole, 0, len);
    byte[] pieces = new byte[len];
    for (int off = 0, n = 1; off < len; off += n, n = n * 3 + 7) {
      p.fill(4, off, pieces, off, Math.min(n, len - off));
    }
    assertArrayEquals(whole, pieces);
    assertEquals(-1, p.mismatch(4, 0, whole, 0, len));
    assertEquals(whole[ContentPattern.PERIOD + 5], p.at(4, ContentPattern.PERIOD + 5));
    assertEquals(new ContentPattern(7).at(4, 99), p.at(4, 99)); // same seed, same bytes
  }

  @Test
  void mismatchFindsTheFirstDifferingByte() {
    byte[] b = new byte[2 * ContentPattern.PERIOD];
    p.fill(1, 1000, b, 0, b.length);
    b[ContentPattern.PERIOD + 3] ^= 1;
    b[ContentPattern.PERIOD + 9] ^= 1;
    assertEquals(ContentPattern.PERIOD + 3, p.mismatch(1, 1000, b, 0, b.length));
    assertEquals(ContentPattern.PERIOD - 3, p.mismatch(1, 1006, b, 6, b.length - 6));
  }

  @Test
  void streamsAndBlocksDiffer() {
    int n = ContentPattern.PERIOD;
    byte[] a = new byte[n];
    byte[] b = new byte[n];
    p.fill(0, 0, a, 0, n);
    p.fill(1, 0, b, 0, n);
    assertFalse(Arrays.equals(a, b), "ranks 0 and 1");
    p.fill(0, n, b, 0, n);
    assertFalse(Arrays.equals(a, b), "blocks 0 and 1 of one rank");
  }
}
