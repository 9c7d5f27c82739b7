package io.parityfs.raid.codec.gpu;

import java.nio.ByteBuffer;

/**
 * A line-by-line Java port of the four kernels of {@code parity_kernels.cu}, over emulated device
 * memory (little-endian {@code ByteBuffer}s), run with the grid-stride loop of the real kernels:
 * every (block, thread) pair of the launch starts at its global index and strides by the grid.
 */
final class EmulatedKernels {
  private EmulatedKernels() {}

  /** A 32-bit word array in emulated device memory: {@code buffer} from byte {@code base}. */
  record Words(ByteBuffer buffer, int base) {
    int get(long i) {
      return buffer.getInt(Math.toIntExact(base + i * 4));
    }

    void set(long i, int v) {
      buffer.putInt(Math.toIntExact(base + i * 4), v);
    }

    int byteAt(long i) {
      return buffer.get(Math.toIntExact(base + i)) & 0xff;
    }
  }

  /** The body of one kernel for global thread index {@code g}. */
  interface Body {
    void run(long g);
  }

  static void gridStride(int grid, int block, long total, Body body) {
    long stride = (long) grid * block;
    for (int b = 0; b < grid; b++) {
      for (int t = 0; t < block; t++) {
        for (long g = (long) b * block + t; g < total; g += stride) {
          body.run(g);
        }
      }
    }
  }

  static int mul2(int x) {
    int high = (x >>> 7) & 0x01010101;
    return ((x & 0x7f7f7f7f) << 1) ^ (high * 0x1d);
  }

  static int mulDoublings(int[] d, int c) {
    int acc = 0;
    for (int b = 0; b < 8; b++) {
      if ((c & (1 << b)) != 0) {
        acc ^= d[b];
      }
    }
    return acc;
  }

  static int[] doublings(int x) {
    int[] d = new int[8];
    d[0] = x;
    for (int b = 1; b < 8; b++) {
      d[b] = mul2(d[b - 1]);
    }
    return d;
  }

  static void xor(int grid, int block, Words in, Words out, int cols, long words, long stripes) {
    gridStride(grid, block, words * stripes, g -> {
      long s = g / words;
      long w = g - s * words;
      long src = s * cols * words + w;
      int acc = in.get(src);
      for (int j = 1; j < cols; j++) {
        acc ^= in.get(src + j * words);
      }
      out.set(s * words + w, acc);
    });
  }

  static void pq(int grid, int block, Words in, Words out, int k, long words, long stripes) {
    gridStride(grid, block, words * stripes, g -> {
      long s = g / words;
      long w = g - s * words;
      long src = s * k * words + w;
      int p = in.get(src + (k - 1) * words);
      int q = p;
      for (int j = k - 2; j >= 0; j--) {
        int v = in.get(src + j * words);
        p ^= v;
        q = mul2(q) ^ v;
      }
      out.set((s * 2) * words + w, p);
      out.set((s * 2 + 1) * words + w, q);
    });
  }

  static void gfApply(int grid, int block, Words in, Words out, Words coef, int rows, int cols,
      long words, long stripes) {
    gridStride(grid, block, words * stripes, g -> {
      long s = g / words;
      long w = g - s * words;
      long src = s * cols * words + w;
      long dst = s * rows * words + w;
      int[] acc = new int[rows];
      for (int j = 0; j < cols; j++) {
        int[] d = doublings(in.get(src + j * words));
        for (int r = 0; r < rows; r++) {
          acc[r] ^= mulDoublings(d, coef.byteAt((long) r * cols + j));
        }
      }
      for (int r = 0; r < rows; r++) {
        out.set(dst + r * words, acc[r]);
      }
    });
  }

  static void delta(int grid, int block, Words oldData, Words newData, Words out, Words coef,
      int rows, long words, long stripes) {
    gridStride(grid, block, words * stripes, g -> {
      long s = g / words;
      long w = g - s * words;
      int[] d = doublings(oldData.get(s * words + w) ^ newData.get(s * words + w));
      for (int r = 0; r < rows; r++) {
        long at = (s * rows + r) * words + w;
        out.set(at, out.get(at) ^ mulDoublings(d, coef.byteAt(r)));
      }
    });
  }
}
