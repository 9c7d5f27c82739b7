package io.parityfs.meta;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A layout's protection across nodes (docs/across-nodes.md): {@code none}, {@code mirror:N} (N
 * copies of every chunk, each on a distinct node) or {@code ec:K+M} (chunk groups of K data and
 * M parity chunks, each member on a distinct node). The node-local protection of each target
 * ({@link Layout#protection()}) applies underneath, whatever this is.
 *
 * @param kind which policy
 * @param data K for {@code ec}, N for {@code mirror}, 1 for {@code none}
 * @param parity M for {@code ec}, 0 otherwise
 */
public record Across(Kind kind, int data, int parity) {
  /** The policies. */
  public enum Kind { NONE, MIRROR, EC }

  /** Copies of a mirrored chunk: 2..8. */
  public static final int MAX_COPIES = 8;
  /** Data chunks of an erasure-coded group: 1..16. */
  public static final int MAX_DATA = 16;
  /** Parity chunks of an erasure-coded group: 1..4. */
  public static final int MAX_PARITY = 4;

  /** Each chunk once. */
  public static final Across NONE = new Across(Kind.NONE, 1, 0);

  private static final Pattern EC = Pattern.compile("ec:([0-9]{1,2})\\+([0-9])");
  private static final Pattern MIRROR = Pattern.compile("mirror:([0-9])");

  public Across {
    if (kind == null) {
      throw new IllegalArgumentException("kind must not be null");
    }
    switch (kind) {
      case NONE -> {
        if (data != 1 || parity != 0) {
          throw new IllegalArgumentException("none has no data or parity count");
        }
      }
      case MIRROR -> {
        if (data < 2 || data > MAX_COPIES || parity != 0) {
          throw new IllegalArgumentException("mirror:" + data + ": the copies must be 2.."
              + MAX_COPIES);
        }
      }
      case EC -> {
        if (data < 1 || data > MAX_DATA || parity < 1 || parity > MAX_PARITY) {
          throw new IllegalArgumentException("ec:" + data + "+" + parity + ": K must be 1.."
              + MAX_DATA + " and M 1.." + MAX_PARITY);
        }
      }
      default -> throw new AssertionError(kind);
    }
  }

  /** {@code mirror:copies}. */
  public static Across mirror(int copies) {
    return new Across(Kind.MIRROR, copies, 0);
  }

  /** {@code ec:k+m}. */
  public static Across ec(int k, int m) {
    return new Across(Kind.EC, k, m);
  }

  /**
   * Parses {@code none}, {@code mirror:N} or {@code ec:K+M} (case-insensitive).
   *
   * @throws IllegalArgumentException naming the accepted forms and ranges
   */
  public static Across parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("none")) {
      return NONE;
    }
    try {
      Matcher ec = EC.matcher(t);
      if (ec.matches()) {
        return ec(Integer.parseInt(ec.group(1)), Integer.parseInt(ec.group(2)));
      }
      Matcher mirror = MIRROR.matcher(t);
      if (mirror.matches()) {
        return mirror(Integer.parseInt(mirror.group(1)));
      }
    } catch (IllegalArgumentException e) {
      // a count out of range: the same message as a malformed text
    }
    throw new IllegalArgumentException("protection across nodes (" + text + ") must be none,"
        + " mirror:N (N = 2.." + MAX_COPIES + ") or ec:K+M (K = 1.." + MAX_DATA + ", M = 1.."
        + MAX_PARITY + ")");
  }

  /**
   * Targets on distinct nodes that one chunk (mirror) or one chunk group (ec) spans: N, K+M,
   * or 1. A layout's stripe count is at least this.
   */
  public int width() {
    return data + parity;
  }

  /** Whole nodes that can be lost without losing a byte: N−1, M, or 0. */
  public int nodesTolerated() {
    return kind == Kind.MIRROR ? data - 1 : parity;
  }

  /** Bytes stored across nodes per byte of data: N, (K+M)/K, or 1. */
  public double mediaFactor() {
    return (double) width() / (kind == Kind.MIRROR ? 1 : data);
  }

  /** Whether this is {@code ec:K+M} (Hadoop's {@code isErasureCoded}). */
  public boolean isErasureCoded() {
    return kind == Kind.EC;
  }

  /** Whether this is {@code none}. */
  public boolean isNone() {
    return kind == Kind.NONE;
  }

  /** The canonical text: {@code none}, {@code mirror:N}, {@code ec:K+M}. */
  @Override
  public String toString() {
    return switch (kind) {
      case NONE -> "none";
      case MIRROR -> "mirror:" + data;
      case EC -> "ec:" + data + "+" + parity;
    };
  }
}
