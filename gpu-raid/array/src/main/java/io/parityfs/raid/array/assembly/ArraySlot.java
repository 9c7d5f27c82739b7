package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.format.DriveLabel;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One slot of an assembled array: its state, and the drive that fills it when one does.
 *
 * @param slot the slot number, 0 to slot count - 1
 * @param state ONLINE or SPARE when a drive of the current generation fills it, REBUILDING when
 *     that drive is being rebuilt; FAILED when the labels mark it failed; MISSING when no drive
 *     was found for it
 * @param drive the drive directory, or null when no drive fills the slot
 * @param label the drive's label, or null when no drive fills the slot
 */
public record ArraySlot(int slot, DriveState state, Path drive, DriveLabel label) {
  public ArraySlot {
    if (state == null || (drive == null) != (label == null)) {
      throw new IllegalArgumentException(
          "slot " + slot + ": state required, drive and label both or neither");
    }
  }

  /** The drive directory, when a drive fills this slot. */
  public Optional<Path> drivePath() {
    return Optional.ofNullable(drive);
  }

  @Override
  public String toString() {
    return "slot " + slot + " " + state + (drive == null ? "" : " " + drive);
  }
}
