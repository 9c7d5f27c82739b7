package io.parityfs.node.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Sits before the decoder and follows the frame boundaries of the bytes received (from the fixed
 * part's two lengths, at offsets 20 and 24), so the idle check can tell whether the connection
 * holds a partial frame. Does not touch the bytes; the decoder does all validation (a garbage
 * length here only matters until the decoder condemns the connection). Event loop only.
 */
final class FrameTracker extends ChannelInboundHandlerAdapter {
  private static final int FIXED = 36;
  private final byte[] fixed = new byte[FIXED];
  private int fixedHave;
  private long remaining;

  /** Whether bytes of an incomplete frame have been received. */
  boolean midFrame() {
    return fixedHave > 0 || remaining > 0;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf b) {
      scan(b);
    }
    ctx.fireChannelRead(msg);
  }

  private void scan(ByteBuf b) {
    int i = b.readerIndex();
    int end = b.writerIndex();
    while (i < end) {
      if (remaining > 0) {
        int take = (int) Math.min(remaining, end - i);
        remaining -= take;
        i += take;
        continue;
      }
      fixed[fixedHave++] = b.getByte(i++);
      if (fixedHave == FIXED) {
        fixedHave = 0;
        remaining = unsigned(20) + unsigned(24);
      }
    }
  }

  private long unsigned(int off) {
    return ((fixed[off] & 0xFFL) << 24) | ((fixed[off + 1] & 0xFFL) << 16)
        | ((fixed[off + 2] & 0xFFL) << 8) | (fixed[off + 3] & 0xFFL);
  }
}
