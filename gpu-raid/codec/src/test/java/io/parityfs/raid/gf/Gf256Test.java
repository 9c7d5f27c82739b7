package io.parityfs.raid.gf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class Gf256Test {

  /** Carry-less multiply reduced by 0x11d, the textbook definition. */
  private static int reference(int a, int b) {
    int p = 0;
    for (int i = 0; i < 8; i++) {
      if ((b & (1 << i)) != 0) {
        p ^= a << i;
      }
    }
    for (int bit = 15; bit >= 8; bit--) {
      if ((p & (1 << bit)) != 0) {
        p ^= Gf256.POLYNOMIAL << (bit - 8);
      }
    }
    return p;
  }

  @Test
  void multiplicationMatchesTheCarryLessDefinitionForEveryPair() {
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        assertEquals(reference(a, b), Gf256.mul(a, b), a + " * " + b);
      }
    }
  }

  @Test
  void everyNonZeroElementHasAnInverse() {
    for (int a = 1; a < 256; a++) {
      assertEquals(1, Gf256.mul(a, Gf256.inv(a)), "a = " + a);
      assertEquals(a, Gf256.div(Gf256.mul(a, 77), 77));
    }
    assertThrows(ArithmeticException.class, () -> Gf256.inv(0));
  }

  @Test
  void generatorPowersMatchLinuxRaid6() {
    // md's raid6 tables: 2^8 = 0x1d, 2^255 = 1.
    assertEquals(1, Gf256.exp(0));
    assertEquals(0x80, Gf256.exp(7));
    assertEquals(0x1d, Gf256.exp(8));
    assertEquals(1, Gf256.exp(255));
    assertThrows(IllegalArgumentException.class, () -> Gf256.exp(-1));
  }

  @Test
  void nibbleTablesComposeToTheProduct() {
    byte[] lo = new byte[16];
    byte[] hi = new byte[16];
    for (int c = 0; c < 256; c++) {
      Gf256.nibbleTables(c, lo, hi, 0);
      for (int x = 0; x < 256; x++) {
        assertEquals(Gf256.mul(c, x), (lo[x & 15] ^ hi[x >>> 4]) & 0xff);
      }
    }
  }
}
