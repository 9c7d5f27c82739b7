package io.parityfs.node.protocol;

import java.util.Objects;

/** The answer to a WRITE stream, after its END. Header, 32 bytes: the new {@link ChunkStat}. */
public record WriteResponse(long requestId, ChunkStat stat) implements Response {
  public WriteResponse {
    Objects.requireNonNull(stat, "stat");
  }

  @Override
  public Opcode opcode() {
    return Opcode.WRITE;
  }
}
