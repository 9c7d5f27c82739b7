package io.parityfs.raid.array;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs {@link ObjectStore#collectGarbageOnline} every interval on one daemon thread, so a node
 * that stays up for months does not leak the space of failed writes and deletes (audit, Low: "GC
 * runs only at start"). The interval is measured from the end of one pass to the start of the
 * next, so passes never overlap; each pass that deleted something, or left busy objects for the
 * next, logs one line.
 *
 * <p>Lifecycle: {@code STARTED} from {@link #start} to {@link #close}, then {@code CLOSED}: no
 * further pass starts and the one running is waited for. Closing does not close the store.
 * Thread-safe.
 */
public final class GarbageSchedule implements Closeable {
  private static final System.Logger LOG = System.getLogger(GarbageSchedule.class.getName());
  /** How long {@link #close} waits for a running pass. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private enum State {
    STARTED,
    CLOSED
  }

  private final ObjectStore store;
  private final ScheduledExecutorService executor;
  private final AtomicReference<State> state = new AtomicReference<>(State.STARTED);
  private final AtomicReference<ObjectStore.GarbagePass> last = new AtomicReference<>();
  private final AtomicLong runs = new AtomicLong();

  private GarbageSchedule(ObjectStore store) {
    this.store = store;
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gc-schedule");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Collects {@code store}'s garbage every {@code interval}, the first time one interval from
   * now.
   *
   * @throws IllegalArgumentException when the interval is not positive
   */
  public static GarbageSchedule start(ObjectStore store, Duration interval) {
    java.util.Objects.requireNonNull(store, "store");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "garbage collection interval (" + interval + ") must be positive");
    }
    GarbageSchedule s = new GarbageSchedule(store);
    s.executor.scheduleWithFixedDelay(s::runOnce, interval.toNanos(), interval.toNanos(),
        TimeUnit.NANOSECONDS);
    LOG.log(System.Logger.Level.INFO, "garbage collection scheduled every {0}", interval);
    return s;
  }

  /** What the last pass did, if one ran. */
  public Optional<ObjectStore.GarbagePass> lastPass() {
    return Optional.ofNullable(last.get());
  }

  /** Passes run so far. */
  public long runs() {
    return runs.get();
  }

  /** Stops the schedule: no pass starts any more; a running one is waited for. */
  @Override
  public void close() {
    if (!state.compareAndSet(State.STARTED, State.CLOSED)) {
      return;
    }
    executor.shutdown(); // never shutdownNow: an interrupt would close the drives' channels
    try {
      if (!executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.log(System.Logger.Level.WARNING, "garbage collection schedule closed; the running"
            + " pass has not ended after {0}", CLOSE_WAIT);
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
      last.set(store.collectGarbageOnline());
      runs.incrementAndGet();
    } catch (IOException | RuntimeException e) { // keep the schedule alive
      LOG.log(System.Logger.Level.ERROR, "garbage collection pass failed: {0}", e.toString());
    }
  }
}
