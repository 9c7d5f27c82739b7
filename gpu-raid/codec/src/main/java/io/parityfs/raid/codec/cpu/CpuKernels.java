package io.parityfs.raid.codec.cpu;

import io.parityfs.raid.gf.GfMatrix;
import java.nio.ByteBuffer;

/**
 * The loops the CPU codec is made of. Every shard is addressed from its buffer's position
 * through absolute indexes; {@code len} bytes are processed. Inputs are selected through an
 * index map ({@code in[map[j]]}) so that callers never build a temporary array. Implementations
 * are stateless and thread-safe.
 */
abstract class CpuKernels {

  /** A short name for logs and benchmark reports. */
  abstract String name();

  /** Lane width (bytes) the kernels want their nibble tables widened to; 0 for none. */
  abstract int laneWidth();

  /** A coefficient matrix prepared for {@link #apply} and {@link #delta} of these kernels. */
  GfProgram compile(GfMatrix m) {
    return new GfProgram(m, laneWidth());
  }

  /** {@code out = XOR over j of in[map[j]]}. */
  abstract void xor(ByteBuffer[] in, int[] map, ByteBuffer out, int len);

  /** RAID-6 syndromes of {@code in[0..k-1]}: P = XOR, Q = sum of 2^j * in[j]. */
  abstract void pq(ByteBuffer[] in, int k, ByteBuffer p, ByteBuffer q, int len);

  /** {@code out[outMap[r]] = sum over j of coef(r, j) * in[inMap[j]]}, for every row r. */
  abstract void apply(
      GfProgram prog, ByteBuffer[] in, int[] inMap, ByteBuffer[] out, int[] outMap, int len);

  /**
   * {@code parity[r] ^= coef(r, 0) * (oldData ^ newData)} for every row r of a one-column
   * program.
   */
  abstract void delta(
      GfProgram column, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity, int len);
}
