package io.parityfs.node.protocol.admin;

import java.util.Objects;

/**
 * One drive slot of an array in {@link TargetStatus}.
 *
 * @param slot the slot number
 * @param state ONLINE, FAILED, MISSING, REBUILDING or SPARE
 * @param path the drive's folder on the node; empty when the slot has no drive
 */
public record DriveSlot(int slot, String state, String path) {
  public DriveSlot {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(path, "path");
  }
}
