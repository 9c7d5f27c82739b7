package io.parityfs.raid.gf;

import java.util.Arrays;

/**
 * An immutable matrix over GF(2^8). Small (at most a few thousand entries): it defines a code,
 * it is never applied to data here (that is the codecs' job).
 */
public final class GfMatrix {
  private final int rows;
  private final int cols;
  private final byte[] a;

  private GfMatrix(int rows, int cols, byte[] a) {
    this.rows = rows;
    this.cols = cols;
    this.a = a;
  }

  /** A matrix from rows of field elements (each row copied; all rows the same length). */
  public static GfMatrix of(int[][] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("a matrix needs at least one row");
    }
    int cols = values[0].length;
    byte[] a = new byte[values.length * cols];
    for (int r = 0; r < values.length; r++) {
      if (values[r].length != cols) {
        throw new IllegalArgumentException(
            "row " + r + " has " + values[r].length + " columns, expected " + cols);
      }
      for (int c = 0; c < cols; c++) {
        a[r * cols + c] = (byte) values[r][c];
      }
    }
    return new GfMatrix(values.length, cols, a);
  }

  /** The n x n identity. */
  public static GfMatrix identity(int n) {
    byte[] a = new byte[n * n];
    for (int i = 0; i < n; i++) {
      a[i * n + i] = 1;
    }
    return new GfMatrix(n, n, a);
  }

  /**
   * The m x k Cauchy matrix of ISA-L's {@code gf_gen_cauchy1_matrix} parity rows:
   * entry (i, j) = inv((k + i) XOR j). Rows {k..k+m-1} and columns {0..k-1} are disjoint sets of
   * field elements, so every square submatrix is invertible: the code is MDS for any
   * {@code k + m <= 256}.
   */
  public static GfMatrix cauchy(int k, int m) {
    if (k < 1 || m < 1 || k + m > 256) {
      throw new IllegalArgumentException("Cauchy k (" + k + ") + m (" + m + ") must be in [2, 256]");
    }
    byte[] a = new byte[m * k];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < k; j++) {
        a[i * k + j] = (byte) Gf256.inv((k + i) ^ j);
      }
    }
    return new GfMatrix(m, k, a);
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  public int get(int r, int c) {
    return a[r * cols + c] & 0xff;
  }

  /** A copy of row {@code r}. */
  public byte[] row(int r) {
    return Arrays.copyOfRange(a, r * cols, (r + 1) * cols);
  }

  /** This matrix with {@code other}'s rows appended below. */
  public GfMatrix stack(GfMatrix other) {
    if (other.cols != cols) {
      throw new IllegalArgumentException("cannot stack " + other.cols + " columns under " + cols);
    }
    byte[] b = Arrays.copyOf(a, a.length + other.a.length);
    System.arraycopy(other.a, 0, b, a.length, other.a.length);
    return new GfMatrix(rows + other.rows, cols, b);
  }

  /** The matrix made of the given rows of this one, in that order. */
  public GfMatrix selectRows(int[] which) {
    byte[] b = new byte[which.length * cols];
    for (int i = 0; i < which.length; i++) {
      System.arraycopy(a, which[i] * cols, b, i * cols, cols);
    }
    return new GfMatrix(which.length, cols, b);
  }

  /** {@code this x other}. */
  public GfMatrix times(GfMatrix other) {
    if (cols != other.rows) {
      throw new IllegalArgumentException(
          "cannot multiply " + rows + "x" + cols + " by " + other.rows + "x" + other.cols);
    }
    byte[] b = new byte[rows * other.cols];
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < other.cols; c++) {
        int s = 0;
        for (int i = 0; i < cols; i++) {
          s ^= Gf256.mul(a[r * cols + i], other.a[i * other.cols + c]);
        }
        b[r * other.cols + c] = (byte) s;
      }
    }
    return new GfMatrix(rows, other.cols, b);
  }

  /**
   * The inverse, by Gauss-Jordan elimination.
   *
   * @throws IllegalArgumentException if the matrix is not square
   * @throws ArithmeticException if it is singular
   */
  public GfMatrix inverse() {
    if (rows != cols) {
      throw new IllegalArgumentException("only a square matrix has an inverse, not " + rows + "x" + cols);
    }
    int n = rows;
    byte[] w = a.clone();
    byte[] inv = identity(n).a;
    for (int col = 0; col < n; col++) {
      int pivot = col;
      while (pivot < n && w[pivot * n + col] == 0) {
        pivot++;
      }
      if (pivot == n) {
        throw new ArithmeticException("matrix is singular (column " + col + ")");
      }
      if (pivot != col) {
        swapRows(w, n, pivot, col);
        swapRows(inv, n, pivot, col);
      }
      int scale = Gf256.inv(w[col * n + col]);
      scaleRow(w, n, col, scale);
      scaleRow(inv, n, col, scale);
      for (int r = 0; r < n; r++) {
        int f = w[r * n + col] & 0xff;
        if (r != col && f != 0) {
          addScaledRow(w, n, col, r, f);
          addScaledRow(inv, n, col, r, f);
        }
      }
    }
    return new GfMatrix(n, n, inv);
  }

  private static void swapRows(byte[] m, int n, int r1, int r2) {
    for (int c = 0; c < n; c++) {
      byte t = m[r1 * n + c];
      m[r1 * n + c] = m[r2 * n + c];
      m[r2 * n + c] = t;
    }
  }

  private static void scaleRow(byte[] m, int n, int r, int f) {
    for (int c = 0; c < n; c++) {
      m[r * n + c] = (byte) Gf256.mul(m[r * n + c], f);
    }
  }

  /** row[dst] += f * row[src]. */
  private static void addScaledRow(byte[] m, int n, int src, int dst, int f) {
    for (int c = 0; c < n; c++) {
      m[dst * n + c] ^= (byte) Gf256.mul(m[src * n + c], f);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GfMatrix other
        && other.rows == rows
        && other.cols == cols
        && Arrays.equals(other.a, a);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * rows + cols) + Arrays.hashCode(a);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (int r = 0; r < rows; r++) {
      sb.append(r == 0 ? "[" : " ");
      for (int c = 0; c < cols; c++) {
        sb.append(String.format(" %02x", get(r, c)));
      }
      sb.append(r == rows - 1 ? " ]" : "\n");
    }
    return sb.toString();
  }
}
