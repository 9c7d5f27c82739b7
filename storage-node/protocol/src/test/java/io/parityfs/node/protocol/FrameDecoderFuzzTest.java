package io.parityfs.node.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random byte strings and mutated golden frames through the decoder, in random pieces: the only
 * outputs are messages and FrameErrors, nothing is thrown, every input buffer is released, and
 * nothing leaks (the leak extension checks at PARANOID). Seeded, so a failure can be replayed.
 */
class FrameDecoderFuzzTest {
  private static final long SEED = Long.getLong("fuzz.seed", 20240601L);

  @Test
  void randomBytes() {
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      Random rnd = new Random(SEED);
      for (int i = 0; i < 3000; i++) {
        byte[] b = new byte[rnd.nextInt(200)];
        rnd.nextBytes(b);
        if (rnd.nextBoolean() && b.length >= 5) {
          // Mostly valid start, so the fuzzing reaches past the magic and version checks.
          b[0] = 'P'; b[1] = 'F'; b[2] = 'S'; b[3] = 'N'; b[4] = 1;
        }
        feed(rnd, b, rnd.nextBoolean() ? Role.NODE : Role.CLIENT);
      }
    });
  }

  @Test
  void mutatedGoldenFrames() throws IOException {
    List<byte[]> golden = new ArrayList<>();
    for (String name : GoldenFrames.all().keySet()) {
      golden.addAll(Hex.parseFrames(read(name)));
    }
    Frames.releaseAll(GoldenFrames.all().values().stream().flatMap(List::stream).toList());
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      Random rnd = new Random(SEED);
      for (int i = 0; i < 6000; i++) {
        byte[] f = golden.get(rnd.nextInt(golden.size())).clone();
        byte[] input = mutate(rnd, f);
        feed(rnd, input, rnd.nextBoolean() ? Role.NODE : Role.CLIENT);
      }
    });
  }

  private static byte[] mutate(Random rnd, byte[] f) {
    switch (rnd.nextInt(5)) {
      case 0: // flip bits
        for (int k = 0, n = 1 + rnd.nextInt(4); k < n; k++) {
          f[rnd.nextInt(f.length)] ^= (byte) (1 << rnd.nextInt(8));
        }
        return f;
      case 1: // truncate
        return java.util.Arrays.copyOf(f, rnd.nextInt(f.length));
      case 2: { // mutate a field, then fix the header CRC so the decoder looks deeper
        int at = 5 + rnd.nextInt(Math.max(1, f.length - 5));
        if (at >= 32 && at < 36) {
          at = 5;
        }
        f[at] = (byte) rnd.nextInt(256);
        fixHeaderCrc(f);
        return f;
      }
      case 3: { // two frames back to back, the second damaged
        byte[] g = f.clone();
        g[rnd.nextInt(g.length)] ^= 0x20;
        byte[] both = java.util.Arrays.copyOf(f, f.length * 2);
        System.arraycopy(g, 0, both, f.length, g.length);
        return both;
      }
      default: { // random lengths, valid CRC
        java.nio.ByteBuffer.wrap(f).putInt(20 + 4 * rnd.nextInt(2), rnd.nextInt());
        fixHeaderCrc(f);
        return f;
      }
    }
  }

  private static void fixHeaderCrc(byte[] f) {
    if (f.length < FrameFormat.FIXED_LENGTH) {
      return;
    }
    long h = java.nio.ByteBuffer.wrap(f).getInt(20) & 0xFFFFFFFFL;
    int covered = (int) Math.min(h, f.length - FrameFormat.FIXED_LENGTH);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(f, 0, 32);
    crc.update(f, FrameFormat.FIXED_LENGTH, covered);
    java.nio.ByteBuffer.wrap(f).putInt(32, (int) crc.getValue());
  }

  private static void feed(Random rnd, byte[] input, Role role) {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(role));
    List<ByteBuf> fed = new ArrayList<>();
    try {
      for (int i = 0; i < input.length; ) {
        int n = Math.min(input.length - i, 1 + rnd.nextInt(64));
        ByteBuf buf = ch.alloc().directBuffer(n).writeBytes(input, i, n);
        fed.add(buf);
        ch.writeInbound(buf);
        i += n;
      }
      ch.checkException();
      boolean fatalSeen = false;
      for (Object o; (o = ch.readInbound()) != null; ) {
        try {
          assertFalse(fatalSeen, "output after a fatal error");
          if (o instanceof FrameError e) {
            fatalSeen = e.fatal();
            assertTrue(e.status() != Status.OK);
          } else if (!(o instanceof Message)) {
            fail("unexpected output " + o);
          }
        } finally {
          ReferenceCountUtil.release(o);
        }
      }
    } finally {
      ch.finishAndReleaseAll();
    }
    for (ByteBuf b : fed) {
      assertEquals(0, b.refCnt(), "an input buffer was not released");
    }
  }

  private static String read(String name) throws IOException {
    try (InputStream in = FrameDecoderFuzzTest.class.getResourceAsStream("/golden/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
