package io.parityfs.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Polls until the condition holds; fails naming what it waited for, with the last failure. */
class EventuallyTest {
  @Test
  void returnsOnceTheConditionHolds() {
    AtomicInteger polls = new AtomicInteger();
    Eventually.until("the third poll", () -> polls.incrementAndGet() == 3);
    assertEquals(3, polls.get());
  }

  @Test
  void failsNamingWhatItWaitedForWithTheLastFailure() {
    IllegalStateException cause = new IllegalStateException("still 2 of 3");
    AssertionError e = assertThrows(AssertionError.class,
        () -> Eventually.passes("three targets", Duration.ofMillis(50), () -> {
          throw cause;
        }));
    assertTrue(e.getMessage().contains("waiting for: three targets"), e.getMessage());
    assertTrue(e.getMessage().contains("still 2 of 3"), e.getMessage());
    assertSame(cause, e.getCause());
    AssertionError never = assertThrows(AssertionError.class,
        () -> Eventually.until("never", Duration.ofMillis(30), () -> false));
    assertTrue(never.getMessage().endsWith("waiting for: never"), never.getMessage());
  }

  @Test
  void theMultipleScalesWaitsAndRefusesNonsense() {
    String before = System.getProperty(Timing.PROPERTY);
    try {
      System.setProperty(Timing.PROPERTY, "2.5");
      assertEquals(Duration.ofSeconds(50), Timing.scaled(Duration.ofSeconds(20)));
      System.setProperty(Timing.PROPERTY, "0.1");
      assertEquals(Duration.ofSeconds(20), Timing.scaled(Duration.ofSeconds(20)), "never below 1");
      System.setProperty(Timing.PROPERTY, "slow");
      assertThrows(IllegalArgumentException.class, Timing::multiple);
    } finally {
      if (before == null) {
        System.clearProperty(Timing.PROPERTY);
      } else {
        System.setProperty(Timing.PROPERTY, before);
      }
    }
  }
}
