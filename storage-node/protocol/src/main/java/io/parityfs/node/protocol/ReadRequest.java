package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * READ: {@code length} bytes of a chunk from {@code offset} ({@code -1}: to the end). Header, 44
 * bytes: target (16), fileId u64, chunkIndex u32, offset i64, length i64; 45 bytes with a flags
 * byte after them (sent only when the flags are not 0). The answer is a stream of response {@link
 * DataFrame}s, the last with END; a read past the end returns the bytes there are. An {@link
 * ErrorResponse} may end the stream at any point. With {@link #WITH_STAT}, the first DATA frame
 * carries the chunk stat of the version the whole answer is read from ({@link DataFrame#stat()}).
 */
public record ReadRequest(
    long requestId, TargetId target, ChunkId chunk, long offset, long length, int flags)
    implements Request {
  /** The first DATA frame of the answer carries the stat of the version read. */
  public static final int WITH_STAT = 1;
  static final int KNOWN_FLAGS = WITH_STAT;

  public ReadRequest {
    Checks.target(target);
    Objects.requireNonNull(chunk, "chunk");
    Checks.offset(offset);
    if (length < -1) {
      throw new IllegalArgumentException("length (" + length + ") must be >= 0, or -1 for to the end");
    }
    if ((flags & ~KNOWN_FLAGS) != 0) {
      throw new IllegalArgumentException("flags (" + flags + ") has unknown bits");
    }
  }

  /** A read without flags. */
  public ReadRequest(long requestId, TargetId target, ChunkId chunk, long offset, long length) {
    this(requestId, target, chunk, offset, length, 0);
  }

  /** Whether the answer's first frame carries the stat of the version read. */
  public boolean withStat() {
    return (flags & WITH_STAT) != 0;
  }

  @Override
  public Opcode opcode() {
    return Opcode.READ;
  }
}
