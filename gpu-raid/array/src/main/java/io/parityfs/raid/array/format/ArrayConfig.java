package io.parityfs.raid.array.format;

import io.parityfs.raid.codec.CodecGeometry;

/**
 * What an array is, fixed when it is created and recorded in every drive label: the
 * {@link Protection}, the cell size (the unit a shard is cut into and checksummed by), the largest
 * object it stores, and how many of its drives are hot spares. The drive count itself is the
 * number of drives given at creation.
 *
 * <p>Immutable; build one with {@link #builder()} or change one with {@link #toBuilder()}. Every
 * value is checked when the config is built, and a bad one fails at once with the value in the
 * message ({@link IllegalArgumentException}).
 */
public record ArrayConfig(Protection protection, int cellSize, long maxObjectSize, int hotSpares) {
  /** Smallest cell: one 4 KiB block, the unit drives write atomically and O_DIRECT aligns to. */
  public static final int MIN_CELL_SIZE = 4096;
  /** Largest cell: 16 MiB. */
  public static final int MAX_CELL_SIZE = 16 << 20;
  /** Most drives in one array, spares included: a drive set is one {@code long} bit mask. */
  public static final int MAX_DRIVES = CodecGeometry.MAX_SHARDS;

  /** RAID-6 4+2, 64 KiB cells, 64 MiB objects, no spares. */
  public static final ArrayConfig DEFAULT =
      new ArrayConfig(Protection.parity(CodecGeometry.raid6(4)), 64 << 10, 64L << 20, 0);

  public ArrayConfig {
    if (protection == null) {
      throw new IllegalArgumentException("protection must not be null");
    }
    requireCellSize(cellSize);
    if (maxObjectSize < cellSize) {
      throw new IllegalArgumentException(
          "maxObjectSize (" + maxObjectSize + ") must be >= cellSize (" + cellSize + ")");
    }
    if (hotSpares < 0 || hotSpares > MAX_DRIVES - protection.width()) {
      throw new IllegalArgumentException(
          "hotSpares ("
              + hotSpares
              + ") must be in 0.."
              + (MAX_DRIVES - protection.width())
              + " for "
              + protection);
    }
  }

  /** A builder starting from {@link #DEFAULT}. */
  /**
   * Checks a cell size: a power of two from {@link #MIN_CELL_SIZE} to {@link #MAX_CELL_SIZE}.
   * Shared by the config and by the on-disk formats that record a cell size.
   */
  static void requireCellSize(int cellSize) {
    if (cellSize < MIN_CELL_SIZE || cellSize > MAX_CELL_SIZE || Integer.bitCount(cellSize) != 1) {
      throw new IllegalArgumentException(
          "cellSize (" + cellSize + ") must be a power of two from " + MIN_CELL_SIZE
              + " (4 KiB) to " + MAX_CELL_SIZE + " (16 MiB)");
    }
  }

  public static Builder builder() {
    return new Builder(DEFAULT);
  }

  /** A builder starting from this config. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Fewest drives (data plus spares) an array with this config can be created on. */
  public int minDrives() {
    return protection.width() + hotSpares;
  }

  /**
   * Checks that {@code drives} drives (data plus spares) fit this config.
   *
   * @throws IllegalArgumentException naming the count when they do not
   */
  public void checkDriveCount(int drives) {
    if (drives > MAX_DRIVES) {
      throw new IllegalArgumentException(
          "an array has at most " + MAX_DRIVES + " drives, not " + drives);
    }
    if (drives < minDrives()) {
      throw new IllegalArgumentException(
          protection
              + " with "
              + hotSpares
              + " hot spare(s) needs at least "
              + minDrives()
              + " drives, not "
              + drives);
    }
  }

  @Override
  public String toString() {
    return protection
        + " cell="
        + cellSize
        + " maxObject="
        + maxObjectSize
        + " spares="
        + hotSpares;
  }

  /** Collects the values of an {@link ArrayConfig}; {@link #build()} checks them. Not thread-safe. */
  public static final class Builder {
    private Protection protection;
    private int cellSize;
    private long maxObjectSize;
    private int hotSpares;

    private Builder(ArrayConfig from) {
      this.protection = from.protection;
      this.cellSize = from.cellSize;
      this.maxObjectSize = from.maxObjectSize;
      this.hotSpares = from.hotSpares;
    }

    /** Parity or mirrored protection. */
    public Builder protection(Protection protection) {
      this.protection = protection;
      return this;
    }

    /** Parity protection with {@code geometry}, e.g. {@code CodecGeometry.parse("rs:10+4")}. */
    public Builder geometry(CodecGeometry geometry) {
      return protection(Protection.parity(geometry));
    }

    /** Mirrored protection with {@code copies} (2..4) copies. */
    public Builder mirror(int copies) {
      return protection(Protection.mirror(copies));
    }

    /** Bytes per cell: a power of two from 4 KiB to 16 MiB. Default 64 KiB. */
    public Builder cellSize(int cellSize) {
      this.cellSize = cellSize;
      return this;
    }

    /** Largest object in bytes, at least the cell size. Default 64 MiB. */
    public Builder maxObjectSize(long maxObjectSize) {
      this.maxObjectSize = maxObjectSize;
      return this;
    }

    /** How many of the array's drives are hot spares. Default 0. */
    public Builder hotSpares(int hotSpares) {
      this.hotSpares = hotSpares;
      return this;
    }

    /** The config; throws {@link IllegalArgumentException} naming the first bad value. */
    public ArrayConfig build() {
      return new ArrayConfig(protection, cellSize, maxObjectSize, hotSpares);
    }
  }
}
