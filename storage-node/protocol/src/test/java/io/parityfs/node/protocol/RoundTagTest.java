package io.parityfs.node.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RoundTagTest {
  @Test
  void sequenceIsRoundShiftedByFiveOrCount() {
    RoundTag t = new RoundTag(7, 3, 2);
    assertEquals(98, t.sequence());
    assertEquals(t, RoundTag.of(7, 98));
    assertEquals(new RoundTag(1, (1L << 40) - 1, 16),
        RoundTag.of(1, new RoundTag(1, (1L << 40) - 1, 16).sequence()));
    assertEquals(RoundTag.MAX_ROUND, RoundTag.of(0, Long.MAX_VALUE).round());
    assertEquals(31, RoundTag.of(0, Long.MAX_VALUE).count());
  }

  @Test
  void countZeroIsACopy() {
    assertTrue(RoundTag.copy(2, 5).isCopy());
    assertEquals(5 << 5, RoundTag.copy(2, 5).sequence());
    assertFalse(new RoundTag(2, 5, 1).isCopy());
  }

  @Test
  void newerByGenerationThenRoundNeverCount() {
    RoundTag t = new RoundTag(2, 5, 1);
    assertTrue(new RoundTag(3, 0, 1).newerThan(t), "a later generation");
    assertFalse(new RoundTag(1, 99, 1).newerThan(t), "an earlier generation");
    assertTrue(new RoundTag(2, 6, 0).newerThan(t), "a later round");
    assertFalse(new RoundTag(2, 5, 4).newerThan(t), "the count is not part of the order");
    assertFalse(t.newerThan(new RoundTag(2, 5, 4)));
    assertTrue(t.newerThan(null));
  }

  @Test
  void refusesValuesOutsideTheWireForm() {
    assertThrows(IllegalArgumentException.class, () -> new RoundTag(-1, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new RoundTag(0, -1, 0));
    assertThrows(IllegalArgumentException.class, () -> new RoundTag(0, RoundTag.MAX_ROUND + 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new RoundTag(0, 0, 32));
    assertThrows(IllegalArgumentException.class, () -> RoundTag.of(0, -1));
  }

  @Test
  void chunkStatTagIsNullWhenUntagged() {
    assertNull(new ChunkStat(10, 1, 0, 0).tag());
    assertEquals(new RoundTag(4, 3, 2), new ChunkStat(10, 1, 0, 0, 4, 98).tag());
  }

  @Test
  void printsGenerationRoundAndCount() {
    assertEquals("(4, 3/2)", new RoundTag(4, 3, 2).toString());
  }
}
