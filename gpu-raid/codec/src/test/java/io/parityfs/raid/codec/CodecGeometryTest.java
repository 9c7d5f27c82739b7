package io.parityfs.raid.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CodecGeometryTest {

  @Test
  void parsesWhatItPrints() {
    for (CodecGeometry g : new CodecGeometry[] {
        CodecGeometry.raid5(4), CodecGeometry.raid6(14), CodecGeometry.reedSolomon(10, 4)}) {
      assertEquals(g, CodecGeometry.parse(g.toString()));
    }
    assertEquals(CodecGeometry.reedSolomon(8, 3), CodecGeometry.parse(" RS:8 + 3 "));
  }

  @Test
  void boundsAreEnforcedWithTheBadValueNamed() {
    assertMessage("k (0) must be >= 1", () -> CodecGeometry.reedSolomon(0, 2));
    assertMessage("m (0) must be >= 1", () -> CodecGeometry.reedSolomon(4, 0));
    assertMessage("k + m (60 + 5) must be <= 64", () -> CodecGeometry.reedSolomon(60, 5));
    assertMessage("not m = 2", () -> new CodecGeometry(Scheme.XOR, 4, 2));
    assertMessage("not m = 3", () -> new CodecGeometry(Scheme.PQ, 4, 3));
    assertMessage("'raid7:4+3' names unknown scheme", () -> CodecGeometry.parse("raid7:4+3"));
    assertMessage("not of the form", () -> CodecGeometry.parse("rs-10-4"));
    assertMessage("non-numeric", () -> CodecGeometry.parse("rs:x+4"));
    assertMessage("must not be null", () -> new CodecGeometry(null, 4, 2));
    // The largest geometries are accepted.
    assertEquals(64, CodecGeometry.reedSolomon(32, 32).shards());
    assertEquals(64, CodecGeometry.raid6(62).shards());
  }

  @Test
  void raid6GeneratorIsPAndQ() {
    var p = CodecGeometry.raid6(4).parityMatrix();
    for (int j = 0; j < 4; j++) {
      assertEquals(1, p.get(0, j));
      assertEquals(1 << j, p.get(1, j));
    }
  }

  private static void assertMessage(String fragment, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }
}
