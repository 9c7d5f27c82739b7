package io.parityfs.testkit;

import java.time.Duration;

/**
 * How long tests wait, scaled for the machine: {@code -Dparityfs.timing.multiple=3} (or {@code
 * PARITYFS_TIMING_MULTIPLE}) triples every wait that goes through here, for a slow or loaded
 * machine, as Curator's {@code Timing} does with {@code timing-multiple}. A wait is only ever an
 * upper bound for something that is expected to happen: scaling it up never changes a result,
 * only how long a failing test takes to say so.
 */
public final class Timing {
  public static final String PROPERTY = "parityfs.timing.multiple";
  public static final String ENV = "PARITYFS_TIMING_MULTIPLE";
  /** The default wait of {@link Eventually}: 20 s, scaled. */
  public static final Duration DEFAULT_WAIT = Duration.ofSeconds(20);

  private Timing() {}

  /** The multiple, at least 1. */
  public static double multiple() {
    String v = System.getProperty(PROPERTY);
    if (v == null) {
      v = System.getenv(ENV);
    }
    if (v == null || v.isBlank()) {
      return 1;
    }
    try {
      return Math.max(1, Double.parseDouble(v.trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(PROPERTY + " (" + v + ") must be a number >= 1", e);
    }
  }

  /** {@code d} times the multiple. */
  public static Duration scaled(Duration d) {
    return Duration.ofNanos((long) Math.min(Long.MAX_VALUE, d.toNanos() * multiple()));
  }
}
