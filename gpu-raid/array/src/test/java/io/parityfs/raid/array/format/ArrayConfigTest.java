package io.parityfs.raid.array.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import org.junit.jupiter.api.Test;

public class ArrayConfigTest {

  @Test
  void defaultsAndBuilderRoundTrip() {
    ArrayConfig d = ArrayConfig.DEFAULT;
    assertEquals("raid6:4+2", d.protection().toString());
    assertEquals(64 << 10, d.cellSize());
    assertEquals(64L << 20, d.maxObjectSize());
    assertEquals(0, d.hotSpares());
    assertEquals(d, ArrayConfig.builder().build());
    ArrayConfig c = d.toBuilder().mirror(3).cellSize(4096).hotSpares(2).build();
    assertEquals(Protection.mirror(3), c.protection());
    assertEquals(5, c.minDrives());
    assertEquals(c, c.toBuilder().build());
  }

  @Test
  void protectionParsesWhatItPrints() {
    for (String s : new String[] {"raid5:4+1", "raid6:8+2", "rs:10+4", "mirror:2", "mirror:4"}) {
      assertEquals(s, Protection.parse(s).toString());
    }
    assertEquals(14, Protection.parse("rs:10+4").width());
    assertEquals(4, Protection.parse("rs:10+4").tolerates());
    assertEquals(2, Protection.parse("mirror:3").tolerates());
    assertEquals(Protection.parity(CodecGeometry.raid5(3)), Protection.parse(" RAID5:3+1 "));
  }

  @Test
  void badValuesAreNamed() {
    assertMessage("cellSize (1000) must be a power of two from 4096",
        () -> ArrayConfig.builder().cellSize(1000).build());
    assertMessage("cellSize (12288)", () -> ArrayConfig.builder().cellSize(12288).build());
    assertMessage("cellSize (2048)", () -> ArrayConfig.builder().cellSize(2048).build());
    assertMessage("cellSize (33554432)", () -> ArrayConfig.builder().cellSize(32 << 20).build());
    ArrayConfig.builder().cellSize(16 << 20).maxObjectSize(16 << 20).build(); // the largest cell
    assertMessage("maxObjectSize (4096) must be >= cellSize (65536)",
        () -> ArrayConfig.builder().maxObjectSize(4096).build());
    assertMessage("hotSpares (-1) must be in 0..58",
        () -> ArrayConfig.builder().hotSpares(-1).build());
    assertMessage("hotSpares (59) must be in 0..58 for raid6:4+2",
        () -> ArrayConfig.builder().hotSpares(59).build());
    assertMessage("mirror copies (5) must be in 2..4", () -> ArrayConfig.builder().mirror(5));
    assertMessage("mirror copies (1)", () -> Protection.parse("mirror:1"));
    assertMessage("non-numeric copy count", () -> Protection.parse("mirror:x"));
    assertMessage("names unknown scheme", () -> Protection.parse("raid7:4+3"));
    assertMessage("protection must not be null",
        () -> ArrayConfig.builder().protection(null).build());
  }

  @Test
  void driveCountMustFitTheProtection() {
    ArrayConfig c = ArrayConfig.builder().geometry(CodecGeometry.reedSolomon(10, 4))
        .hotSpares(1).build();
    c.checkDriveCount(15);
    c.checkDriveCount(64);
    assertMessage("rs:10+4 with 1 hot spare(s) needs at least 15 drives, not 14",
        () -> c.checkDriveCount(14));
    assertMessage("an array has at most 64 drives, not 65", () -> c.checkDriveCount(65));
    ArrayConfig.builder().mirror(2).build().checkDriveCount(2);
  }

  public static void assertMessage(String fragment, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }
}
