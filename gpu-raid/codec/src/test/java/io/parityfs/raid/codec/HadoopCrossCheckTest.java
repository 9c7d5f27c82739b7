package io.parityfs.raid.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.parityfs.raid.codec.Stripe.Memory;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.XORRawEncoder;
import org.junit.jupiter.api.Test;

/**
 * A second independent implementation: Hadoop's pure-Java coders build the same Cauchy matrix
 * (and XOR), so their parity must equal ours on random data of any size.
 */
class HadoopCrossCheckTest {

  @Test
  void reedSolomonParityEqualsHadoops() throws Exception {
    Random rnd = new Random(21);
    for (int[] km : new int[][] {{3, 2}, {6, 3}, {10, 4}, {12, 4}}) {
      CodecGeometry g = CodecGeometry.reedSolomon(km[0], km[1]);
      Stripe s = new Stripe(g, 5000 + rnd.nextInt(100), Memory.HEAP, rnd);
      CpuParityCodec.create(g).encode(s.data(), s.parity());
      ByteBuffer[] in = new ByteBuffer[g.k()];
      for (int i = 0; i < g.k(); i++) {
        in[i] = ByteBuffer.wrap(s.get(i));
      }
      ByteBuffer[] out = new ByteBuffer[g.m()];
      for (int i = 0; i < g.m(); i++) {
        out[i] = ByteBuffer.allocate(s.len);
      }
      new RSRawEncoder(new ErasureCoderOptions(g.k(), g.m())).encode(in, out);
      for (int i = 0; i < g.m(); i++) {
        assertArrayEquals(out[i].array(), s.get(g.k() + i), g + " parity " + i);
      }
    }
  }

  @Test
  void xorParityEqualsHadoops() throws Exception {
    CodecGeometry g = CodecGeometry.raid5(7);
    Stripe s = new Stripe(g, 3333, Memory.DIRECT, new Random(22));
    CpuParityCodec.create(g).encode(s.data(), s.parity());
    ByteBuffer[] in = new ByteBuffer[g.k()];
    for (int i = 0; i < g.k(); i++) {
      in[i] = ByteBuffer.wrap(s.get(i));
    }
    ByteBuffer[] out = {ByteBuffer.allocate(s.len)};
    new XORRawEncoder(new ErasureCoderOptions(g.k(), 1)).encode(in, out);
    assertArrayEquals(out[0].array(), s.get(g.k()));
  }
}
