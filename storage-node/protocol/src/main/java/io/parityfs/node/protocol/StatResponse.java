package io.parityfs.node.protocol;

import java.util.Objects;

/** The answer to STAT. Header, 32 bytes: the {@link ChunkStat}. */
public record StatResponse(long requestId, ChunkStat stat) implements Response {
  public StatResponse {
    Objects.requireNonNull(stat, "stat");
  }

  @Override
  public Opcode opcode() {
    return Opcode.STAT;
  }
}
