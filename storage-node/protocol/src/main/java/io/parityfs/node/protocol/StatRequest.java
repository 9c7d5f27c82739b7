package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * STAT: a chunk's length, version and times. Header, 28 bytes: target (16), fileId u64,
 * chunkIndex u32. Answered by {@link StatResponse} or NOT_FOUND.
 */
public record StatRequest(long requestId, TargetId target, ChunkId chunk) implements Request {
  public StatRequest {
    Checks.target(target);
    Objects.requireNonNull(chunk, "chunk");
  }

  @Override
  public Opcode opcode() {
    return Opcode.STAT;
  }
}
