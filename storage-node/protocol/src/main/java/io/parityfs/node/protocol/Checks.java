package io.parityfs.node.protocol;

import java.util.Objects;

/** Argument checks shared by the message records. */
final class Checks {
  private Checks() {}

  /** A target that names one array ({@link TargetId#ALL} is refused). */
  static void target(TargetId target) {
    Objects.requireNonNull(target, "target");
    if (target.isAll()) {
      throw new IllegalArgumentException("target must name one array, not " + target);
    }
  }

  static void offset(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset (" + offset + ") must be >= 0");
    }
  }

  static void slot(int slot) {
    if (slot < 0 || slot > 0xFFFF) {
      throw new IllegalArgumentException("slot (" + slot + ") must be in [0, 65535]");
    }
  }
}
