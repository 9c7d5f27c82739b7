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
  /**
   * Array not FAILED, but a scrub found objects on it with a stripe beyond repair (more bad
   * cells than the protection tolerates): reads of those objects fail, the rest serve, and
   * placement still uses it. Stays until a whole scrub finds none, or until each lost object has
   * been rewritten or deleted (the node's {@code lostObjects}; which ones: {@link
   * TargetInfo#lostObjectIds}).
   */
  DAMAGED,
  /** Array FAILED (more drives lost than the protection survives), or a state this code does
   * not know. TargetPlacement never uses it. */
  FAILED;

  /**
   * The consistency of array state {@code arrayState} with {@code lostObjects} objects a scrub
   * found unrecoverable: DAMAGED when there are some and the array is not FAILED (lost data
   * matters more than a missing drive).
   */
  static Consistency of(String arrayState, long lostObjects) {
    Consistency c = ofArrayState(arrayState);
    return lostObjects > 0 && c != FAILED ? DAMAGED : c;
  }

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
