package io.parityfs.raid.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * Test stripes: k+m shard buffers, each a window (position..limit) inside a larger buffer with
 * guard bytes on both sides, so tests catch codecs that write outside the window or move
 * positions. Heap and direct buffers alternate when {@code mixed}.
 */
public final class Stripe {
  static final byte GUARD = (byte) 0xA5;
  static final int PAD = 19;

  final CodecGeometry g;
  final ByteBuffer[] shards;
  final int len;

  public enum Memory { HEAP, DIRECT, MIXED }

  public Stripe(CodecGeometry g, int len, Memory memory, Random rnd) {
    this.g = g;
    this.len = len;
    this.shards = new ByteBuffer[g.shards()];
    for (int i = 0; i < shards.length; i++) {
      boolean direct = memory == Memory.DIRECT || (memory == Memory.MIXED && i % 2 == 1);
      int pad = PAD + (i % 3);
      ByteBuffer b = direct ? ByteBuffer.allocateDirect(len + 2 * pad) : ByteBuffer.allocate(len + 2 * pad);
      for (int j = 0; j < b.capacity(); j++) {
        b.put(j, GUARD);
      }
      b.position(pad).limit(pad + len);
      if (i < g.k()) {
        for (int j = 0; j < len; j++) {
          b.put(pad + j, (byte) rnd.nextInt(256));
        }
      }
      shards[i] = b;
    }
  }

  /** A stripe holding the given shard contents (k+m arrays of equal length). */
  public static Stripe of(CodecGeometry g, byte[][] content, Memory memory) {
    Stripe s = new Stripe(g, content[0].length, memory, new Random(0));
    for (int i = 0; i < content.length; i++) {
      s.set(i, content[i]);
    }
    return s;
  }

  public ByteBuffer[] data() {
    return Arrays.copyOfRange(shards, 0, g.k());
  }

  public ByteBuffer[] parity() {
    return Arrays.copyOfRange(shards, g.k(), g.shards());
  }

  /** The bytes of shard i (its window only). */
  public byte[] get(int i) {
    byte[] out = new byte[len];
    ByteBuffer b = shards[i];
    for (int j = 0; j < len; j++) {
      out[j] = b.get(b.position() + j);
    }
    return out;
  }

  public void set(int i, byte[] content) {
    ByteBuffer b = shards[i];
    for (int j = 0; j < len; j++) {
      b.put(b.position() + j, content[j]);
    }
  }

  /** Overwrites shard i's window with junk so a restore that skips it is caught. */
  public void scramble(int i, Random rnd) {
    byte[] junk = new byte[len];
    rnd.nextBytes(junk);
    set(i, junk);
  }

  /** Checks positions, limits and guard bytes are untouched; returns an error or null. */
  public String damage() {
    for (int i = 0; i < shards.length; i++) {
      ByteBuffer b = shards[i];
      int pad = PAD + (i % 3);
      if (b.position() != pad || b.limit() != pad + len) {
        return "shard " + i + " position/limit moved to " + b.position() + "/" + b.limit();
      }
      ByteBuffer whole = b.duplicate().clear();
      for (int j = 0; j < pad; j++) {
        if (whole.get(j) != GUARD || whole.get(pad + len + j) != GUARD) {
          return "shard " + i + " written outside its window";
        }
      }
    }
    return null;
  }
}
