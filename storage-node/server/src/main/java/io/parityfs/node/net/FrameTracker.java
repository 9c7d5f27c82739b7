package io.parityfs.node.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * Sits before the decoder and follows the frame boundaries of the bytes received (from the fixed
 * part's two lengths, at offsets 20 and 24), so the idle check can tell whether the connection
 * holds a partial frame, and so the bytes of partial frames are counted node-wide against {@code
 * server.maxPartialFrameBytes}: a connection whose partial frame would take the sum past it is
 * closed. Does not touch the bytes; the decoder does all validation (a garbage length here only
 * matters until the decoder condemns the connection). Event loop only.
 */
final class FrameTracker extends ChannelInboundHandlerAdapter {
  private static final int FIXED = 36;
  private final NettyNodeServer server;
  private final byte[] fixed = new byte[FIXED];
  private int fixedHave;
  private long remaining;
  /** Bytes of the current frame received so far (0 between frames), counted in the server's sum. */
  private long held;
  private boolean refused;

  FrameTracker(NettyNodeServer server) {
    this.server = server;
  }

  /** Whether bytes of an incomplete frame have been received. */
  boolean midFrame() {
    return fixedHave > 0 || remaining > 0;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof ByteBuf b) {
      long before = held;
      scan(b);
      if (!server.holdPartial(held - before)) {
        refused = true; // the server's sum holds this frame's bytes before this read only
        server.holdPartial(-before);
        held = 0;
        ReferenceCountUtil.release(msg);
        server.refuse(ctx, "partial_budget", "partial frames of all connections past"
            + " server.maxPartialFrameBytes (" + server.config().maxPartialFrameBytes() + ")");
        ctx.close();
        return;
      }
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    server.holdPartial(-held);
    held = 0;
    super.channelInactive(ctx);
  }

  private void scan(ByteBuf b) {
    int i = b.readerIndex();
    int end = b.writerIndex();
    while (i < end) {
      if (remaining > 0) {
        int take = (int) Math.min(remaining, end - i);
        remaining -= take;
        i += take;
        held = remaining == 0 ? 0 : held + take;
        continue;
      }
      fixed[fixedHave++] = b.getByte(i++);
      held++;
      if (fixedHave == FIXED) {
        fixedHave = 0;
        remaining = unsigned(20) + unsigned(24);
        if (remaining == 0) {
          held = 0;
        }
      }
    }
  }

  private long unsigned(int off) {
    return ((fixed[off] & 0xFFL) << 24) | ((fixed[off + 1] & 0xFFL) << 16)
        | ((fixed[off + 2] & 0xFFL) << 8) | (fixed[off + 3] & 0xFFL);
  }
}
