package io.parityfs.raid.array.object;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Paces background work (rebuild, scrub) so that foreground I/O keeps most of the drives.
 *
 * <p>Background work calls {@link #acquire(long)} before each piece of I/O with its byte count;
 * the call sleeps as needed to keep the background byte rate at or below a limit. The limit is
 * {@code idleRate} while no foreground request was seen in the last {@code quietNanos}, and
 * {@code busyRate} otherwise: the object store reports each foreground request through {@link
 * #foreground()}. So a rebuild on an idle node runs at drive speed, and one competing with clients
 * takes only what {@code busyRate} allows. A rate of {@link Long#MAX_VALUE} means unlimited.
 *
 * <p>The pacing is a token bucket with a burst of one quarter second at the current rate (at
 * least one request), debt allowed: a request larger than the bucket is let through and the next
 * caller waits for it to be paid off. Thread-safe; several background workers share one throttle.
 */
public final class BackgroundThrottle {
  /** No limit at all: {@link #acquire} never waits. */
  public static final BackgroundThrottle UNLIMITED =
      new BackgroundThrottle(Long.MAX_VALUE, Long.MAX_VALUE, TimeUnit.MILLISECONDS.toNanos(200));

  private final long idleRate;
  private final long busyRate;
  private final long quietNanos;
  private final LongSupplier clock;
  private final AtomicLong lastForeground;
  private long tokens;
  private long refilledAt;

  /**
   * A throttle allowing {@code idleRate} bytes/s of background I/O when the store is quiet and
   * {@code busyRate} bytes/s while foreground requests arrive (a request within the last {@code
   * quietMillis} ms counts as busy).
   *
   * @throws IllegalArgumentException when a rate is not positive or quietMillis is negative
   */
  public static BackgroundThrottle of(long idleRate, long busyRate, long quietMillis) {
    return new BackgroundThrottle(idleRate, busyRate, TimeUnit.MILLISECONDS.toNanos(quietMillis));
  }

  BackgroundThrottle(long idleRate, long busyRate, long quietNanos) {
    this(idleRate, busyRate, quietNanos, System::nanoTime);
  }

  BackgroundThrottle(long idleRate, long busyRate, long quietNanos, LongSupplier clock) {
    if (idleRate <= 0 || busyRate <= 0 || quietNanos < 0) {
      throw new IllegalArgumentException("rates (" + idleRate + ", " + busyRate
          + ") must be positive and the quiet time (" + quietNanos + " ns) not negative");
    }
    this.idleRate = idleRate;
    this.busyRate = busyRate;
    this.quietNanos = quietNanos;
    this.clock = clock;
    long now = clock.getAsLong();
    this.lastForeground = new AtomicLong(now - quietNanos - 1);
    this.refilledAt = now;
  }

  /** Bytes/s allowed while the store is quiet. */
  public long idleRate() {
    return idleRate;
  }

  /** Bytes/s allowed while foreground requests arrive. */
  public long busyRate() {
    return busyRate;
  }

  /** Records that a foreground request (a client read or write) is being served now. */
  public void foreground() {
    lastForeground.lazySet(clock.getAsLong());
  }

  /** Whether a foreground request was seen within the quiet time. */
  public boolean busy() {
    return clock.getAsLong() - lastForeground.get() <= quietNanos;
  }

  /** The rate in force now: {@link #busyRate} while busy, else {@link #idleRate}. */
  public long currentRate() {
    return busy() ? busyRate : idleRate;
  }

  /**
   * Waits until {@code bytes} of background I/O fit the current rate, then takes them.
   *
   * @throws InterruptedException when interrupted while waiting (nothing is taken)
   */
  public void acquire(long bytes) throws InterruptedException {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes (" + bytes + ") must not be negative");
    }
    while (true) {
      long wait = tryTake(bytes);
      if (wait <= 0) {
        return;
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(50)));
    }
  }

  /** Takes the bytes and returns 0, or returns how long to wait first (ns) and takes nothing. */
  synchronized long tryTake(long bytes) {
    long rate = currentRate();
    if (rate == Long.MAX_VALUE) {
      return 0;
    }
    long now = clock.getAsLong();
    long burst = Math.max(rate / 4, 1);
    long elapsed = now - refilledAt;
    refilledAt = now;
    // tokens += rate * elapsed / 1e9, without overflow for long idle gaps
    double added = (double) rate * elapsed / 1e9;
    tokens = (long) Math.min((double) burst, tokens + added);
    if (tokens > 0) {
      tokens -= bytes; // may go into debt: a large request passes, the next caller pays
      return 0;
    }
    return (long) Math.ceil((double) -tokens * 1e9 / rate) + 1;
  }
}
