package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * PROGRESS: rebuilds and scrubs under way on an array ({@link TargetId#ALL}: on every array),
 * with bytes done, total, rate and ETA. Header, 16 bytes: target. Answered by
 * {@link AdminResponse} (JSON).
 */
public record ProgressRequest(long requestId, TargetId target) implements Request {
  public ProgressRequest {
    Objects.requireNonNull(target, "target");
  }

  @Override
  public Opcode opcode() {
    return Opcode.PROGRESS;
  }
}
