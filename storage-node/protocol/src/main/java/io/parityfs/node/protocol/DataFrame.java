package io.parityfs.node.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * A piece of a stream: the data of a WRITE (client to node) or of a READ answer (node to client).
 * No header, except the first frame of the answer to a READ {@link ReadRequest#WITH_STAT}, whose
 * header is the {@link ChunkStat} of the version read (32 or 48 bytes); payload: at most {@link FrameFormat#MAX_DATA_PAYLOAD} bytes, possibly none. Every
 * frame of a stream but the last carries MORE; the last carries END.
 *
 * <p>Reference counted: the holder of a DataFrame owns one reference to its content and must
 * {@link #release()} it (writing it to a channel passes the reference on). A decoded DataFrame's
 * content is a slice of the receive buffer: release it promptly.
 *
 * <p>A decoded frame's payload has been checked against the CRC32C it came with, except a DATA
 * request's on a node whose decoder hands that check on ({@link FrameDecoder#FrameDecoder(Role,
 * boolean)}): then {@link #crcChecked} is false and whoever takes the bytes checks them against
 * {@link #payloadCrc} before trusting one.
 */
public final class DataFrame extends DefaultByteBufHolder implements Message {
  private final long requestId;
  private final boolean response;
  private final boolean end;
  private final ChunkStat stat;
  /** The sender's CRC32C of an unchecked payload, or -1 (as a long) once checked. */
  private final long uncheckedCrc;

  /**
   * @param content the data; this frame takes over the caller's reference
   * @param end whether this is the last frame of the stream
   */
  public DataFrame(long requestId, boolean response, boolean end, ByteBuf content) {
    this(requestId, response, end, content, null);
  }

  /**
   * A frame that carries a chunk stat: the first frame of a READ WITH_STAT answer.
   *
   * @param stat the stat of the version the answer is read from; null: none
   */
  public DataFrame(long requestId, boolean response, boolean end, ByteBuf content,
      ChunkStat stat) {
    this(requestId, response, end, content, stat, -1);
  }

  private DataFrame(long requestId, boolean response, boolean end, ByteBuf content,
      ChunkStat stat, long uncheckedCrc) {
    super(content);
    if (stat != null && !response) {
      content.release();
      throw new IllegalArgumentException("only a READ answer's DATA frame carries a stat");
    }
    if (content.readableBytes() > FrameFormat.MAX_DATA_PAYLOAD) {
      int n = content.readableBytes();
      content.release();
      throw new IllegalArgumentException("DATA payload (" + n + " bytes) must be <= 1 MiB");
    }
    this.requestId = requestId;
    this.response = response;
    this.end = end;
    this.stat = stat;
    this.uncheckedCrc = uncheckedCrc;
  }

  /** This frame, its payload not yet checked against {@code crc}; takes over the reference. */
  DataFrame unchecked(int crc) {
    return new DataFrame(requestId, response, end, content(), stat, crc & 0xFFFFFFFFL);
  }

  /**
   * This frame to send with {@code crc} as its payload's CRC32C, which the encoder then sends as
   * it is rather than computing one: for a producer that knows the checksum of the bytes from
   * where they came (a node sends the checksums it stored with the cells). A wrong value makes
   * the receiver refuse the frame. Takes over this frame's reference.
   */
  public DataFrame withPayloadCrc(int crc) {
    return unchecked(crc);
  }

  /**
   * Whether the payload was checked against its CRC32C when it was decoded (always, but for a
   * DATA request on a node decoder that hands the check on): false, check it against {@link
   * #payloadCrc} before trusting a byte. A frame to send is false when it was given its CRC
   * ({@link #withPayloadCrc}).
   */
  public boolean crcChecked() {
    return uncheckedCrc < 0;
  }

  /**
   * The CRC32C its sender gave the payload, for a frame whose payload is not yet checked (or
   * that was given one to send).
   *
   * @throws IllegalStateException when the payload was checked already
   */
  public int payloadCrc() {
    if (uncheckedCrc < 0) {
      throw new IllegalStateException("the payload of " + this + " was checked when decoded");
    }
    return (int) uncheckedCrc;
  }

  /** The stat of the version read, on the first frame of a READ WITH_STAT answer; else null. */
  public ChunkStat stat() {
    return stat;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  @Override
  public Opcode opcode() {
    return Opcode.DATA;
  }

  @Override
  public boolean isResponse() {
    return response;
  }

  /** Whether this is the last frame of its stream. */
  public boolean isEnd() {
    return end;
  }

  @Override
  public DataFrame replace(ByteBuf content) {
    return new DataFrame(requestId, response, end, content, stat, uncheckedCrc);
  }

  @Override
  public DataFrame copy() {
    return replace(content().copy());
  }

  @Override
  public DataFrame duplicate() {
    return replace(content().duplicate());
  }

  @Override
  public DataFrame retainedDuplicate() {
    return replace(content().retainedDuplicate());
  }

  @Override
  public DataFrame retain() {
    super.retain();
    return this;
  }

  @Override
  public DataFrame retain(int increment) {
    super.retain(increment);
    return this;
  }

  @Override
  public DataFrame touch() {
    super.touch();
    return this;
  }

  @Override
  public DataFrame touch(Object hint) {
    super.touch(hint);
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DataFrame other
        && requestId == other.requestId
        && response == other.response
        && end == other.end
        && java.util.Objects.equals(stat, other.stat)
        && content().equals(other.content());
  }

  @Override
  public int hashCode() {
    return Long.hashCode(requestId) * 31 + content().hashCode();
  }

  @Override
  public String toString() {
    return "DataFrame[requestId=" + requestId + ", response=" + response + ", end=" + end
        + ", bytes=" + content().readableBytes() + (stat == null ? "" : ", stat=" + stat)
        + (crcChecked() ? "" : String.format(", unchecked crc=%08x", uncheckedCrc)) + "]";
  }
}
