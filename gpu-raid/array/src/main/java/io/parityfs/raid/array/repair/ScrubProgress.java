package io.parityfs.raid.array.repair;

import java.time.Duration;
import java.util.Optional;

/**
 * How far a scrub has come ({@link Scrubber#progress}). The totals are taken when the scrub lists
 * the objects; {@code bytesTotal} counts every cell of every shard of their latest versions, and
 * {@code bytesDone} the cells covered so far, read or (on a failed drive) passed over, so it can
 * run slightly off when objects are rewritten meanwhile. Immutable.
 *
 * @param running whether a scrub is running now (false: these are the last scrub's final figures,
 *     or all zero if none ran)
 * @param objectsDone objects finished
 * @param objectsTotal objects listed at the start
 * @param bytesDone cell bytes covered
 * @param bytesTotal cell bytes of all objects listed
 * @param elapsed time since the scrub started
 */
public record ScrubProgress(boolean running, long objectsDone, long objectsTotal, long bytesDone,
    long bytesTotal, Duration elapsed) {

  static final ScrubProgress IDLE = new ScrubProgress(false, 0, 0, 0, 0, Duration.ZERO);

  /** Covered bytes per second so far (0 before the first second's worth of data). */
  public double bytesPerSecond() {
    double s = elapsed.toNanos() / 1e9;
    return s <= 0 ? 0 : bytesDone / s;
  }

  /** The estimated time left at the rate so far; empty until there is a rate. */
  public Optional<Duration> eta() {
    double rate = bytesPerSecond();
    if (rate <= 0) {
      return Optional.empty();
    }
    long left = Math.max(0, bytesTotal - bytesDone);
    return Optional.of(Duration.ofMillis((long) (left / rate * 1000)));
  }

  /** Fraction of bytes covered, 0..1 (1 when there is nothing to do). */
  public double fraction() {
    return bytesTotal == 0 ? (objectsTotal == 0 || objectsDone >= objectsTotal ? 1 : 0)
        : Math.min(1, bytesDone / (double) bytesTotal);
  }

  @Override
  public String toString() {
    return String.format("scrub %s: %d/%d objects, %.1f/%.1f MiB (%.0f%%), %.1f MiB/s%s",
        running ? "running" : "idle", objectsDone, objectsTotal, bytesDone / 1048576.0,
        bytesTotal / 1048576.0, fraction() * 100, bytesPerSecond() / 1048576.0,
        eta().map(d -> ", eta " + d.toSeconds() + " s").orElse(""));
  }
}
