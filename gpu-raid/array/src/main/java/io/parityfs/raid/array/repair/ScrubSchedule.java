package io.parityfs.raid.array.repair;

import java.io.Closeable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a {@link Scrubber} every interval on one daemon thread and keeps the last report (the
 * scrubber logs each report in one line, INFO when clean, WARNING otherwise). The interval is measured from the
 * end of one scrub to the start of the next, so scrubs never overlap; a scheduled scrub that finds
 * one already running (an on-demand {@link Scrubber#run}) is skipped, with a log line.
 *
 * <p>Lifecycle: {@code STARTED} from {@link #start} to {@link #close}, then {@code CLOSED}: no
 * further scrub starts, the one running is cancelled at its next batch of stripes and waited for.
 * Closing does not close the store. Thread-safe.
 */
public final class ScrubSchedule implements Closeable {
  private static final System.Logger LOG = System.getLogger(ScrubSchedule.class.getName());

  private final Scrubber scrubber;
  private final AtomicReference<ScrubReport> last = new AtomicReference<>();
  private final PassTimer timer = new PassTimer("scrub");

  private ScrubSchedule(Scrubber scrubber) {
    this.scrubber = scrubber;
  }

  /** Scrubs with {@code scrubber} every {@code interval}, the first time one interval from now. */
  public static ScrubSchedule start(Scrubber scrubber, Duration interval) {
    return start(scrubber, interval, interval);
  }

  /**
   * Scrubs with {@code scrubber} first after {@code initialDelay}, then {@code interval} after
   * the end of each scrub.
   *
   * @throws IllegalArgumentException when the interval is not positive or the delay is negative
   */
  public static ScrubSchedule start(Scrubber scrubber, Duration initialDelay, Duration interval) {
    Objects.requireNonNull(scrubber, "scrubber");
    if (interval.isNegative() || interval.isZero() || initialDelay.isNegative()) {
      throw new IllegalArgumentException("scrub interval (" + interval + ") must be positive and"
          + " the initial delay (" + initialDelay + ") not negative");
    }
    ScrubSchedule s = new ScrubSchedule(scrubber);
    s.timer.start(initialDelay, interval, s::runOnce);
    return s;
  }

  /** The report of the last scheduled scrub that ran, if any. */
  public Optional<ScrubReport> lastReport() {
    return Optional.ofNullable(last.get());
  }

  /** Scheduled scrubs that ran (finished or cancelled) so far. */
  public long runs() {
    return timer.runs();
  }

  /** The scrubber this schedule drives, e.g. for {@link Scrubber#progress}. */
  public Scrubber scrubber() {
    return scrubber;
  }

  /** Stops the schedule: no scrub starts any more; a running one is cancelled and waited for. */
  @Override
  public void close() {
    timer.close();
  }

  /** One scheduled scrub; false when skipped (a scrub already running). */
  private boolean runOnce() {
    Optional<ScrubReport> report = scrubber.tryRun(() -> !timer.isOpen());
    if (report.isEmpty()) {
      LOG.log(System.Logger.Level.INFO, "scheduled scrub skipped: a scrub is already running");
      return false;
    }
    last.set(report.get());
    return true;
  }
}
