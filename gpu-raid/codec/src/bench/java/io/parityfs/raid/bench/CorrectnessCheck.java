package io.parityfs.raid.bench;

import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.Scheme;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Checks, before anything is timed, that both sides compute the right bytes; a mismatch throws
 * {@link WrongResult} naming the case, stripe, shard and first differing byte. ParityFS works on
 * the direct blocks and Hadoop on the heap mirror, which is first checked to hold the same data.
 *
 * <ul>
 *   <li>XOR and RS: ParityFS parity equals Hadoop's byte for byte (same Cauchy matrix as ISA-L).
 *   <li>P+Q: P equals Hadoop's XOR of the data; Q equals an independent scalar Horner evaluation
 *       of sum 2^j * Dj over GF(2^8) with polynomial 0x11d (Linux md's syndrome).
 *   <li>Rebuild: the parity check above, then shards 0 and 1 restored by ParityFS and by Hadoop
 *       both equal the original data.
 * </ul>
 *
 * Output blocks are zeroed before each check so stale results cannot pass.
 */
final class CorrectnessCheck {
  private CorrectnessCheck() {}

  /** A codec produced different bytes than the reference. */
  static final class WrongResult extends RuntimeException {
    private static final long serialVersionUID = 1L;

    WrongResult(String message) {
      super(message);
    }
  }

  /**
   * Checks {@code stripe}, whose parity ParityFS has already computed into the set and which has
   * been copied to the heap mirror ({@link StripeSet#copyToHeap}).
   */
  static void check(BenchCase c, StripeSet set, int stripe, ParityCodec codec, HadoopCoder hadoop)
      throws IOException {
    ByteBuffer[] data = set.data[stripe];
    ByteBuffer[] parity = set.parity[stripe];
    ByteBuffer[] heapData = set.hadoopData[stripe];
    String where = c.id() + " stripe " + stripe;
    for (int i = 0; i < data.length; i++) {
      requireEqual(where + " heap copy of data " + i, data[i], heapData[i]);
    }
    if (c.geometry().scheme() == Scheme.PQ) {
      ByteBuffer p = zero(set.hadoopSpare(0));
      HadoopCoder.xor(c.k()).encode(heapData, new ByteBuffer[] {p});
      requireEqual(where + " P vs Hadoop XOR", p, parity[0]);
      requireEqual(where + " Q vs scalar reference", referenceQ(data, zero(set.spare(1))), parity[1]);
      return;
    }
    ByteBuffer[] expected = new ByteBuffer[c.m()];
    for (int i = 0; i < expected.length; i++) {
      expected[i] = zero(set.hadoopSpare(i));
    }
    hadoop.encode(heapData, expected);
    for (int i = 0; i < expected.length; i++) {
      requireEqual(where + " parity " + i + " vs Hadoop", expected[i], parity[i]);
    }
    if (!c.decode2()) {
      return;
    }
    for (ByteBuffer out : set.outputs[stripe]) {
      zero(out);
    }
    codec.reconstruct(set.shards[stripe], BenchCase.LOST);
    ByteBuffer[] hadoopOut = {zero(set.hadoopSpare(c.m())), zero(set.hadoopSpare(c.m() + 1))};
    hadoop.decodeLost(set.hadoopInputs[stripe], hadoopOut);
    for (int j = 0; j < BenchCase.LOST.length; j++) {
      ByteBuffer original = data[BenchCase.LOST[j]];
      requireEqual(where + " ParityFS rebuilt shard " + BenchCase.LOST[j], original,
          set.outputs[stripe][j]);
      requireEqual(where + " Hadoop rebuilt shard " + BenchCase.LOST[j], original, hadoopOut[j]);
    }
  }

  /** Q = sum over j of 2^j * Dj, by Horner's rule from the last data shard down. */
  private static ByteBuffer referenceQ(ByteBuffer[] data, ByteBuffer q) {
    int len = q.remaining();
    for (int i = 0; i < len; i++) {
      int acc = 0;
      for (int j = data.length - 1; j >= 0; j--) {
        acc = ((acc << 1) ^ ((acc & 0x80) != 0 ? 0x11d : 0)) ^ (data[j].get(i) & 0xff);
      }
      q.put(i, (byte) acc);
    }
    return q;
  }

  private static ByteBuffer zero(ByteBuffer b) {
    for (int i = 0; i < b.limit(); i += Long.BYTES) {
      b.putLong(i, 0L);
    }
    return b;
  }

  private static void requireEqual(String what, ByteBuffer expected, ByteBuffer actual) {
    int at = expected.mismatch(actual);
    if (at >= 0) {
      throw new WrongResult(String.format(
          "%s: differs at byte %d (expected 0x%02x, got 0x%02x)", what, at,
          expected.get(at) & 0xff, actual.get(at) & 0xff));
    }
  }
}
