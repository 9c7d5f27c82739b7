package io.parityfs.raid.array.repair;

import io.parityfs.raid.array.object.ObjectStore;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
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

  private final AtomicReference<ObjectStore.GarbagePass> last = new AtomicReference<>();
  private final PassTimer timer = new PassTimer("garbage collection");

  private GarbageSchedule() {}

  private boolean runOnce(ObjectStore store) {
    try {
      last.set(store.collectGarbageOnline());
      return true;
    } catch (IOException e) {
      LOG.log(System.Logger.Level.ERROR, "garbage collection pass failed: {0}", e.toString());
      return false;
    }
  }

  /**
   * Collects {@code store}'s garbage every {@code interval}, the first time one interval from
   * now.
   *
   * @throws IllegalArgumentException when the interval is not positive
   */
  public static GarbageSchedule start(ObjectStore store, Duration interval) {
    Objects.requireNonNull(store, "store");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "garbage collection interval (" + interval + ") must be positive");
    }
    GarbageSchedule s = new GarbageSchedule();
    s.timer.start(interval, interval, () -> s.runOnce(store));
    return s;
  }

  /** What the last pass did, if one ran. */
  public Optional<ObjectStore.GarbagePass> lastPass() {
    return Optional.ofNullable(last.get());
  }

  /** Passes run so far. */
  public long runs() {
    return timer.runs();
  }

  /** Stops the schedule: no pass starts any more; a running one is waited for. */
  @Override
  public void close() {
    timer.close();
  }
}
