package io.parityfs.raid.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.XORRawEncoder;

/**
 * Hadoop's pure-Java raw coders (hadoop-common), driven over heap buffers (the {@link BlockPool}
 * heap mirror): Hadoop takes its byte-array path when the buffers have arrays, which is faster
 * than its direct-buffer path (RS 10+4, GB/s: 0.43 vs 0.35 on JDK 17, 0.43 vs 0.05 on JDK 25), so
 * each side runs on its best path. All buffers of one call must be heap, or Hadoop rejects them.
 * Hadoop's {@code encode} and {@code decode} advance the input positions by the bytes consumed;
 * every call here puts all positions back to 0 afterwards (the blocks are exactly 1 MiB), which
 * costs a few nanoseconds per buffer.
 */
final class HadoopCoder {
  private final RawErasureEncoder encoder;
  private final RSRawDecoder decoder;
  private final int[] erased = BenchCase.LOST.clone();

  private HadoopCoder(RawErasureEncoder encoder, RSRawDecoder decoder) {
    this.encoder = encoder;
    this.decoder = decoder;
  }

  /** The coder a case is compared with: XOR for RAID-5, else RS with the same k and m. */
  static HadoopCoder forCase(BenchCase c) {
    ErasureCoderOptions options = new ErasureCoderOptions(c.k(), c.m());
    if (c.hadoopXor()) {
      return new HadoopCoder(new XORRawEncoder(options), null);
    }
    return new HadoopCoder(new RSRawEncoder(options), c.decode2() ? new RSRawDecoder(options) : null);
  }

  /** Hadoop's XOR coder over k data units: P of a P+Q stripe, for the correctness check. */
  static HadoopCoder xor(int k) {
    return new HadoopCoder(new XORRawEncoder(new ErasureCoderOptions(k, 1)), null);
  }

  void encode(ByteBuffer[] data, ByteBuffer[] parity) throws IOException {
    encoder.encode(data, parity);
    rewind(data);
    rewind(parity);
  }

  /**
   * Restores {@link BenchCase#LOST} into {@code outputs}.
   *
   * @param inputs k+m entries, exactly k non-null
   */
  void decodeLost(ByteBuffer[] inputs, ByteBuffer[] outputs) throws IOException {
    decoder.decode(inputs, erased, outputs);
    rewind(inputs);
    rewind(outputs);
  }

  private static void rewind(ByteBuffer[] buffers) {
    for (ByteBuffer b : buffers) {
      if (b != null) {
        b.position(0);
      }
    }
  }
}
