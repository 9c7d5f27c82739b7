package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * FAIL_DRIVE: marks the drive in {@code slot} failed (a hot spare, if any, starts rebuilding).
 * Header, 18 bytes: target (16), slot u16. Answered by {@link AdminResponse} (JSON: the array's
 * new state).
 */
public record FailDriveRequest(long requestId, TargetId target, int slot) implements Request {
  public FailDriveRequest {
    Checks.target(target);
    Checks.slot(slot);
  }

  @Override
  public Opcode opcode() {
    return Opcode.FAIL_DRIVE;
  }
}
