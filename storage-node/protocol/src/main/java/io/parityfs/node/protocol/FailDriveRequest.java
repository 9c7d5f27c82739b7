package io.parityfs.node.protocol;


/**
 * FAIL_DRIVE: marks the drive in {@code slot} failed (a hot spare, if any, starts rebuilding).
 * Header, 18 bytes: target (16), slot u16; or 19 bytes with flags u8 ({@link #FORCE}: fail the
 * slot even when that leaves the array beyond what its protection tolerates, which the node
 * refuses otherwise with ILLEGAL_STATE). Without flags the 18-byte form is sent. Answered by
 * {@link AdminResponse} (JSON: the array's new state).
 */
public record FailDriveRequest(long requestId, TargetId target, int slot, int flags)
    implements Request {
  /** Flag bit: fail the slot even beyond the array's tolerance. */
  public static final int FORCE = 1;

  public FailDriveRequest {
    Checks.target(target);
    Checks.slot(slot);
    if ((flags & ~FORCE) != 0) {
      throw new IllegalArgumentException("FAIL_DRIVE flags (" + flags + ") must be 0 or FORCE");
    }
  }

  /** Without flags. */
  public FailDriveRequest(long requestId, TargetId target, int slot) {
    this(requestId, target, slot, 0);
  }

  @Override
  public Opcode opcode() {
    return Opcode.FAIL_DRIVE;
  }
}
