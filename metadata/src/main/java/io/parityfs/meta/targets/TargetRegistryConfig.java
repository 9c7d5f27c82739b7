package io.parityfs.meta.targets;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link TargetRegistry}; immutable, made with {@link #builder()}.
 *
 * <ul>
 *   <li>{@code offlineTimeout} (30 s, positive): how long a target whose node's online record
 *       is gone stays {@link Reachability#PROBABLY_OFFLINE} before it is {@link
 *       Reachability#OFFLINE}. The node's own session timeout (30 s by default) has already
 *       passed when its record disappears after a crash, so the default gives a restarting node
 *       about a minute in all.
 *   <li>{@code clock} (the system clock): what "now" is for that timeout and for offline marks;
 *       tests pass a clock they move.
 * </ul>
 */
public final class TargetRegistryConfig {
  public static final TargetRegistryConfig DEFAULT = builder().build();

  private final Duration offlineTimeout;
  private final Clock clock;

  private TargetRegistryConfig(Builder b) {
    this.offlineTimeout = b.offlineTimeout;
    this.clock = b.clock;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder().offlineTimeout(offlineTimeout).clock(clock);
  }

  public Duration offlineTimeout() {
    return offlineTimeout;
  }

  public Clock clock() {
    return clock;
  }

  @Override
  public String toString() {
    return "TargetRegistryConfig[offlineTimeout=" + offlineTimeout + ", clock=" + clock + "]";
  }

  /** Builds a {@link TargetRegistryConfig}; each setter checks its value at once. */
  public static final class Builder {
    private Duration offlineTimeout = Duration.ofSeconds(30);
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** @throws IllegalArgumentException unless positive */
    public Builder offlineTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "offlineTimeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("offlineTimeout (" + timeout + ") must be positive");
      }
      this.offlineTimeout = timeout;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public TargetRegistryConfig build() {
      return new TargetRegistryConfig(this);
    }
  }
}
