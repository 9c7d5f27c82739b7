package io.parityfs.raid.codec.cpu;

import io.parityfs.raid.gf.Gf256;
import java.nio.ByteBuffer;

/**
 * Portable kernels: byte loops over the 64 KiB product table (XOR eight bytes at a time).
 * Used when the Vector API is absent, and by the vector kernels for the bytes after the last
 * full vector. The static {@code *Range} methods process bytes {@code [from, to)}.
 */
final class ScalarKernels extends CpuKernels {
  static final ScalarKernels INSTANCE = new ScalarKernels();

  private static final byte[] MUL = Gf256.mulTable();

  private ScalarKernels() {}

  @Override
  String name() {
    return "cpu-scalar";
  }

  @Override
  int laneWidth() {
    return 0;
  }

  @Override
  void xor(ByteBuffer[] in, int[] map, ByteBuffer out, int len) {
    xorRange(in, map, out, 0, len);
  }

  @Override
  void pq(ByteBuffer[] in, int k, ByteBuffer p, ByteBuffer q, int len) {
    pqRange(in, k, p, q, 0, len);
  }

  @Override
  void apply(GfProgram prog, ByteBuffer[] in, int[] inMap, ByteBuffer[] out, int[] outMap, int len) {
    applyRange(prog, in, inMap, out, outMap, 0, len);
  }

  @Override
  void delta(GfProgram column, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity, int len) {
    deltaRange(column, oldData, newData, parity, 0, len);
  }

  static void xorRange(ByteBuffer[] in, int[] map, ByteBuffer out, int from, int to) {
    int op = out.position();
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long x = 0;
      for (int j = 0; j < map.length; j++) {
        ByteBuffer b = in[map[j]];
        x ^= b.getLong(b.position() + i);
      }
      out.putLong(op + i, x);
    }
    for (; i < to; i++) {
      int x = 0;
      for (int j = 0; j < map.length; j++) {
        ByteBuffer b = in[map[j]];
        x ^= b.get(b.position() + i);
      }
      out.put(op + i, (byte) x);
    }
  }

  static void pqRange(ByteBuffer[] in, int k, ByteBuffer p, ByteBuffer q, int from, int to) {
    int pp = p.position();
    int qp = q.position();
    for (int i = from; i < to; i++) {
      ByteBuffer last = in[k - 1];
      int pv = last.get(last.position() + i) & 0xff;
      int qv = pv;
      for (int j = k - 2; j >= 0; j--) {
        ByteBuffer b = in[j];
        int v = b.get(b.position() + i) & 0xff;
        pv ^= v;
        qv = (((qv << 1) ^ ((qv & 0x80) != 0 ? 0x1d : 0)) & 0xff) ^ v;
      }
      p.put(pp + i, (byte) pv);
      q.put(qp + i, (byte) qv);
    }
  }

  static void applyRange(
      GfProgram prog, ByteBuffer[] in, int[] inMap, ByteBuffer[] out, int[] outMap,
      int from, int to) {
    int cols = prog.cols;
    for (int r = 0; r < prog.rows; r++) {
      ByteBuffer o = out[outMap[r]];
      for (int j = 0; j < cols; j++) {
        // Row r accumulates one input at a time: each pass streams two buffers sequentially.
        mulAddRange(prog.coef[r * cols + j] & 0xff, in[inMap[j]], o, j == 0, from, to);
      }
    }
  }

  /** {@code o = c * b} (first) or {@code o ^= c * b}, over bytes [from, to) of both windows. */
  private static void mulAddRange(int c, ByteBuffer b, ByteBuffer o, boolean first, int from, int to) {
    int row = c << 8;
    if (b.hasArray() && o.hasArray()) {
      byte[] src = b.array();
      byte[] dst = o.array();
      int s = b.arrayOffset() + b.position();
      int d = o.arrayOffset() + o.position();
      for (int i = from; i < to; i++) {
        byte p = MUL[row | (src[s + i] & 0xff)];
        dst[d + i] = first ? p : (byte) (dst[d + i] ^ p);
      }
      return;
    }
    int bp = b.position();
    int op = o.position();
    for (int i = from; i < to; i++) {
      byte p = MUL[row | (b.get(bp + i) & 0xff)];
      o.put(op + i, first ? p : (byte) (o.get(op + i) ^ p));
    }
  }

  static void deltaRange(
      GfProgram column, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity,
      int from, int to) {
    int oldPos = oldData.position();
    int newPos = newData.position();
    for (int r = 0; r < column.rows; r++) {
      int row = (column.coef[r] & 0xff) << 8;
      ByteBuffer p = parity[r];
      int pp = p.position();
      for (int i = from; i < to; i++) {
        int d = (oldData.get(oldPos + i) ^ newData.get(newPos + i)) & 0xff;
        p.put(pp + i, (byte) (p.get(pp + i) ^ MUL[row | d]));
      }
    }
  }
}
