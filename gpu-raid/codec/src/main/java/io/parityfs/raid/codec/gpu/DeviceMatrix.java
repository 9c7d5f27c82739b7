package io.parityfs.raid.codec.gpu;

import io.parityfs.raid.gf.GfMatrix;

/**
 * A coefficient matrix as {@code pfs_gf_apply} reads it: row-major bytes, {@code rows x cols}.
 * {@code xor} is set when it is one row of ones, which {@code pfs_xor} computes more cheaply
 * (every RAID-5 reconstruction). Immutable; the byte array is never modified, and the pipeline
 * uses its identity to skip re-uploading a matrix that is already on the device.
 */
record DeviceMatrix(byte[] coefficients, int rows, int cols, boolean xor) {

  static DeviceMatrix of(GfMatrix m) {
    byte[] c = new byte[m.rows() * m.cols()];
    boolean ones = m.rows() == 1;
    for (int r = 0; r < m.rows(); r++) {
      for (int j = 0; j < m.cols(); j++) {
        c[r * m.cols() + j] = (byte) m.get(r, j);
        ones &= m.get(r, j) == 1;
      }
    }
    if (c.length > BatchPlanner.COEF_BYTES) {
      throw new IllegalArgumentException(
          "a " + m.rows() + "x" + m.cols() + " matrix exceeds " + BatchPlanner.COEF_BYTES + " bytes");
    }
    return new DeviceMatrix(c, m.rows(), m.cols(), ones);
  }

  /** Column {@code j} of {@code m} as a one-column matrix: the coefficients of a delta. */
  static DeviceMatrix column(GfMatrix m, int j) {
    byte[] c = new byte[m.rows()];
    for (int r = 0; r < m.rows(); r++) {
      c[r] = (byte) m.get(r, j);
    }
    return new DeviceMatrix(c, m.rows(), 1, false);
  }
}
