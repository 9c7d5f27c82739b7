package io.parityfs.raid.array;

import java.io.Closeable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a {@link Scrubber} every interval on one daemon thread, keeps the last report and logs
 * each report in one line (INFO when clean, WARNING otherwise). The interval is measured from the
 * end of one scrub to the start of the next, so scrubs never overlap; a scheduled scrub that finds
 * one already running (an on-demand {@link Scrubber#run}) is skipped, with a log line.
 *
 * <p>Lifecycle: {@code STARTED} from {@link #start} to {@link #close}, then {@code CLOSED}: no
 * further scrub starts, the one running is cancelled at its next batch of stripes and waited for.
 * Closing does not close the store. Thread-safe.
 */
public final class ScrubSchedule implements Closeable {
  private static final System.Logger LOG = System.getLogger(ScrubSchedule.class.getName());
  /** How long {@link #close} waits for a running scrub to notice it is cancelled. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private enum State {
    STARTED,
    CLOSED
  }

  private final Scrubber scrubber;
  private final ScheduledExecutorService executor;
  private final AtomicReference<State> state = new AtomicReference<>(State.STARTED);
  private final AtomicReference<ScrubReport> last = new AtomicReference<>();
  private final AtomicLong runs = new AtomicLong();

  private ScrubSchedule(Scrubber scrubber) {
    this.scrubber = scrubber;
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "scrub-schedule");
      t.setDaemon(true);
      return t;
    });
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
    java.util.Objects.requireNonNull(scrubber, "scrubber");
    if (interval.isNegative() || interval.isZero() || initialDelay.isNegative()) {
      throw new IllegalArgumentException("scrub interval (" + interval + ") must be positive and"
          + " the initial delay (" + initialDelay + ") not negative");
    }
    ScrubSchedule s = new ScrubSchedule(scrubber);
    s.executor.scheduleWithFixedDelay(s::runOnce, initialDelay.toNanos(), interval.toNanos(),
        TimeUnit.NANOSECONDS);
    LOG.log(System.Logger.Level.INFO, "scrub scheduled every {0}", interval);
    return s;
  }

  /** The report of the last scheduled scrub that ran, if any. */
  public Optional<ScrubReport> lastReport() {
    return Optional.ofNullable(last.get());
  }

  /** Scheduled scrubs that ran (finished or cancelled) so far. */
  public long runs() {
    return runs.get();
  }

  /** The scrubber this schedule drives, e.g. for {@link Scrubber#progress}. */
  public Scrubber scrubber() {
    return scrubber;
  }

  /** Stops the schedule: no scrub starts any more; a running one is cancelled and waited for. */
  @Override
  public void close() {
    if (!state.compareAndSet(State.STARTED, State.CLOSED)) {
      return;
    }
    executor.shutdown(); // never shutdownNow: an interrupt would close the drives' channels
    try {
      if (!executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.log(System.Logger.Level.WARNING, "scrub schedule closed; the running scrub has not"
            + " stopped after {0}", CLOSE_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void runOnce() {
    if (state.get() != State.STARTED) {
      return;
    }
    try {
      Optional<ScrubReport> report = scrubber.tryRun(() -> state.get() != State.STARTED);
      if (report.isEmpty()) {
        LOG.log(System.Logger.Level.INFO, "scheduled scrub skipped: a scrub is already running");
        return;
      }
      ScrubReport r = report.get();
      last.set(r);
      runs.incrementAndGet();
      LOG.log(r.clean() ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "{0}", r);
    } catch (RuntimeException e) { // keep the schedule alive: a thrown task is never rerun
      LOG.log(System.Logger.Level.ERROR, "scheduled scrub failed", e);
    }
  }
}
