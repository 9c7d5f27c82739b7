package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * SYNC: makes every write acknowledged so far on the target ({@link TargetId#ALL}: on every
 * target) durable. Header, 16 bytes: target. Answered by {@link AckResponse}.
 */
public record SyncRequest(long requestId, TargetId target) implements Request {
  public SyncRequest {
    Objects.requireNonNull(target, "target");
  }

  @Override
  public Opcode opcode() {
    return Opcode.SYNC;
  }
}
