package io.parityfs.node.protocol;

import static io.parityfs.node.protocol.FrameFormat.CRC_COVERED_FIXED;
import static io.parityfs.node.protocol.FrameFormat.FIXED_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Turns {@link Message}s into frames (layout in {@link FrameFormat} and {@link FrameDecoder}). Each
 * frame goes out as a pooled {@code ioBuffer} with the fixed part and the header, followed by the
 * payload as its own buffer: a {@link DataFrame}'s content is sent as is, never copied. Stateless
 * and {@link ChannelHandler.Sharable}.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToMessageEncoder<Message> {
  public static final FrameEncoder INSTANCE = new FrameEncoder();

  public FrameEncoder() {
    super(Message.class);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Message msg, List<Object> out) {
    encode(msg, ctx.alloc(), out);
  }

  /**
   * Encodes {@code msg} into one or two buffers added to {@code out} (the caller owns them). Does
   * not release {@code msg}.
   */
  public static void encode(Message msg, ByteBufAllocator alloc, List<Object> out) {
    ByteBuf payload = HeaderCodec.payload(msg, alloc);
    ByteBuf frame = null;
    try {
      int p = payload == null ? 0 : payload.readableBytes();
      if (p > FrameFormat.MAX_PAYLOAD_LENGTH) {
        throw new IllegalArgumentException(msg.opcode() + ": payload of " + p + " bytes");
      }
      frame = alloc.ioBuffer(FIXED_LENGTH + 64);
      frame.writeInt(FrameFormat.MAGIC);
      frame.writeByte(FrameFormat.VERSION);
      frame.writeByte(msg.opcode().code());
      frame.writeShort(HeaderCodec.flags(msg));
      frame.writeLong(msg.requestId());
      frame.writeInt(HeaderCodec.status(msg));
      frame.writeInt(0); // header length, set below
      frame.writeInt(p);
      frame.writeInt(p == 0 ? 0 : msg instanceof DataFrame d && !d.crcChecked() ? d.payloadCrc()
          : Crc32c.of(payload, payload.readerIndex(), p));
      frame.writeInt(0); // header CRC, set below
      HeaderCodec.writeHeader(msg, frame);
      int h = frame.readableBytes() - FIXED_LENGTH;
      if (h > FrameFormat.MAX_HEADER_LENGTH) {
        throw new IllegalArgumentException(msg.opcode() + ": header of " + h + " bytes");
      }
      int base = frame.readerIndex();
      frame.setInt(base + FrameFormat.OFF_HEADER_LENGTH, h);
      CRC32C crc = new CRC32C();
      Crc32c.update(crc, frame, base, CRC_COVERED_FIXED);
      Crc32c.update(crc, frame, base + FIXED_LENGTH, h);
      frame.setInt(base + FrameFormat.OFF_HEADER_CRC, (int) crc.getValue());
      out.add(frame);
      frame = null;
      if (payload != null) {
        out.add(payload);
        payload = null;
      }
    } finally {
      if (frame != null) {
        frame.release();
      }
      if (payload != null) {
        payload.release();
      }
    }
  }
}
