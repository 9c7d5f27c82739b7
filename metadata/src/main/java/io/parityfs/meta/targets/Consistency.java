package io.parityfs.meta.targets;

import java.util.Locale;

/**
 * The state of a target's data, from its RAID array's state (the online record's when its node
 * is online, else the last one in the persistent target record).
 */
public enum Consistency {
  /** Array OPTIMAL: every drive in place. */
  GOOD,
  /** Array DEGRADED: drives missing or failed, within what the protection survives. */
  DEGRADED,
  /** Array REBUILDING onto a replacement or spare. */
  REBUILDING,
  /** Array FAILED (more drives lost than the protection survives), or a state this code does
   * not know. TargetPlacement never uses it. */
  FAILED;

  /** The consistency of array state {@code arrayState} ({@code OPTIMAL}, ...); unknown: FAILED. */
  static Consistency ofArrayState(String arrayState) {
    if (arrayState == null) {
      return FAILED;
    }
    return switch (arrayState.toUpperCase(Locale.ROOT)) {
      case "OPTIMAL" -> GOOD;
      case "DEGRADED" -> DEGRADED;
      case "REBUILDING" -> REBUILDING;
      default -> FAILED;
    };
  }
}
