package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.drive.DrivePaths;
import io.parityfs.raid.array.drive.LabelFile;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DriveLabel;
import io.parityfs.raid.array.format.DriveRole;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Creates an array: checks every drive first, then labels them with generation 1. Data drives take
 * slots 0..n-s-1 in the order given, hot spares the last s slots.
 */
final class ArrayCreator {
  private static final System.Logger LOG = System.getLogger(ArrayCreator.class.getName());

  private ArrayCreator() {}

  static AssembledArray create(ArrayConfig config, List<Path> drives, boolean force)
      throws IOException {
    if (config == null || drives == null) {
      throw new IllegalArgumentException("config and drives must not be null");
    }
    config.checkDriveCount(drives.size());
    DrivePaths.checkDistinct(drives);
    // Refuse before writing anything, so a refused create leaves every drive as it was.
    if (!force) {
      for (Path d : drives) {
        checkEmpty(d);
      }
    }
    UUID arrayId = UUID.randomUUID();
    Instant created = Instant.now();
    int dataSlots = drives.size() - config.hotSpares();
    Map<Integer, AssembledArray.Member> members = new TreeMap<>();
    for (int slot = 0; slot < drives.size(); slot++) {
      Path d = drives.get(slot);
      if (force && LabelFile.exists(d)) {
        LOG.log(System.Logger.Level.WARNING,
            "drive {0}: overwriting its label (force) for new array {1}", d, arrayId);
      }
      DriveLabel label = new DriveLabel(
          arrayId, UUID.randomUUID(), slot,
          slot < dataSlots ? DriveRole.DATA : DriveRole.SPARE,
          config, drives.size(), 1, 0L, created);
      LabelFile.removeLeftoverTemp(d);
      LabelFile.write(d, label);
      members.put(slot, new AssembledArray.Member(d, label));
    }
    AssembledArray array =
        new AssembledArray(members.get(0).label(), members, new ArrayList<>());
    LOG.log(System.Logger.Level.INFO, "created {0}", array);
    return array;
  }

  /**
   * Refuses a drive that carries a label or holds other files than a temp label and lost+found:
   * NOT_EMPTY, naming the drive and what it holds. Also used for a replacement drive.
   */
  static void checkEmpty(Path d) throws IOException {
    if (LabelFile.exists(d)) {
      String owner;
      try {
        DriveLabel l = LabelFile.read(d);
        owner = "array " + l.arrayId() + " (slot " + l.slot() + ", generation "
            + l.generation() + ", " + l.config().protection() + ")";
      } catch (ArrayException e) {
        owner = "an unreadable label (" + e.getMessage() + ")";
      }
      throw new ArrayException(ArrayError.NOT_EMPTY, d,
          "drive " + d + " already belongs to " + owner
              + "; wipe it or create with force to reuse it");
    }
    List<String> other = DrivePaths.foreignEntries(d);
    if (!other.isEmpty()) {
      throw new ArrayException(ArrayError.NOT_EMPTY, d,
          "drive " + d + " is not empty: it holds " + other.size() + " entr"
              + (other.size() == 1 ? "y" : "ies") + " (first: " + other.get(0)
              + "); create with force to use it anyway");
    }
  }
}
