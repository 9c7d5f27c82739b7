package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * The answer to a {@link RebuildMemberRequest}: the stat of the member's version as stored (its
 * length is the bytes written, its tag the request's). Header, 48 bytes: the {@link ChunkStat}.
 */
public record RebuildMemberResponse(long requestId, ChunkStat stat) implements Response {
  public RebuildMemberResponse {
    Objects.requireNonNull(stat, "stat");
  }

  @Override
  public Opcode opcode() {
    return Opcode.REBUILD_MEMBER;
  }
}
