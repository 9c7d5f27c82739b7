package io.parityfs.node.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
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
 * change to how the decoder cumulates (docs/data-path.md tried a composite cumulation).
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
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int f = 0; f < FRAMES; f++) {
      out.writeBytes(Frames.encode(new DataFrame(7, to == Role.CLIENT, f == FRAMES - 1,
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
}
