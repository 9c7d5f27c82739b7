package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * READ: {@code length} bytes of a chunk from {@code offset} ({@code -1}: to the end). Header, 44
 * bytes: target (16), fileId u64, chunkIndex u32, offset i64, length i64. The answer is a stream
 * of response {@link DataFrame}s, the last with END; a read past the end returns the bytes there
 * are. An {@link ErrorResponse} may end the stream at any point.
 */
public record ReadRequest(long requestId, TargetId target, ChunkId chunk, long offset, long length) implements Request {
  public ReadRequest {
    Checks.target(target);
    Objects.requireNonNull(chunk, "chunk");
    Checks.offset(offset);
    if (length < -1) {
      throw new IllegalArgumentException("length (" + length + ") must be >= 0, or -1 for to the end");
    }
  }

  @Override
  public Opcode opcode() {
    return Opcode.READ;
  }
}
