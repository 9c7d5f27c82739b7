package io.parityfs.raid.array.format;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the bytes of one object live: pure arithmetic from an object's logical byte range to
 * (stripe, shard, offset in cell), for a {@link Protection}, a cell size and the object's length.
 *
 * <p>The object is cut into cells of {@code cellSize} bytes; cell {@code c} of the object goes to
 * data shard {@code c % k}, at cell index (stripe) {@code c / k} within that shard (RAID-style
 * striping inside the object). A stripe is the k data cells at one cell index plus the m parity
 * cells computed over them; parity shards are {@code k..k+m-1}. Every shard of an object has the
 * same number of cells ({@link #stripes()}); the last stripe's missing bytes are zeros, so parity
 * always covers equal lengths.
 *
 * <p>A mirror is laid out as k = 1: every copy holds every cell, and shard 0 in a {@link CellSpan}
 * stands for "any copy".
 *
 * <p>The arithmetic only needs a power-of-two cell size; the array's bounds (4 KiB..16 MiB, the
 * maximum object size) are applied by {@link #of(ArrayConfig, long)}. Immutable.
 *
 * @param protection how the object is protected
 * @param cellSize bytes per cell, a power of two
 * @param length the object's logical length in bytes, >= 0
 */
public record ObjectLayout(Protection protection, int cellSize, long length) {

  public ObjectLayout {
    if (protection == null) {
      throw new IllegalArgumentException("protection must not be null");
    }
    if (cellSize < 1 || Integer.bitCount(cellSize) != 1) {
      throw new IllegalArgumentException("cellSize (" + cellSize + ") must be a power of two");
    }
    if (length < 0) {
      throw new IllegalArgumentException("object length (" + length + ") must be >= 0");
    }
    int k = dataShards(protection);
    long stripes = ceilDiv(length, (long) k * cellSize);
    if (stripes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "object length ("
              + length
              + ") needs "
              + stripes
              + " cells per shard with "
              + protection
              + " and "
              + cellSize
              + "-byte cells; at most "
              + Integer.MAX_VALUE);
    }
  }

  /**
   * The layout of an object of {@code length} bytes in an array with {@code config}.
   *
   * @throws IllegalArgumentException naming the length when it is negative or above the array's
   *     maximum object size
   */
  public static ObjectLayout of(ArrayConfig config, long length) {
    if (length < 0 || length > config.maxObjectSize()) {
      throw new IllegalArgumentException(
          "object length ("
              + length
              + ") must be in 0.."
              + config.maxObjectSize()
              + " (the array's maximum object size)");
    }
    return new ObjectLayout(config.protection(), config.cellSize(), length);
  }

  /** k for parity protection; 1 for a mirror, whose every copy holds every cell. */
  public int dataShards() {
    return dataShards(protection);
  }

  /** Shards (files on distinct drives) per object: k + m, or the copy count. */
  public int shards() {
    return protection.width();
  }

  /** Object bytes in one full stripe: k cells. */
  public long stripeBytes() {
    return (long) dataShards() * cellSize;
  }

  /** Data cells of the object, the last one possibly partial: ceil(length / cellSize). */
  public long dataCells() {
    return ceilDiv(length, cellSize);
  }

  /** Stripes, which is also the cell count of every shard: 0 for an empty object. */
  public int stripes() {
    return (int) ceilDiv(length, stripeBytes());
  }

  /**
   * Bytes of shard {@code shard} that carry data before the zero padding: for a data shard the
   * object bytes it holds; for a parity shard the same as shard 0 (the longest), past which all
   * data is zero and so is the parity; for a mirror copy the object's length.
   */
  public long shardDataLength(int shard) {
    checkShard(shard);
    if (protection instanceof Protection.Mirror) {
      return length;
    }
    int s = shard < dataShards() ? shard : 0;
    long full = length / stripeBytes();
    long rem = length % stripeBytes();
    return full * cellSize + Math.min(cellSize, Math.max(0, rem - (long) s * cellSize));
  }

  /** Where object byte {@code offset} lives. */
  public CellSpan locate(long offset) {
    if (offset < 0 || offset >= length) {
      throw new IllegalArgumentException(
          "offset (" + offset + ") must be in 0.." + (length - 1) + " for a " + length
              + "-byte object");
    }
    long cell = offset / cellSize;
    int k = dataShards();
    return new CellSpan(offset, (int) (cell / k), (int) (cell % k),
        (int) (offset % cellSize), 1);
  }

  /**
   * The pieces of cells that hold object bytes {@code [offset, offset + len)}, in object order,
   * each within one cell. A healthy read of the range reads these and nothing else.
   *
   * @throws IllegalArgumentException when the range is not inside the object
   */
  public List<CellSpan> spans(long offset, long len) {
    checkRange(offset, len);
    List<CellSpan> out = new ArrayList<>();
    int k = dataShards();
    long pos = offset;
    long end = offset + len;
    while (pos < end) {
      long cell = pos / cellSize;
      int inCell = (int) (pos % cellSize);
      int n = (int) Math.min(cellSize - inCell, end - pos);
      out.add(new CellSpan(pos, (int) (cell / k), (int) (cell % k), inCell, n));
      pos += n;
    }
    return out;
  }

  /**
   * The data shards a healthy read of {@code [offset, offset + len)} touches, as a bit mask (bit
   * i: shard i). For a mirror, bit 0 ("any copy") when the range is not empty.
   */
  public long shardsTouched(long offset, long len) {
    checkRange(offset, len);
    if (len == 0) {
      return 0;
    }
    int k = dataShards();
    long first = offset / cellSize;
    long last = (offset + len - 1) / cellSize;
    if (last - first + 1 >= k) {
      return k == 64 ? -1L : (1L << k) - 1;
    }
    long mask = 0;
    for (long c = first; c <= last; c++) {
      mask |= 1L << (c % k);
    }
    return mask;
  }

  /**
   * What an overwrite of {@code [offset, offset + len)} (inside the object) changes, stripe by
   * stripe: the data cells written and whether the write covers every data byte of the stripe.
   * A full stripe gets its parity computed afresh; a partial one needs a parity delta update of
   * all m parity cells from the old and new contents of the data cells in its mask. For a mirror
   * every copy's cell is written and there is no parity.
   *
   * @throws IllegalArgumentException when the range is not inside the object
   */
  public List<StripeWrite> stripeWrites(long offset, long len) {
    checkRange(offset, len);
    List<StripeWrite> out = new ArrayList<>();
    if (len == 0) {
      return out;
    }
    long end = offset + len;
    long sb = stripeBytes();
    for (long stripe = offset / sb; stripe <= (end - 1) / sb; stripe++) {
      long stripeStart = stripe * sb;
      long stripeEnd = length - stripeStart <= sb ? length : stripeStart + sb;
      long from = Math.max(offset, stripeStart);
      long to = Math.min(end, stripeEnd);
      int firstCell = (int) ((from - stripeStart) / cellSize);
      int lastCell = (int) ((to - 1 - stripeStart) / cellSize);
      long mask = 0;
      for (int c = firstCell; c <= lastCell; c++) {
        mask |= 1L << c;
      }
      out.add(new StripeWrite((int) stripe, mask, from == stripeStart && to == stripeEnd));
    }
    return out;
  }

  private void checkShard(int shard) {
    if (shard < 0 || shard >= shards()) {
      throw new IllegalArgumentException(
          "shard (" + shard + ") must be in 0.." + (shards() - 1) + " for " + protection);
    }
  }

  private void checkRange(long offset, long len) {
    if (offset < 0 || len < 0 || offset > length || len > length - offset) {
      throw new IllegalArgumentException(
          "range [" + offset + ", +" + len + ") is not inside the " + length + "-byte object");
    }
  }

  private static int dataShards(Protection p) {
    return p instanceof Protection.Parity parity ? parity.geometry().k() : 1;
  }

  private static long ceilDiv(long a, long b) {
    return a == 0 ? 0 : (a - 1) / b + 1;
  }

  /**
   * A piece of one cell holding object bytes {@code [objectOffset, objectOffset + length)}.
   *
   * @param objectOffset logical offset in the object of the first byte
   * @param stripe the stripe, which is also the cell index within the shard
   * @param shard the data shard (0 for a mirror: any copy)
   * @param offsetInCell offset of the first byte within the cell
   * @param length bytes, 1..cellSize
   */
  public record CellSpan(long objectOffset, int stripe, int shard, int offsetInCell, int length) {}

  /**
   * The effect of an overwrite on one stripe.
   *
   * @param stripe the stripe (cell index in every shard)
   * @param dataShards bit i set: data cell i of the stripe is (partly) rewritten
   * @param full true when every data byte of the stripe is rewritten, so parity is computed afresh
   *     rather than updated by delta
   */
  public record StripeWrite(int stripe, long dataShards, boolean full) {}
}
