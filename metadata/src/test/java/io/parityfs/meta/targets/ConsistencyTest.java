package io.parityfs.meta.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A target's consistency from its array state and the objects its scrubs found lost. */
class ConsistencyTest {
  @Test
  void lostObjectsMakeATargetDamagedUnlessItFailed() {
    assertEquals(Consistency.GOOD, Consistency.of("OPTIMAL", 0));
    assertEquals(Consistency.DAMAGED, Consistency.of("OPTIMAL", 1));
    assertEquals(Consistency.DAMAGED, Consistency.of("DEGRADED", 3));
    assertEquals(Consistency.DAMAGED, Consistency.of("REBUILDING", 3));
    assertEquals(Consistency.FAILED, Consistency.of("FAILED", 3));
    assertEquals(Consistency.REBUILDING, Consistency.of("rebuilding", 0));
    assertEquals(Consistency.FAILED, Consistency.of(null, 0));
    assertEquals(Consistency.FAILED, Consistency.of("SOMETHING_NEW", 0));
  }
}
