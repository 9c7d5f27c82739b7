package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The suspect list on a clock of its own: a failed target is suspect for the window only. */
class SuspectsTest {
  @Test
  void aFailedTargetIsSuspectForTheWindowThenTriedAgain() {
    AtomicLong now = new AtomicLong(1_000);
    Suspects s = new Suspects(10_000, now::get);
    assertFalse(s.suspect("t1"));
    s.failed("t1");
    assertTrue(s.suspect("t1"));
    assertFalse(s.suspect("t2"), "only the failed target");
    now.addAndGet(9_999);
    assertTrue(s.suspect("t1"), "still within the window");
    now.addAndGet(1);
    assertFalse(s.suspect("t1"), "the window has passed");
    s.failed("t1");
    now.addAndGet(5_000);
    s.failed("t1"); // failed again: the window starts again
    now.addAndGet(9_000);
    assertTrue(s.suspect("t1"));
  }

  /**
   * A node that answers is no longer suspect: a group check run right after a node came back
   * reported its members unreachable (the model test's 50-seed run, seed 4002).
   */
  @Test
  void anAnswerEndsTheSuspicion() {
    Suspects s = new Suspects(10_000, () -> 1_000);
    s.failed("t");
    assertTrue(s.suspect("t"));
    s.answered("t");
    assertFalse(s.suspect("t"));
    s.answered("never-failed"); // nothing to end
    assertFalse(s.suspect("never-failed"));
  }

  @Test
  void aZeroWindowSuspectsNothingAndANegativeOneIsRefused() {
    Suspects s = new Suspects(0, () -> 5);
    s.failed("t");
    assertFalse(s.suspect("t"));
    assertEquals("window (-1 ns) must be >= 0",
        assertThrows(IllegalArgumentException.class, () -> new Suspects(-1, () -> 0))
            .getMessage());
  }
}
