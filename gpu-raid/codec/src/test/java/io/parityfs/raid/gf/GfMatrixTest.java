package io.parityfs.raid.gf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class GfMatrixTest {

  @Test
  void cauchyMatchesIsalDefinition() {
    GfMatrix c = GfMatrix.cauchy(10, 4);
    assertEquals(4, c.rows());
    assertEquals(10, c.cols());
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 10; j++) {
        assertEquals(Gf256.inv((10 + i) ^ j), c.get(i, j));
      }
    }
  }

  @Test
  void inverseTimesMatrixIsIdentity() {
    Random rnd = new Random(7);
    int checked = 0;
    for (int n = 1; n <= 24; n++) {
      int[][] v = new int[n][n];
      for (int[] row : v) {
        for (int j = 0; j < n; j++) {
          row[j] = rnd.nextInt(256);
        }
      }
      GfMatrix m = GfMatrix.of(v);
      try {
        GfMatrix inv = m.inverse();
        assertEquals(GfMatrix.identity(n), m.times(inv));
        assertEquals(GfMatrix.identity(n), inv.times(m));
        checked++;
      } catch (ArithmeticException singular) {
        // a random matrix may be singular; the next size tries again
      }
    }
    assertTrue(checked > 15, "too few invertible random matrices: " + checked);
  }

  @Test
  void everySquareCauchySubmatrixOfAnRsCodeIsInvertible() {
    // MDS property on the generator [I; C] for 6+3: every choice of 6 rows inverts.
    int k = 6;
    int m = 3;
    GfMatrix gen = GfMatrix.identity(k).stack(GfMatrix.cauchy(k, m));
    int count = 0;
    for (int mask = 0; mask < 1 << (k + m); mask++) {
      if (Integer.bitCount(mask) != k) {
        continue;
      }
      int[] rows = new int[k];
      for (int i = 0, r = 0; i < k + m; i++) {
        if ((mask & (1 << i)) != 0) {
          rows[r++] = i;
        }
      }
      GfMatrix sub = gen.selectRows(rows);
      assertEquals(GfMatrix.identity(k), sub.times(sub.inverse()));
      count++;
    }
    assertEquals(84, count);
  }

  @Test
  void singularAndMisshapenMatricesAreRejected() {
    assertThrows(ArithmeticException.class, () -> GfMatrix.of(new int[][] {{1, 2}, {1, 2}}).inverse());
    assertThrows(IllegalArgumentException.class, () -> GfMatrix.of(new int[][] {{1, 2}}).inverse());
    assertThrows(IllegalArgumentException.class, () -> GfMatrix.of(new int[][] {{1, 2}, {3}}));
    assertThrows(IllegalArgumentException.class, () -> GfMatrix.cauchy(200, 57));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GfMatrix.identity(2).times(GfMatrix.identity(3)));
    assertTrue(e.getMessage().contains("2x2 by 3x3"), e.getMessage());
  }
}
