package io.parityfs.raid.codec;

import io.parityfs.raid.gf.Gf256;
import io.parityfs.raid.gf.GfMatrix;
import java.util.Arrays;
import java.util.Locale;

/**
 * What a codec protects: a {@link Scheme}, {@code k} data shards and {@code m} parity shards.
 * Shard indexes run {@code 0..k-1} for data and {@code k..k+m-1} for parity.
 *
 * <p>The bound: {@code k + m <= } {@value #MAX_SHARDS}. GF(2^8) itself allows up to 256 shards
 * for the Cauchy code (and 255 data shards for P+Q), but ParityFS keeps a shard set in one
 * {@code long} bit mask (erasure patterns, decode-plan cache keys, drive sets) and an array has
 * at most 64 drives, so 64 is the limit everywhere.
 */
public record CodecGeometry(Scheme scheme, int k, int m) {
  /** Largest k + m any codec accepts. */
  public static final int MAX_SHARDS = 64;

  public CodecGeometry {
    if (scheme == null) {
      throw new IllegalArgumentException("scheme must not be null");
    }
    if (k < 1) {
      throw new IllegalArgumentException("k (" + k + ") must be >= 1");
    }
    if (m < 1) {
      throw new IllegalArgumentException("m (" + m + ") must be >= 1");
    }
    if (k + m > MAX_SHARDS) {
      throw new IllegalArgumentException(
          "k + m (" + k + " + " + m + ") must be <= " + MAX_SHARDS);
    }
    if (scheme == Scheme.XOR && m != 1) {
      throw new IllegalArgumentException("RAID-5 (XOR) has exactly one parity shard, not m = " + m);
    }
    if (scheme == Scheme.PQ && m != 2) {
      throw new IllegalArgumentException("RAID-6 (P+Q) has exactly two parity shards, not m = " + m);
    }
  }

  /** RAID-5 over {@code k} data shards. */
  public static CodecGeometry raid5(int k) {
    return new CodecGeometry(Scheme.XOR, k, 1);
  }

  /** RAID-6 (Linux md P+Q) over {@code k} data shards. */
  public static CodecGeometry raid6(int k) {
    return new CodecGeometry(Scheme.PQ, k, 2);
  }

  /** Cauchy Reed-Solomon with {@code k} data and {@code m} parity shards. */
  public static CodecGeometry reedSolomon(int k, int m) {
    return new CodecGeometry(Scheme.RS_CAUCHY, k, m);
  }

  /**
   * Parses "raid5:4+1", "raid6:4+2" or "rs:10+4" (the form {@link #toString()} prints).
   *
   * @throws IllegalArgumentException naming the text when it is not a geometry
   */
  public static CodecGeometry parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    int colon = t.indexOf(':');
    int plus = t.indexOf('+');
    if (colon < 0 || plus < colon) {
      throw new IllegalArgumentException(
          "geometry '" + text + "' is not of the form raid5:K+1, raid6:K+2 or rs:K+M");
    }
    String name = t.substring(0, colon);
    Scheme scheme = null;
    for (Scheme s : Scheme.values()) {
      if (s.label().equals(name)) {
        scheme = s;
      }
    }
    if (scheme == null) {
      throw new IllegalArgumentException(
          "geometry '" + text + "' names unknown scheme '" + name + "' (raid5, raid6, rs)");
    }
    try {
      int k = Integer.parseInt(t.substring(colon + 1, plus).trim());
      int m = Integer.parseInt(t.substring(plus + 1).trim());
      return new CodecGeometry(scheme, k, m);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("geometry '" + text + "' has a non-numeric k or m", e);
    }
  }

  /** k + m. */
  public int shards() {
    return k + m;
  }

  /**
   * The m x k matrix whose row i gives parity shard k+i as a combination of the data shards.
   * Stacked under the k x k identity it is the code's generator matrix.
   */
  public GfMatrix parityMatrix() {
    return switch (scheme) {
      case XOR -> GfMatrix.of(new int[][] {ones(k)});
      case PQ -> {
        int[] q = new int[k];
        for (int j = 0; j < k; j++) {
          q[j] = Gf256.exp(j);
        }
        yield GfMatrix.of(new int[][] {ones(k), q});
      }
      case RS_CAUCHY -> GfMatrix.cauchy(k, m);
    };
  }

  /** The (k+m) x k generator matrix: identity over the parity matrix. */
  public GfMatrix generatorMatrix() {
    return GfMatrix.identity(k).stack(parityMatrix());
  }

  private static int[] ones(int n) {
    int[] r = new int[n];
    Arrays.fill(r, 1);
    return r;
  }

  @Override
  public String toString() {
    return scheme.label() + ":" + k + "+" + m;
  }
}
