package io.parityfs.meta.targets;

import java.util.OptionalLong;

/**
 * Settings of a {@link TargetPlacement}; immutable, made with {@link #builder()}.
 *
 * <ul>
 *   <li>{@code reserveBytes} (1 GiB) and {@code reserveFraction} (0.01): a target is <i>full</i>
 *       for placement when its free bytes are below {@code max(reserveBytes, reserveFraction ×
 *       capacity)}, so every target keeps room for the files already placed on it to grow.
 *   <li>{@code seed} (none): a seed makes the choices repeatable when made from one thread
 *       (tests); without one each thread draws from its {@code ThreadLocalRandom}.
 * </ul>
 */
public final class PlacementConfig {
  public static final PlacementConfig DEFAULT = builder().build();

  private final long reserveBytes;
  private final double reserveFraction;
  private final OptionalLong seed;

  private PlacementConfig(Builder b) {
    this.reserveBytes = b.reserveBytes;
    this.reserveFraction = b.reserveFraction;
    this.seed = b.seed;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder().reserveBytes(reserveBytes).reserveFraction(reserveFraction);
    seed.ifPresent(b::seed);
    return b;
  }

  public long reserveBytes() {
    return reserveBytes;
  }

  public double reserveFraction() {
    return reserveFraction;
  }

  public OptionalLong seed() {
    return seed;
  }

  /** The free bytes a target of {@code capacityBytes} must keep: below them it is full. */
  public long reserveFor(long capacityBytes) {
    return Math.max(reserveBytes, (long) (reserveFraction * Math.max(0, capacityBytes)));
  }

  @Override
  public String toString() {
    return "PlacementConfig[reserveBytes=" + reserveBytes + ", reserveFraction="
        + reserveFraction + ", seed=" + seed + "]";
  }

  /** Builds a {@link PlacementConfig}; each setter checks its value at once. */
  public static final class Builder {
    private long reserveBytes = 1L << 30;
    private double reserveFraction = 0.01;
    private OptionalLong seed = OptionalLong.empty();

    private Builder() {}

    /** @throws IllegalArgumentException when negative */
    public Builder reserveBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("reserveBytes (" + bytes + ") must be >= 0");
      }
      this.reserveBytes = bytes;
      return this;
    }

    /** @throws IllegalArgumentException unless in [0, 1) */
    public Builder reserveFraction(double fraction) {
      if (!(fraction >= 0 && fraction < 1)) {
        throw new IllegalArgumentException("reserveFraction (" + fraction + ") must be in [0, 1)");
      }
      this.reserveFraction = fraction;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = OptionalLong.of(seed);
      return this;
    }

    public PlacementConfig build() {
      return new PlacementConfig(this);
    }
  }
}
