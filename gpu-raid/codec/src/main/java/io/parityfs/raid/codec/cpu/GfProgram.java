package io.parityfs.raid.codec.cpu;

import io.parityfs.raid.gf.Gf256;
import io.parityfs.raid.gf.GfMatrix;

/**
 * A coefficient matrix prepared for the kernels: the raw coefficients for scalar loops, a flag
 * per row whose coefficients are all one (that row is a plain XOR), and, for SIMD kernels, the
 * 16-entry low/high nibble product tables of every coefficient, each widened to one vector.
 *
 * <p>Lane table layout: for row r and column j, the low-nibble table starts at
 * {@code (r * cols + j) * 2 * laneWidth} and the high-nibble table {@code laneWidth} later;
 * entries 0..15 repeat across the vector. Immutable. Kernels that prepare more (ISA-L's tables)
 * extend it.
 */
class GfProgram {
  final int rows;
  final int cols;
  final byte[] coef;
  final boolean[] xorRow;
  final byte[] lanes;
  final int laneWidth;

  GfProgram(GfMatrix m, int laneWidth) {
    this.rows = m.rows();
    this.cols = m.cols();
    this.laneWidth = laneWidth;
    this.coef = new byte[rows * cols];
    this.xorRow = new boolean[rows];
    this.lanes = new byte[laneWidth == 0 ? 0 : rows * cols * 2 * laneWidth];
    byte[] lo = new byte[16];
    byte[] hi = new byte[16];
    for (int r = 0; r < rows; r++) {
      boolean ones = true;
      for (int j = 0; j < cols; j++) {
        int c = m.get(r, j);
        coef[r * cols + j] = (byte) c;
        ones &= c == 1;
        if (laneWidth > 0) {
          Gf256.nibbleTables(c, lo, hi, 0);
          int base = (r * cols + j) * 2 * laneWidth;
          for (int x = 0; x < laneWidth; x++) {
            lanes[base + x] = lo[x & 15];
            lanes[base + laneWidth + x] = hi[x & 15];
          }
        }
      }
      xorRow[r] = ones;
    }
  }

  /** Offset of the low-nibble table of (row, col) in {@link #lanes}. */
  int laneOffset(int row, int col) {
    return (row * cols + col) * 2 * laneWidth;
  }
}
