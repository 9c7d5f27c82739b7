package io.parityfs.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for something a test expects to happen on another thread or process: polls a
 * condition (every 10 ms at first, backing off to 100 ms) until it holds, or fails with what
 * it was waiting for once the {@link Timing}-scaled wait is over. It never stands for "nothing
 * happened": a negative check needs an observable event or an injected clock instead.
 *
 * <pre>{@code
 * Eventually.until("the rebuild finished", () -> array.status().rebuilding().isEmpty());
 * Eventually.passes("the cache saw the rename", Duration.ofSeconds(5),
 *     () -> assertEquals(2, cache.size()));
 * }</pre>
 */
public final class Eventually {
  /** A check that throws (an {@link AssertionError} or any exception) until it passes. */
  @FunctionalInterface
  public interface Check {
    void run() throws Exception;
  }

  private Eventually() {}

  /** Waits up to {@link Timing#DEFAULT_WAIT} (scaled) for {@code condition}. */
  public static void until(String what, BooleanSupplier condition) {
    until(what, Timing.DEFAULT_WAIT, condition);
  }

  /** Waits up to {@code timeout} (scaled) for {@code condition}. */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    passes(what, timeout, () -> {
      if (!condition.getAsBoolean()) {
        throw new AssertionError("not yet");
      }
    });
  }

  /**
   * Runs {@code check} until it returns normally, up to {@code timeout} (scaled); then fails
   * with {@code what} and the check's last failure as the cause.
   */
  public static void passes(String what, Duration timeout, Check check) {
    Duration wait = Timing.scaled(timeout);
    long end = System.nanoTime() + wait.toNanos();
    long pause = 10;
    while (true) {
      Throwable last;
      try {
        check.run();
        return;
      } catch (AssertionError | Exception e) {
        last = e;
      }
      if (System.nanoTime() - end > 0) {
        AssertionError timedOut = new AssertionError("timed out after " + seconds(wait)
            + " waiting for: " + what + ("not yet".equals(last.getMessage()) ? ""
                : " (last: " + last + ")"));
        timedOut.initCause(last);
        throw timedOut;
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what, e);
      }
      pause = Math.min(100, pause * 2);
    }
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
