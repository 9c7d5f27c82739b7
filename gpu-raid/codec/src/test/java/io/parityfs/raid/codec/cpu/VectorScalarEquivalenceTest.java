package io.parityfs.raid.codec.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Random geometries, lengths and erasures: the vector and scalar kernels agree byte for byte. */
class VectorScalarEquivalenceTest {

  @Test
  void vectorAndScalarKernelsProduceIdenticalBytes() {
    Random rnd = new Random(42);
    for (int round = 0; round < 150; round++) {
      CodecGeometry g = randomGeometry(rnd);
      int len = rnd.nextInt(4) == 0 ? rnd.nextInt(200) + 1 : rnd.nextInt(20000) + 1;
      ParityCodec vector = CpuParityCodec.create(g, CpuParityCodec.Kernels.VECTOR);
      ParityCodec scalar = CpuParityCodec.create(g, CpuParityCodec.Kernels.SCALAR);
      byte[][] data = new byte[g.k()][len];
      for (byte[] d : data) {
        rnd.nextBytes(d);
      }
      byte[][] pv = encode(vector, g, data, len);
      byte[][] ps = encode(scalar, g, data, len);
      for (int p = 0; p < g.m(); p++) {
        assertArrayEquals(ps[p], pv[p], g + " len " + len + " parity " + p);
      }
      // Reconstruct the same random pattern both ways.
      int lost = 1 + rnd.nextInt(g.m());
      long mask = 0;
      while (Long.bitCount(mask) < lost) {
        mask |= 1L << rnd.nextInt(g.shards());
      }
      byte[][] rv = restore(vector, g, data, pv, mask, len);
      byte[][] rs = restore(scalar, g, data, ps, mask, len);
      for (int i = 0; i < g.shards(); i++) {
        assertArrayEquals(rs[i], rv[i], g + " len " + len + " restoring shard " + i);
      }
      // Delta-update one data shard both ways.
      int idx = rnd.nextInt(g.k());
      byte[] next = new byte[len];
      rnd.nextBytes(next);
      ByteBuffer[] parV = wrap(pv);
      ByteBuffer[] parS = wrap(ps);
      vector.updateParity(idx, ByteBuffer.wrap(data[idx]), ByteBuffer.wrap(next), parV);
      scalar.updateParity(idx, ByteBuffer.wrap(data[idx]), ByteBuffer.wrap(next), parS);
      for (int p = 0; p < g.m(); p++) {
        assertArrayEquals(parS[p].array(), parV[p].array(), g + " delta parity " + p);
      }
    }
  }

  private static CodecGeometry randomGeometry(Random rnd) {
    return switch (rnd.nextInt(3)) {
      case 0 -> CodecGeometry.raid5(1 + rnd.nextInt(63));
      case 1 -> CodecGeometry.raid6(1 + rnd.nextInt(62));
      default -> {
        int m = 1 + rnd.nextInt(16);
        yield CodecGeometry.reedSolomon(1 + rnd.nextInt(64 - m), m);
      }
    };
  }

  private static byte[][] encode(ParityCodec c, CodecGeometry g, byte[][] data, int len) {
    ByteBuffer[] d = new ByteBuffer[g.k()];
    for (int i = 0; i < d.length; i++) {
      // Direct for even shards, heap for odd: both load paths in one call.
      d[i] = i % 2 == 0 ? ByteBuffer.allocateDirect(len).put(data[i]).flip() : ByteBuffer.wrap(data[i]);
    }
    byte[][] parity = new byte[g.m()][len];
    c.encode(d, wrap(parity));
    return parity;
  }

  private static byte[][] restore(
      ParityCodec c, CodecGeometry g, byte[][] data, byte[][] parity, long mask, int len) {
    ByteBuffer[] shards = new ByteBuffer[g.shards()];
    byte[][] out = new byte[g.shards()][];
    int[] targets = new int[Long.bitCount(mask)];
    for (int i = 0, t = 0; i < g.shards(); i++) {
      byte[] content = i < g.k() ? data[i] : parity[i - g.k()];
      out[i] = (mask & (1L << i)) != 0 ? new byte[len] : content;
      shards[i] = ByteBuffer.wrap(out[i]);
      if ((mask & (1L << i)) != 0) {
        targets[t++] = i;
      }
    }
    c.reconstruct(shards, targets);
    return out;
  }

  private static ByteBuffer[] wrap(byte[][] arrays) {
    ByteBuffer[] b = new ByteBuffer[arrays.length];
    for (int i = 0; i < b.length; i++) {
      b[i] = ByteBuffer.wrap(arrays[i]);
    }
    return b;
  }
}
