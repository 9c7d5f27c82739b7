package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * ARRAY_STATUS: the state of an array and its drives ({@link TargetId#ALL}: of every array).
 * Header, 16 bytes: target. Answered by {@link AdminResponse} (JSON).
 */
public record ArrayStatusRequest(long requestId, TargetId target) implements Request {
  public ArrayStatusRequest {
    Objects.requireNonNull(target, "target");
  }

  @Override
  public Opcode opcode() {
    return Opcode.ARRAY_STATUS;
  }
}
