package io.parityfs.node.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * 1 MiB data frames cut into socket reads of random sizes, each frame's bytes keyed by its index,
 * come out of the decoder with exactly their own bytes through {@code nioBuffers()}, also while
 * the frames decoded before are still held (their slices share the cumulation buffer with the
 * frame being cumulated), and every read is released once the frames are. The guard for any
 * change to how the decoder cumulates. And the cumulation's two promises (docs/data-path.md): large
 * reads reach the handler as they came, without a copy; small reads are copied, so a peer that
 * cuts a frame into tiny segments makes the node hold neither its reads nor a component per read.
 */
class FrameCumulationTest {
  private static final int FRAMES = 6;
  private static final int PAYLOAD = 1 << 20;

  private static byte[] payload(int frame) {
    byte[] b = new byte[PAYLOAD];
    new Random(1000 + frame).nextBytes(b);
    b[0] = (byte) frame;
    return b;
  }

  private static byte[] wire(Role to) {
    return wire(to, FRAMES);
  }

  private static byte[] wire(Role to, int frames) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int f = 0; f < frames; f++) {
      out.writeBytes(Frames.encode(new DataFrame(7, to == Role.CLIENT, f == frames - 1,
          Frames.wrap(payload(f)))));
    }
    return out.toByteArray();
  }

  private static byte[] bytesOf(DataFrame d) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (ByteBuffer b : d.content().nioBuffers()) {
      byte[] part = new byte[b.remaining()];
      b.get(part);
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  @Test
  void randomReadsDecodeToTheirOwnBytesWhileEarlierFramesAreHeld() {
    for (Role role : Role.values()) {
      byte[] wire = wire(role);
      for (long seed = 1; seed <= 3; seed++) {
        Random rnd = new Random(seed);
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(role));
        List<ByteBuf> fed = new ArrayList<>();
        List<DataFrame> held = new ArrayList<>();
        for (int i = 0; i < wire.length; ) {
          int n = Math.min(wire.length - i, 1 + rnd.nextInt(96 << 10));
          ByteBuf buf = ch.alloc().directBuffer(n).writeBytes(wire, i, n);
          fed.add(buf);
          ch.writeInbound(buf);
          i += n;
          for (Object o; (o = ch.readInbound()) != null; ) {
            held.add(assertInstanceOf(DataFrame.class, o)); // kept: later reads must not move it
          }
        }
        ch.checkException();
        assertEquals(FRAMES, held.size(), role + " seed " + seed);
        for (int f = 0; f < FRAMES; f++) {
          assertArrayEquals(payload(f), bytesOf(held.get(f)),
              role + " seed " + seed + " frame " + f);
          assertEquals(f == FRAMES - 1, held.get(f).isEnd());
        }
        assertTrue(fed.size() > FRAMES, "frames span reads");
        held.forEach(DataFrame::release);
        ch.finishAndReleaseAll();
        for (ByteBuf b : fed) {
          assertEquals(0, b.refCnt(), "a read was not released");
        }
      }
    }
  }

  /** Feeds {@code wire} in reads of {@code size} bytes, each in a buffer of {@code capacity}. */
  private static List<ByteBuf> feed(EmbeddedChannel ch, byte[] wire, int size, int capacity) {
    List<ByteBuf> fed = new ArrayList<>();
    for (int i = 0; i < wire.length; i += size) {
      int n = Math.min(size, wire.length - i);
      ByteBuf buf = ch.alloc().directBuffer(Math.max(n, capacity)).writeBytes(wire, i, n);
      fed.add(buf);
      ch.writeInbound(buf);
    }
    return fed;
  }

  @Test
  void largeReadsReachTheHandlerAsTheyCame() {
    byte[] wire = Frames.encode(new DataFrame(7, false, true, Frames.wrap(payload(0))));
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Role.NODE));
    List<ByteBuf> fed = feed(ch, wire, 64 << 10, 64 << 10);
    assertTrue(fed.size() > 16);
    DataFrame d = assertInstanceOf(DataFrame.class, ch.readInbound());
    assertNull(ch.readInbound());
    assertArrayEquals(payload(0), bytesOf(d));
    assertTrue(d.content().nioBufferCount() >= fed.size() - 1,
        "the frame's bytes are the reads' own: " + d.content().nioBufferCount() + " pieces");
    for (ByteBuf b : fed.subList(0, fed.size() - 1)) {
      assertTrue(b.refCnt() > 0, "a read the frame is made of was released (copied)");
    }
    d.release();
    ch.finishAndReleaseAll();
    for (ByteBuf b : fed) {
      assertEquals(0, b.refCnt(), "a read was not released");
    }
  }

  @Test
  void smallReadsAreCopiedSoTinySegmentsHoldNeitherReadsNorAPiecePerRead() {
    // {read size, its buffer's capacity, frames}: tiny segments; small reads in large buffers;
    // reads over KEEP that fill under half of their buffer
    for (int[] cut : new int[][] {{16, 64, 1}, {100, 64 << 10, FRAMES}, {9000, 32 << 10, FRAMES}}) {
      byte[] wire = wire(Role.NODE, cut[2]);
      EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Role.NODE));
      List<DataFrame> held = new ArrayList<>();
      for (int i = 0; i < wire.length; i += cut[0]) {
        int n = Math.min(cut[0], wire.length - i);
        ByteBuf buf = ch.alloc().directBuffer(Math.max(n, cut[1])).writeBytes(wire, i, n);
        ch.writeInbound(buf);
        assertEquals(0, buf.refCnt(), "a small read is held: " + n + " bytes of " + cut[1]);
        for (Object o; (o = ch.readInbound()) != null; ) {
          held.add(assertInstanceOf(DataFrame.class, o));
        }
      }
      assertEquals(cut[2], held.size());
      for (int f = 0; f < cut[2]; f++) {
        assertArrayEquals(payload(f), bytesOf(held.get(f)), "frame " + f);
        int pieces = held.get(f).content().nioBufferCount();
        assertTrue(pieces <= PAYLOAD / FrameDecoder.TAIL + 2 + FrameFormat.FIXED_LENGTH,
            "reads of " + cut[0] + " bytes: frame " + f + " in " + pieces + " pieces");
      }
      held.forEach(DataFrame::release);
      ch.finishAndReleaseAll();
    }
  }
}
