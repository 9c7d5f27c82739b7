package io.parityfs.node.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/** Encoding and decoding through EmbeddedChannels, for tests. */
final class Frames {
  private Frames() {}

  /** The bytes of {@code msg} as the encoder writes them (releases {@code msg}). */
  static byte[] encode(Message msg) {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameEncoder());
    ch.writeOutbound(msg);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
      byte[] bytes = new byte[b.readableBytes()];
      b.readBytes(bytes);
      b.release();
      out.writeBytes(bytes);
    }
    ch.finishAndReleaseAll();
    return out.toByteArray();
  }

  /** Everything the decoder emits for {@code bytes}, fed in pieces of {@code step} bytes. */
  static List<Object> decode(Role role, byte[] bytes, int step) {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(role));
    for (int i = 0; i < bytes.length; i += step) {
      int n = Math.min(step, bytes.length - i);
      ByteBuf buf = ch.alloc().directBuffer(n).writeBytes(bytes, i, n);
      ch.writeInbound(buf);
    }
    List<Object> out = new ArrayList<>();
    for (Object o; (o = ch.readInbound()) != null; ) {
      out.add(o);
    }
    ch.finishAndReleaseAll();
    return out;
  }

  static List<Object> decode(Role role, byte[] bytes) {
    return decode(role, bytes, Math.max(1, bytes.length));
  }

  static void releaseAll(List<?> objects) {
    objects.forEach(ReferenceCountUtil::release);
  }

  static ByteBuf wrap(byte[] bytes) {
    return Unpooled.wrappedBuffer(bytes);
  }
}
