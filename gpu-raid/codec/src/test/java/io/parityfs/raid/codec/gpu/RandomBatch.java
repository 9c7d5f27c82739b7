package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import java.nio.ByteBuffer;
import java.util.Random;

/**
 * Random stripes for batch tests: stripe s has shards of {@code lens[s]} bytes, each a window
 * (position {@value #PAD}) inside a larger heap or direct buffer, alternating.
 */
final class RandomBatch {
  static final int PAD = 7;

  final CodecGeometry g;
  final ByteBuffer[][] shards;
  final int[] lens;

  RandomBatch(CodecGeometry g, int[] lens, Random rnd) {
    this.g = g;
    this.lens = lens;
    this.shards = new ByteBuffer[lens.length][g.shards()];
    for (int s = 0; s < lens.length; s++) {
      for (int i = 0; i < g.shards(); i++) {
        int cap = lens[s] + 2 * PAD;
        ByteBuffer b = (s + i) % 2 == 0 ? ByteBuffer.allocate(cap) : ByteBuffer.allocateDirect(cap);
        for (int j = 0; j < cap; j++) {
          b.put(j, (byte) rnd.nextInt(256));
        }
        shards[s][i] = b.position(PAD).limit(PAD + lens[s]);
      }
    }
  }

  static RandomBatch sameLength(CodecGeometry g, int stripes, int len, Random rnd) {
    int[] lens = new int[stripes];
    java.util.Arrays.fill(lens, len);
    return new RandomBatch(g, lens, rnd);
  }

  ByteBuffer[][] data() {
    ByteBuffer[][] d = new ByteBuffer[shards.length][];
    for (int s = 0; s < shards.length; s++) {
      d[s] = java.util.Arrays.copyOfRange(shards[s], 0, g.k());
    }
    return d;
  }

  ByteBuffer[][] parity() {
    ByteBuffer[][] p = new ByteBuffer[shards.length][];
    for (int s = 0; s < shards.length; s++) {
      p[s] = java.util.Arrays.copyOfRange(shards[s], g.k(), g.shards());
    }
    return p;
  }

  /** The window of shard i of stripe s. */
  byte[] get(int s, int i) {
    byte[] out = new byte[lens[s]];
    shards[s][i].duplicate().get(out);
    return out;
  }

  /** Every byte of shard i of stripe s's whole buffer, guard bytes included. */
  byte[] whole(int s, int i) {
    ByteBuffer b = shards[s][i].duplicate().clear();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  /** Overwrites shard i of stripe s's window with junk. */
  void scramble(int s, int i, Random rnd) {
    for (int j = 0; j < lens[s]; j++) {
      shards[s][i].put(PAD + j, (byte) rnd.nextInt(256));
    }
  }

  /** The CPU codec's parity for stripe s. */
  byte[][] cpuParity(int s) {
    ParityCodec cpu = CpuParityCodec.create(g);
    ByteBuffer[] parity = new ByteBuffer[g.m()];
    for (int r = 0; r < g.m(); r++) {
      parity[r] = ByteBuffer.allocate(lens[s]);
    }
    cpu.encode(java.util.Arrays.copyOfRange(shards[s], 0, g.k()), parity);
    byte[][] out = new byte[g.m()][];
    for (int r = 0; r < g.m(); r++) {
      out[r] = parity[r].array();
    }
    return out;
  }

  void assertPositionsUntouched() {
    for (ByteBuffer[] stripe : shards) {
      for (ByteBuffer b : stripe) {
        assertEquals(PAD, b.position());
      }
    }
  }
}
