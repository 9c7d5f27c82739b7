package io.parityfs.raid.array.repair;

import java.io.Closeable;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * One daemon thread that runs a background pass of the array (a scrub, a garbage collection) at
 * a fixed delay until closed: what {@link ScrubSchedule} and {@link GarbageSchedule} share. The
 * delay runs from the end of one pass to the start of the next, so passes never overlap; a pass
 * that throws is logged and the schedule goes on (a thrown task is never run again by the
 * executor). Closing lets no pass start any more and waits for the running one, without
 * interrupting it (an interrupt would close the drives' channels). Thread-safe.
 */
final class PassTimer implements Closeable {
  private static final System.Logger LOG = System.getLogger(PassTimer.class.getName());
  /** How long {@link #close} waits for a running pass. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final String what;
  private final ScheduledExecutorService executor;
  private final AtomicBoolean open = new AtomicBoolean(true);
  private final AtomicLong runs = new AtomicLong();

  /** A timer for passes named {@code what} (log lines; its thread is {@code <what>-schedule}, spaces as dashes). */
  PassTimer(String what) {
    this.what = what;
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, what.replace(' ', '-') + "-schedule");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Runs {@code pass} first after {@code initialDelay}, then {@code interval} after the end of
   * each, until {@link #close}; {@code pass} returns whether it ran (counted in {@link #runs})
   * or was skipped. Called once, after whatever {@code pass} reads is set up.
   */
  void start(Duration initialDelay, Duration interval, BooleanSupplier pass) {
    executor.scheduleWithFixedDelay(() -> {
      if (!open.get()) {
        return;
      }
      try {
        if (pass.getAsBoolean()) {
          runs.incrementAndGet();
        }
      } catch (RuntimeException e) { // keep the schedule alive
        LOG.log(System.Logger.Level.ERROR, "scheduled " + what + " failed", e);
      }
    }, initialDelay.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
    LOG.log(System.Logger.Level.INFO, "{0} scheduled every {1}", what, interval);
  }

  /** False once {@link #close} was called: a running pass should stop at its next step. */
  boolean isOpen() {
    return open.get();
  }

  /** Passes run so far (skipped ones not counted). */
  long runs() {
    return runs.get();
  }

  @Override
  public void close() {
    if (!open.compareAndSet(true, false)) {
      return;
    }
    executor.shutdown(); // never shutdownNow: an interrupt would close the drives' channels
    try {
      if (!executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.log(System.Logger.Level.WARNING, "{0} schedule closed; the running pass has not"
            + " ended after {1}", what, CLOSE_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
