package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/**
 * The test content itself (no cluster): two writers of one path write different bytes at the
 * same offset, so a byte of the earlier one read where the later one's belongs is caught.
 */
class TestContentTest {
  @Test
  void twoWritersOfOnePathWriteDifferentBytesAndAResurrectedExtentIsCaught() {
    String first = ExpectedBytes.key("/f", "w1");
    String second = ExpectedBytes.key("/f", "w2");
    byte[] a = ExpectedBytes.of(first, 4096, 64);
    byte[] b = ExpectedBytes.of(second, 4096, 64);
    for (int i = 0; i < 64; i += 8) {
      assertNotEquals(java.nio.ByteBuffer.wrap(a, i, 8), java.nio.ByteBuffer.wrap(b, i, 8),
          "the word at " + (4096 + i) + " is the same for both writers");
    }
    // the file: w1 up to 1000, w2 from 1000 on; a read of 0..3000
    TestFiles.Content c = TestFiles.Content.of(first).then(1000, second);
    byte[] good = new byte[3000];
    ExpectedBytes.fill(first, 0, good, 0, 1000);
    ExpectedBytes.fill(second, 1000, good, 1000, 2000);
    assertEquals(-1, c.firstMismatch(0, good, 0, good.length));
    assertEquals(-1, c.firstMismatch(500, good, 500, 2500));
    // w1's stale bytes past its end (a chunk the recovery should have cut) are wrong
    byte[] stale = good.clone();
    ExpectedBytes.fill(first, 2000, stale, 2000, 100);
    assertEquals(2000, c.firstMismatch(0, stale, 0, stale.length));
    assertEquals(second, c.keyAt(2000));
    assertEquals(first, c.keyAt(999));
    // then() cuts later extents at its offset
    TestFiles.Content cut = c.then(500, second);
    assertEquals(second, cut.keyAt(700));
  }
}
