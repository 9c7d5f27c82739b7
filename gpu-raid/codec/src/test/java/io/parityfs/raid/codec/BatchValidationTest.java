package io.parityfs.raid.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.parityfs.raid.codec.Stripe.Memory;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The batch calls of {@link AbstractParityCodec} (on the CPU codec, whose batch hooks loop) and
 * the interface's default batch methods: results equal single calls, every stripe is validated
 * before any byte is written, errors name the stripe, and stripes must be independent.
 */
class BatchValidationTest {
  private static final CodecGeometry G = CodecGeometry.reedSolomon(4, 2);
  private final ParityCodec codec = CpuParityCodec.create(G);

  @Test
  void aBatchEqualsSingleCalls() {
    Random rnd = new Random(51);
    Stripe[] stripes = {new Stripe(G, 100, Memory.MIXED, rnd), new Stripe(G, 1, Memory.HEAP, rnd),
        new Stripe(G, 0, Memory.DIRECT, rnd), new Stripe(G, 333, Memory.MIXED, rnd)};
    codec.encodeBatch(data(stripes), parity(stripes));
    for (Stripe s : stripes) {
      Stripe fresh = Stripe.of(G, contents(s), Memory.HEAP);
      codec.encode(fresh.data(), fresh.parity());
      for (int p = G.k(); p < G.shards(); p++) {
        assertArrayEquals(fresh.get(p), s.get(p));
      }
    }
    byte[][][] want = new byte[stripes.length][][];
    ByteBuffer[][] shards = new ByteBuffer[stripes.length][];
    for (int i = 0; i < stripes.length; i++) {
      want[i] = contents(stripes[i]);
      shards[i] = stripes[i].shards.clone();
      stripes[i].scramble(1, rnd);
    }
    shards[3][2] = null; // a different survivor set in one stripe
    codec.reconstructBatch(shards, new int[] {1});
    for (int i = 0; i < stripes.length; i++) {
      assertArrayEquals(want[i][1], stripes[i].get(1));
    }
  }

  @Test
  void aBadStripeIsNamedAndNothingIsWritten() {
    Random rnd = new Random(52);
    Stripe a = new Stripe(G, 50, Memory.HEAP, rnd);
    Stripe b = new Stripe(G, 50, Memory.HEAP, rnd);
    byte[][] before = contents(a);
    ByteBuffer[][] d = data(a, b);
    d[1][2] = null;
    expect("stripe 1: data[2] is null", () -> codec.encodeBatch(d, parity(a, b)));
    expect("data has 2 stripes but parity has 1",
        () -> codec.encodeBatch(data(a, b), parity(a)));
    ByteBuffer[][] sh = {a.shards.clone(), java.util.Arrays.copyOf(b.shards, 5)};
    expect("stripe 1: shards has 5 buffers, expected 6",
        () -> codec.reconstructBatch(sh, new int[] {0}));
    expect("target shard 9 is out of range 0..5",
        () -> codec.reconstructBatch(new ByteBuffer[][] {a.shards.clone()}, new int[] {9}));
    expect("shards batch must not be null", () -> codec.reconstructBatch(null, new int[] {0}));
    for (int i = 0; i < before.length; i++) {
      assertArrayEquals(before[i], a.get(i), "stripe 0 shard " + i + " was written");
    }
  }

  @Test
  void stripesMustBeIndependent() {
    Random rnd = new Random(53);
    Stripe a = new Stripe(G, 50, Memory.HEAP, rnd);
    Stripe b = new Stripe(G, 50, Memory.HEAP, rnd);
    ByteBuffer[][] p = parity(a, b);
    p[1][0] = a.shards[G.k()];
    expect("stripe 1: an output buffer is also an output of stripe 0",
        () -> codec.encodeBatch(data(a, b), p));
    ByteBuffer[][] d = data(a, b);
    d[1][3] = a.shards[G.k() + 1];
    expect("stripe 1: input shard 3 is an output of stripe 0",
        () -> codec.encodeBatch(d, parity(a, b)));
    ByteBuffer[][] sh = {a.shards.clone(), b.shards.clone()};
    sh[1][2] = a.shards[0];
    expect("stripe 1: input shard 2 is an output of stripe 0",
        () -> codec.reconstructBatch(sh, new int[] {0}));
    // Sharing an input between stripes is fine.
    ByteBuffer[][] shared = data(a, b);
    shared[1][0] = a.shards[0];
    codec.encodeBatch(shared, parity(a, b));
  }

  @Test
  void theInterfaceDefaultsLoopOverSingleCalls() {
    ParityCodec plain = new ParityCodec() {
      @Override
      public CodecGeometry geometry() {
        return G;
      }

      @Override
      public String implementation() {
        return "plain";
      }

      @Override
      public void encode(ByteBuffer[] data, ByteBuffer[] parity) {
        codec.encode(data, parity);
      }

      @Override
      public void reconstruct(ByteBuffer[] shards, int[] targets) {
        codec.reconstruct(shards, targets);
      }

      @Override
      public void updateParity(int i, ByteBuffer o, ByteBuffer n, ByteBuffer[] parity) {
        codec.updateParity(i, o, n, parity);
      }
    };
    Random rnd = new Random(54);
    Stripe a = new Stripe(G, 77, Memory.MIXED, rnd);
    Stripe b = new Stripe(G, 78, Memory.MIXED, rnd);
    plain.encodeBatch(data(a, b), parity(a, b));
    byte[][] want = contents(b);
    b.scramble(0, rnd);
    plain.reconstructBatch(new ByteBuffer[][] {a.shards.clone(), b.shards.clone()}, new int[] {0});
    assertArrayEquals(want[0], b.get(0));
    expect("data has 1 stripes but parity has 2", () -> plain.encodeBatch(data(a), parity(a, b)));
  }

  private static void expect(String message, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertEquals(message, e.getMessage().substring(0, Math.min(message.length(), e.getMessage().length())),
        e.getMessage());
  }

  private static ByteBuffer[][] data(Stripe... s) {
    ByteBuffer[][] d = new ByteBuffer[s.length][];
    for (int i = 0; i < s.length; i++) {
      d[i] = s[i].data();
    }
    return d;
  }

  private static ByteBuffer[][] parity(Stripe... s) {
    ByteBuffer[][] p = new ByteBuffer[s.length][];
    for (int i = 0; i < s.length; i++) {
      p[i] = s[i].parity();
    }
    return p;
  }

  private static byte[][] contents(Stripe s) {
    byte[][] c = new byte[s.shards.length][];
    for (int i = 0; i < c.length; i++) {
      c[i] = s.get(i);
    }
    return c;
  }
}
