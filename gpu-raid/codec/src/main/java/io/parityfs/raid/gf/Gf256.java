package io.parityfs.raid.gf;

/**
 * The field GF(2^8) with the polynomial 0x11d, as used by Linux md RAID-6, ISA-L and Hadoop.
 * Addition is XOR; multiplication goes through log/exp tables built once at class load.
 *
 * <p>All methods are static, allocation-free and thread-safe. Arguments are field elements in
 * the low eight bits of an {@code int}; higher bits are ignored.
 */
public final class Gf256 {
  /** The reducing polynomial x^8+x^4+x^3+x^2+1. */
  public static final int POLYNOMIAL = 0x11d;
  /** The generator used for RAID-6's Q syndrome and for the log/exp tables. */
  public static final int GENERATOR = 2;

  private static final byte[] EXP = new byte[512];
  private static final int[] LOG = new int[256];
  /** Full product table: {@code MUL[a << 8 | b] = a * b}. 64 KiB, used by scalar loops. */
  private static final byte[] MUL = new byte[256 * 256];

  static {
    int x = 1;
    for (int i = 0; i < 255; i++) {
      EXP[i] = (byte) x;
      LOG[x] = i;
      x <<= 1;
      if ((x & 0x100) != 0) {
        x ^= POLYNOMIAL;
      }
    }
    for (int i = 255; i < EXP.length; i++) {
      EXP[i] = EXP[i - 255];
    }
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        MUL[a << 8 | b] = (byte) slowMul(a, b);
      }
    }
  }

  private Gf256() {}

  private static int slowMul(int a, int b) {
    if (a == 0 || b == 0) {
      return 0;
    }
    return EXP[LOG[a] + LOG[b]] & 0xff;
  }

  /** Returns {@code a * b}. */
  public static int mul(int a, int b) {
    return MUL[(a & 0xff) << 8 | (b & 0xff)] & 0xff;
  }

  /** Returns the multiplicative inverse of {@code a}; zero has none. */
  public static int inv(int a) {
    a &= 0xff;
    if (a == 0) {
      throw new ArithmeticException("0 has no inverse in GF(2^8)");
    }
    return EXP[255 - LOG[a]] & 0xff;
  }

  /** Returns {@code a / b}. */
  public static int div(int a, int b) {
    return mul(a, inv(b));
  }

  /** Returns {@code GENERATOR^n} for any {@code n >= 0}. */
  public static int exp(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("exponent (" + n + ") must be >= 0");
    }
    return EXP[n % 255] & 0xff;
  }

  /** Offset of the row for constant {@code c} in {@link #mulTable()}. */
  public static int mulTableOffset(int c) {
    return (c & 0xff) << 8;
  }

  /**
   * The shared full multiplication table (read-only by contract): {@code c * x} is at
   * {@code mulTable()[mulTableOffset(c) + x]}.
   */
  public static byte[] mulTable() {
    return MUL;
  }

  /**
   * Fills {@code lo} and {@code hi} (16 entries each, from {@code offset}) with the products of
   * {@code c} and each low nibble and high nibble: {@code c * x = lo[x & 15] ^ hi[x >>> 4]}.
   * These are the tables a shuffle-based SIMD multiply looks up.
   */
  public static void nibbleTables(int c, byte[] lo, byte[] hi, int offset) {
    for (int x = 0; x < 16; x++) {
      lo[offset + x] = (byte) mul(c, x);
      hi[offset + x] = (byte) mul(c, x << 4);
    }
  }
}
