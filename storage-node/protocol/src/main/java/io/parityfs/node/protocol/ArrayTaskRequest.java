package io.parityfs.node.protocol;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * START_REBUILD, STOP_REBUILD, START_SCRUB, STOP_SCRUB: starts or stops a long task on an array.
 * Header, 18 bytes: target (16), slot u16 ({@link #ALL_SLOTS} = 0xFFFF: every slot that needs it;
 * scrubs always use {@link #ALL_SLOTS}). Answered by {@link AdminResponse} (JSON: the task's
 * progress); progress is then polled with {@link ProgressRequest}.
 */
public record ArrayTaskRequest(long requestId, Opcode opcode, TargetId target, int slot)
    implements Request {
  public static final int ALL_SLOTS = 0xFFFF;
  static final Set<Opcode> OPCODES =
      EnumSet.of(Opcode.START_REBUILD, Opcode.STOP_REBUILD, Opcode.START_SCRUB, Opcode.STOP_SCRUB);

  public ArrayTaskRequest {
    Objects.requireNonNull(opcode, "opcode");
    if (!OPCODES.contains(opcode)) {
      throw new IllegalArgumentException("opcode (" + opcode + ") must be one of " + OPCODES);
    }
    Checks.target(target);
    Checks.slot(slot);
    if ((opcode == Opcode.START_SCRUB || opcode == Opcode.STOP_SCRUB) && slot != ALL_SLOTS) {
      throw new IllegalArgumentException("slot (" + slot + ") must be ALL_SLOTS for " + opcode);
    }
  }
}
