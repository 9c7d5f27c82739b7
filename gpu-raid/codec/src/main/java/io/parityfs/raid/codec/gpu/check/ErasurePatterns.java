package io.parityfs.raid.codec.gpu.check;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Erasure patterns for the self-check: sets of 1..m lost shards out of n = k + m, as bit masks.
 * All of them when there are few, else a random sample that always holds the first m shards,
 * the m parity shards, shards {0, 1} and shard {0}. Pure; the sample is reproducible per seed.
 */
final class ErasurePatterns {
  private ErasurePatterns() {}

  /** The number of patterns: C(n, 1) + ... + C(n, m). */
  static BigInteger count(int n, int m) {
    BigInteger total = BigInteger.ZERO;
    BigInteger c = BigInteger.ONE;
    for (int r = 1; r <= m && r <= n; r++) {
      c = c.multiply(BigInteger.valueOf(n - r + 1)).divide(BigInteger.valueOf(r));
      total = total.add(c);
    }
    return total;
  }

  /**
   * Every pattern when there are at most {@code limit}, else {@code sample} of them (fewer only
   * when there are fewer); ordered by size, then by mask, for the exhaustive list.
   */
  static List<Long> choose(int k, int m, int limit, int sample, Random rnd) {
    int n = k + m;
    if (count(n, m).compareTo(BigInteger.valueOf(limit)) <= 0) {
      return all(n, m);
    }
    Set<Long> picked = new LinkedHashSet<>();
    long first = 0;
    long parity = 0;
    for (int i = 0; i < m; i++) {
      first |= 1L << i;
      parity |= 1L << (k + i);
    }
    picked.add(first);
    picked.add(parity);
    if (m >= 2) {
      picked.add(0b11L);
    }
    picked.add(1L);
    for (int attempt = 0; picked.size() < sample && attempt < 100 * sample; attempt++) {
      int r = 1 + rnd.nextInt(m);
      long mask = 0;
      while (Long.bitCount(mask) < r) {
        mask |= 1L << rnd.nextInt(n);
      }
      picked.add(mask);
    }
    return new ArrayList<>(picked);
  }

  /** Every set of 1..m shards out of n (n at most 63). */
  static List<Long> all(int n, int m) {
    if (n > 63) {
      throw new IllegalArgumentException("n (" + n + ") must be at most 63 to list every pattern");
    }
    List<Long> out = new ArrayList<>();
    for (int r = 1; r <= m && r <= n; r++) {
      long x = (1L << r) - 1;
      while (x < (1L << n)) {
        out.add(x);
        long c = x & -x;
        long rr = x + c;
        x = (((rr ^ x) >>> 2) / c) | rr;
      }
    }
    return out;
  }

  /** The shards of {@code mask}, ascending. */
  static int[] shards(long mask) {
    int[] out = new int[Long.bitCount(mask)];
    int i = 0;
    for (long x = mask; x != 0; x &= x - 1) {
      out[i++] = Long.numberOfTrailingZeros(x);
    }
    return out;
  }
}
