package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.drive.DrivePaths;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.drive.LabelFile;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DriveLabel;
import io.parityfs.raid.array.format.DriveRole;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The label side of a rebuild: a drive joins a FAILED or MISSING data slot (a blank replacement,
 * or a hot spare moving over) marked rebuilding, and the rebuilding mark is cleared when the data
 * side is done. Each step is one generation bump ({@link GenerationBump}, whose class comment
 * gives the crash-safety argument); a MISSING slot is first failed in a bump of its own, so the
 * drive that used to fill it is at least two generations behind when the new one joins.
 */
final class SlotReplacement {
  private static final System.Logger LOG = System.getLogger(SlotReplacement.class.getName());

  private SlotReplacement() {}

  static AssembledArray replace(AssembledArray array, int slot, Path newDrive, boolean force)
      throws IOException {
    checkReplaceable(array, slot);
    if (newDrive == null) {
      throw new IllegalArgumentException("newDrive must not be null");
    }
    List<Path> all = new ArrayList<>();
    for (ArraySlot s : array.slots()) {
      if (s.drive() != null) {
        all.add(s.drive());
      }
    }
    all.add(newDrive);
    DrivePaths.checkDistinct(all); // exists, and is none of the array's drives nor nested in one
    if (!force) {
      ArrayCreator.checkEmpty(newDrive);
    } else if (LabelFile.exists(newDrive)) {
      LOG.log(System.Logger.Level.WARNING, "drive {0}: overwriting its label (force) to replace"
          + " slot {1} of array {2}", newDrive, slot, array.arrayId());
    }
    LabelFile.removeLeftoverTemp(newDrive);
    AssembledArray current = failIfMissing(array, slot);
    DriveLabel ref = current.reference();
    DriveLabel label = new DriveLabel(ref.arrayId(), UUID.randomUUID(), slot, DriveRole.DATA,
        ref.config(), ref.slotCount(), ref.generation(), 0L, 0L, ref.created());
    AssembledArray result = GenerationBump.apply(current,
        new GenerationBump.Change(0L, 0L, -1, new AssembledArray.Member(newDrive, label)));
    LOG.log(System.Logger.Level.INFO, "array {0}: drive {1} (drive id {2}) replaces slot {3},"
        + " rebuilding, generation {4}", ref.arrayId(), newDrive, label.driveId(), slot,
        result.generation());
    return result;
  }

  static AssembledArray promote(AssembledArray array, int failedSlot) throws IOException {
    checkReplaceable(array, failedSlot);
    if (array.spare().isEmpty()) {
      throw new IllegalArgumentException("array " + array.arrayId() + " has no hot spare to"
          + " take over slot " + failedSlot + " (no slot is SPARE)");
    }
    AssembledArray current = failIfMissing(array, failedSlot);
    ArraySlot spare = current.spare().orElseThrow(() -> new ArrayException(ArrayError.IO_ERROR,
        null, "array " + array.arrayId() + ": the hot spare's label could not be written while"
            + " failing slot " + failedSlot));
    DriveLabel label = spare.label().inSlot(failedSlot, DriveRole.DATA);
    AssembledArray result = GenerationBump.apply(current, new GenerationBump.Change(0L, 0L,
        spare.slot(), new AssembledArray.Member(spare.drive(), label)));
    LOG.log(System.Logger.Level.INFO, "array {0}: hot spare {1} (slot {2}) takes over slot {3},"
        + " rebuilding, generation {4}; slot {2} is left empty", array.arrayId(), spare.drive(),
        spare.slot(), failedSlot, result.generation());
    return result;
  }

  static AssembledArray finish(AssembledArray array, int slot) throws IOException {
    ArraySlot s = array.slot(slot);
    if (s.state() != DriveState.REBUILDING) {
      throw new IllegalArgumentException("slot " + slot + " of array " + array.arrayId() + " is "
          + s.state() + ", not REBUILDING: there is no rebuild to finish");
    }
    AssembledArray result =
        GenerationBump.apply(array, new GenerationBump.Change(0L, 1L << slot, -1, null));
    LOG.log(System.Logger.Level.INFO, "array {0}: slot {1} ({2}) rebuilt, ONLINE, generation {3}",
        array.arrayId(), slot, s.drive(), result.generation());
    return result;
  }

  private static void checkReplaceable(AssembledArray array, int slot) {
    ArraySlot s = array.slot(slot);
    if (slot >= array.dataSlots()) {
      throw new IllegalArgumentException("slot " + slot + " of array " + array.arrayId()
          + " is a hot-spare slot (data slots are 0.." + (array.dataSlots() - 1)
          + "); only a data slot takes a replacement");
    }
    if (s.state() != DriveState.FAILED && s.state() != DriveState.MISSING) {
      throw new IllegalArgumentException("slot " + slot + " of array " + array.arrayId() + " is "
          + s.state() + (s.drive() == null ? "" : " (" + s.drive() + ")")
          + "; only a FAILED or MISSING slot takes a replacement (mark it failed first)");
    }
  }

  /**
   * The array with {@code slot} failed in the labels: a MISSING slot is failed in a bump of its
   * own, so that its old drive, if it comes back, is two generations behind the one where a new
   * drive joins (one behind with its slot not failed would be taken as a missed bump).
   */
  private static AssembledArray failIfMissing(AssembledArray array, int slot) throws IOException {
    if (array.slot(slot).state() == DriveState.FAILED) {
      return array;
    }
    LOG.log(System.Logger.Level.INFO, "array {0}: slot {1} is MISSING; failing it before a drive"
        + " joins it", array.arrayId(), slot);
    return GenerationBump.bump(array, 1L << slot);
  }
}
