package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * DELETE: removes a chunk. Header, 28 bytes: target (16), fileId u64, chunkIndex u32. Answered by
 * {@link DeleteResponse}; a missing chunk is OK with {@code existed = false}.
 */
public record DeleteRequest(long requestId, TargetId target, ChunkId chunk) implements Request {
  public DeleteRequest {
    Checks.target(target);
    Objects.requireNonNull(chunk, "chunk");
  }

  @Override
  public Opcode opcode() {
    return Opcode.DELETE;
  }
}
