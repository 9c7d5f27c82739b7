package io.parityfs.client.workload;

import java.util.Arrays;
import java.util.Random;

/**
 * The bytes a workload writes, derived from a seed, a stream number (a rank, a file index) and
 * the offset, so that a reader can check them without a stored copy. One random period of 1 MiB
 * is shared by every stream; each 1 MiB block of a stream is that period rotated by an amount
 * hashed from (seed, stream, block), so streams differ from each other and a block misplaced
 * within a file (a chunk written at the wrong index) does not match. Producing or checking a
 * block is one or two array copies or compares. Immutable, thread-safe.
 */
final class ContentPattern {
  static final int PERIOD = 1 << 20;

  private final long seed;
  /** The period twice, so that any run inside one rotated block is contiguous. */
  private final byte[] doubled = new byte[2 * PERIOD];

  ContentPattern(long seed) {
    this.seed = seed;
    byte[] period = new byte[PERIOD];
    new Random(seed).nextBytes(period);
    System.arraycopy(period, 0, doubled, 0, PERIOD);
    System.arraycopy(period, 0, doubled, PERIOD, PERIOD);
  }

  /** Writes the {@code len} bytes of {@code stream} at {@code offset} into {@code dst}. */
  void fill(long stream, long offset, byte[] dst, int off, int len) {
    while (len > 0) {
      int in = (int) (offset & (PERIOD - 1));
      int n = Math.min(len, PERIOD - in);
      System.arraycopy(doubled, in + rotation(stream, offset / PERIOD), dst, off, n);
      offset += n;
      off += n;
      len -= n;
    }
  }

  /**
   * The index (from {@code off}) of the first of {@code len} bytes in {@code buf} that differs
   * from {@code stream} at {@code offset}, or -1 when all match.
   */
  int mismatch(long stream, long offset, byte[] buf, int off, int len) {
    int checked = 0;
    while (checked < len) {
      int in = (int) (offset & (PERIOD - 1));
      int n = Math.min(len - checked, PERIOD - in);
      int from = in + rotation(stream, offset / PERIOD);
      int m = Arrays.mismatch(buf, off + checked, off + checked + n, doubled, from, from + n);
      if (m >= 0) {
        return checked + m;
      }
      offset += n;
      checked += n;
    }
    return -1;
  }

  /** The byte of {@code stream} at {@code offset}. */
  byte at(long stream, long offset) {
    return doubled[(int) (offset & (PERIOD - 1)) + rotation(stream, offset / PERIOD)];
  }

  /** A number in [0, bound) hashed from {@code seed}, {@code stream} and {@code salt}. */
  static long hash(long seed, long stream, long salt, long bound) {
    return Math.floorMod(mix(seed ^ mix(stream ^ mix(salt + 0x632BE59BD9B4E019L))), bound);
  }

  private int rotation(long stream, long block) {
    return (int) hash(seed, stream, block, PERIOD);
  }

  /** SplitMix64's finaliser. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
