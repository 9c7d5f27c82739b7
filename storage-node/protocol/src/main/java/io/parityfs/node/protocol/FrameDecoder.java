package io.parityfs.node.protocol;

import static io.parityfs.node.protocol.FrameFormat.CRC_COVERED_FIXED;
import static io.parityfs.node.protocol.FrameFormat.FIXED_LENGTH;
import static io.parityfs.node.protocol.FrameFormat.FLAG_RESPONSE;
import static io.parityfs.node.protocol.FrameFormat.KNOWN_FLAGS;
import static io.parityfs.node.protocol.FrameFormat.MAX_HEADER_LENGTH;
import static io.parityfs.node.protocol.FrameFormat.MAX_PAYLOAD_LENGTH;
import static io.parityfs.node.protocol.FrameFormat.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Turns bytes into {@link Message}s, or into a {@link FrameError} for a malformed frame; never
 * throws for any input. One instance per channel (it keeps the partial frame).
 *
 * <p>Frame layout (big-endian; details in {@link FrameFormat} and docs/protocol.md):
 *
 * <pre>
 * offset size field
 *      0    4 magic "PFSN"
 *      4    1 version = 1
 *      5    1 opcode
 *      6    2 flags: bit0 RESPONSE, bit1 MORE, bit2 END
 *      8    8 request id
 *     16    4 status (0 in requests)
 *     20    4 header length H  (&lt;= 64 KiB)
 *     24    4 payload length P (&lt;= 4 MiB + 64 KiB)
 *     28    4 payload CRC32C (0 when P = 0)
 *     32    4 header CRC32C over bytes 0..31 and the header
 *     36    H header
 *   36+H    P payload
 * </pre>
 *
 * <p>Checks, in order, and what each failure yields:
 *
 * <ol>
 *   <li>magic (checked on the first bytes, before the fixed part is complete): fatal BAD_FRAME;
 *   <li>version: fatal UNSUPPORTED_VERSION;
 *   <li>header and payload lengths, as soon as the fixed part is in and before any of their bytes
 *       are awaited: fatal FRAME_TOO_LARGE — so the decoder buffers at most one frame of at most
 *       36 + 64 KiB + 4 MiB + 64 KiB bytes;
 *   <li>header CRC (once the whole frame is in): fatal BAD_FRAME;
 *   <li>direction (a request sent to a client, a response to a node): fatal BAD_FRAME;
 *   <li>unknown flag bits: INVALID_ARGUMENT; unknown opcode: UNKNOWN_OPCODE; payload CRC:
 *       CRC_MISMATCH (except a DATA request's on a node decoder that hands it on: see {@link
 *       #FrameDecoder(Role, boolean)}); opcode-specific fields (lengths, chunk ids out of range, modes, targets):
 *       INVALID_ARGUMENT — all non-fatal, for the frame's request id.
 * </ol>
 *
 * After a fatal error the decoder emits nothing more and discards all input; the handler is
 * expected to close the channel (see {@link FrameError}). A frame cut short by the end of the
 * connection is dropped.
 *
 * <p>Buffers: only {@link DataFrame}s hold memory, as retained slices of the receive buffer; every
 * other message is copied out of it. The decoder never allocates more than the declared lengths,
 * which it bounds first. Backpressure is the handler's: with auto-read off, the decoder holds at
 * most the frames of the bytes already read.
 *
 * <p>How socket reads are cumulated (docs/data-path.md, "Fewer copies"): a read of at least
 * {@link #KEEP} bytes that fills at least half of its buffer joins the receive buffer as it came,
 * as a component, without a copy, so a 1 MiB data frame reaches the handler as the reads it
 * arrived in. A smaller read is copied into a tail buffer of the decoder's own ({@link #TAIL}
 * bytes, filled before the next), whose bytes join the receive buffer when the frame being
 * received can be completed with them, when the tail is full, before a kept read, and while the
 * fixed part of a frame is not in. So, however a peer cuts its bytes into segments, the memory a
 * frame holds is at most twice its bytes plus the two reads it shares with its neighbours and
 * one tail, and a frame spans a bounded number of components (its fixed part's reads, its kept
 * reads and its tail buffers).
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  /** The smallest read kept as it came rather than copied into the tail. */
  static final int KEEP = 8 << 10;
  /** The capacity of a tail buffer. */
  static final int TAIL = 64 << 10;
  private static final byte[] MAGIC_BYTES = {'P', 'F', 'S', 'N'};

  private final Role role;
  private final boolean handOnDataCrc;
  private boolean failed;
  /**
   * Readable bytes the receive buffer must hold before {@link #decode} can make progress: the
   * current frame's length once its fixed part is in, 0 when unknown (every byte is passed on).
   */
  private long need;
  /** The decoder's own buffer for small reads; null when none is open. */
  private ByteBuf tail;
  /** Where the bytes of {@link #tail} not yet in the receive buffer begin. */
  private int tailPassed;

  /** @param role the end of the connection this decoder serves */
  public FrameDecoder(Role role) {
    this(role, false);
  }

  /**
   * @param role the end of the connection this decoder serves
   * @param handOnDataCrc whether a DATA request's payload is passed on unchecked, its CRC with
   *     it ({@link DataFrame#crcChecked}), for a receiver that checks it in the pass that stores
   *     the bytes (the node's writer: docs/data-path.md, "One checksum pass"); every other
   *     payload is checked here
   */
  public FrameDecoder(Role role, boolean handOnDataCrc) {
    this.role = role;
    this.handOnDataCrc = handOnDataCrc;
    setCumulator(this::cumulate);
  }

  private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
    if (cumulation == in) { // as Netty's cumulators: a buffer passed twice is doubly retained
      in.release();
      return cumulation;
    }
    if (failed) {
      in.release();
      return cumulation;
    }
    int n = in.readableBytes();
    if (n >= KEEP && 2L * n >= in.capacity()) {
      return append(alloc, pass(alloc, cumulation), in);
    }
    try {
      while (in.isReadable()) {
        if (tail == null || !tail.isWritable()) {
          cumulation = pass(alloc, cumulation);
          if (tail != null) {
            tail.release();
          }
          tail = null; // not left pointing at a released buffer if the allocation fails
          tail = alloc.ioBuffer(TAIL, TAIL);
          tailPassed = 0;
        }
        tail.writeBytes(in, Math.min(in.readableBytes(), tail.writableBytes()));
      }
    } finally {
      in.release();
    }
    int held = cumulation.readableBytes();
    if (held < FIXED_LENGTH || held + (tail.writerIndex() - tailPassed) >= need
        || !tail.isWritable()) {
      cumulation = pass(alloc, cumulation);
    }
    return cumulation;
  }

  /** Appends the tail's bytes not yet passed on to {@code cumulation}. */
  private ByteBuf pass(ByteBufAllocator alloc, ByteBuf cumulation) {
    if (tail == null || tail.writerIndex() == tailPassed) {
      return cumulation;
    }
    ByteBuf piece = tail.retainedSlice(tailPassed, tail.writerIndex() - tailPassed);
    tailPassed = tail.writerIndex();
    return append(alloc, cumulation, piece);
  }

  /** Appends {@code piece} (owned by the call) to {@code cumulation} without copying it. */
  private static ByteBuf append(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf piece) {
    if (!cumulation.isReadable()) {
      cumulation.release();
      return piece;
    }
    CompositeByteBuf composite = null;
    try {
      if (cumulation instanceof CompositeByteBuf c && c.refCnt() == 1) {
        composite = c;
        if (c.writerIndex() != c.capacity()) {
          c.capacity(c.writerIndex());
        }
      } else { // a plain buffer, or one a decoded frame still holds a slice of: a new composite
        composite = alloc.compositeBuffer(Integer.MAX_VALUE).addFlattenedComponents(true,
            cumulation);
      }
      composite.addFlattenedComponents(true, piece);
      piece = null;
      return composite;
    } finally {
      if (piece != null) {
        piece.release();
        if (composite != null && composite != cumulation) {
          composite.release();
        }
      }
    }
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (tail != null) {
      tail.release();
      tail = null;
    }
  }

  /** Whether a fatal error has been reported (and all further input is discarded). */
  public boolean failed() {
    return failed;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    int start = in.readerIndex();
    int readable = in.readableBytes();
    for (int i = 0; i < Math.min(4, readable); i++) {
      if (in.getByte(start + i) != MAGIC_BYTES[i]) {
        fail(in, out, Status.BAD_FRAME, "bad magic, not a ParityFS node frame");
        return;
      }
    }
    if (readable > FrameFormat.OFF_VERSION) {
      int version = in.getUnsignedByte(start + FrameFormat.OFF_VERSION);
      if (version != VERSION) {
        fail(in, out, Status.UNSUPPORTED_VERSION, "protocol version " + version + ", expected 1");
        return;
      }
    }
    if (readable < FIXED_LENGTH) {
      need = FIXED_LENGTH;
      return;
    }
    long headerLength = in.getUnsignedInt(start + FrameFormat.OFF_HEADER_LENGTH);
    long payloadLength = in.getUnsignedInt(start + FrameFormat.OFF_PAYLOAD_LENGTH);
    if (headerLength > MAX_HEADER_LENGTH || payloadLength > MAX_PAYLOAD_LENGTH) {
      fail(in, out, Status.FRAME_TOO_LARGE,
          "header length " + headerLength + " (max " + MAX_HEADER_LENGTH + "), payload length "
              + payloadLength + " (max " + MAX_PAYLOAD_LENGTH + ")");
      return;
    }
    int h = (int) headerLength;
    int p = (int) payloadLength;
    int total = FIXED_LENGTH + h + p;
    if (readable < total) {
      need = total;
      return;
    }
    need = 0;
    CRC32C crc = new CRC32C();
    Crc32c.update(crc, in, start, CRC_COVERED_FIXED);
    Crc32c.update(crc, in, start + FIXED_LENGTH, h);
    if ((int) crc.getValue() != in.getInt(start + FrameFormat.OFF_HEADER_CRC)) {
      fail(in, out, Status.BAD_FRAME, "header CRC mismatch");
      return;
    }
    int flags = in.getUnsignedShort(start + FrameFormat.OFF_FLAGS);
    boolean response = (flags & FLAG_RESPONSE) != 0;
    if (response != (role == Role.CLIENT)) {
      fail(in, out, Status.BAD_FRAME, (response ? "a response" : "a request") + " sent to a "
          + (role == Role.CLIENT ? "client" : "node"));
      return;
    }
    in.readerIndex(start + total);

    long requestId = in.getLong(start + FrameFormat.OFF_REQUEST_ID);
    int opcodeByte = in.getUnsignedByte(start + FrameFormat.OFF_OPCODE);
    Opcode op = Opcode.fromCode(opcodeByte);
    if (op == null || (op == Opcode.NONE && !response)) {
      out.add(new FrameError(requestId, Opcode.NONE, Status.UNKNOWN_OPCODE,
          String.format("unknown opcode 0x%02x", opcodeByte), false));
      return;
    }
    if ((flags & ~KNOWN_FLAGS) != 0) {
      out.add(new FrameError(requestId, op, Status.INVALID_ARGUMENT,
          String.format("%s: unknown flag bits 0x%04x", op, flags), false));
      return;
    }
    int payloadStart = start + FIXED_LENGTH + h;
    int payloadCrc = in.getInt(start + FrameFormat.OFF_PAYLOAD_CRC);
    boolean handOn = handOnDataCrc && op == Opcode.DATA && !response;
    if (!handOn && Crc32c.of(in, payloadStart, p) != payloadCrc) {
      out.add(new FrameError(requestId, op, Status.CRC_MISMATCH,
          op + ": payload CRC mismatch (" + p + " bytes)", false));
      return;
    }
    long status = in.getUnsignedInt(start + FrameFormat.OFF_STATUS);
    try {
      Message m = HeaderCodec.decode(op, flags, requestId, status,
          in.slice(start + FIXED_LENGTH, h), in.slice(payloadStart, p));
      out.add(handOn && m instanceof DataFrame d ? d.unchecked(payloadCrc) : m);
    } catch (MalformedFrameException e) {
      out.add(new FrameError(requestId, op, e.status(), e.getMessage(), false));
    }
  }

  private void fail(ByteBuf in, List<Object> out, Status status, String message) {
    failed = true;
    in.skipBytes(in.readableBytes());
    out.add(new FrameError(0, Opcode.NONE, status, message, true));
  }
}
