package io.parityfs.raid.array.format;

import java.time.Instant;
import java.util.UUID;

/**
 * The label one drive carries: which array it belongs to, which slot it fills, what the array is
 * (its {@link ArrayConfig} and slot count, as written at creation), and the array's
 * <em>generation</em> when the label was last written.
 *
 * <p>The generation starts at 1 and is bumped on every membership change (a drive marked failed
 * or replaced): the labels of the drives still in the array are rewritten with the new
 * generation, {@link #failedSlots()} and {@link #rebuildingSlots()}, so a drive left out keeps
 * an older one and is refused as stale if it comes back. On disk the label is a 128-byte record (format version 1, byte layout
 * in docs/array.md and the package's {@code LabelFormat}) in the file {@code parityfs.label} at the
 * drive directory's root.
 *
 * @param arrayId the array this drive belongs to
 * @param driveId this drive, unique across arrays; kept when the label is rewritten
 * @param slot this drive's slot, 0 to slotCount - 1
 * @param role data drive or hot spare
 * @param config the array's configuration as written at creation
 * @param slotCount the array's drives, data and spares: 1 to {@value ArrayConfig#MAX_DRIVES}
 * @param generation the array's generation when this label was written, at least 1
 * @param failedSlots bit i set: slot i held no trusted data at this generation
 * @param rebuildingSlots bit i set: the drive in slot i is being rebuilt at this generation (it
 *     joined as a replacement or a promoted hot spare and holds only part of its shards); never
 *     set for a failed slot
 * @param created when the array was created, at millisecond precision
 */
public record DriveLabel(
    UUID arrayId,
    UUID driveId,
    int slot,
    DriveRole role,
    ArrayConfig config,
    int slotCount,
    long generation,
    long failedSlots,
    long rebuildingSlots,
    Instant created) {

  public DriveLabel {
    if (arrayId == null || driveId == null || role == null || config == null || created == null) {
      throw new IllegalArgumentException("arrayId, driveId, role, config and created are required");
    }
    if (slotCount < config.minDrives() || slotCount > ArrayConfig.MAX_DRIVES) {
      throw new IllegalArgumentException(
          "slotCount ("
              + slotCount
              + ") must be in "
              + config.minDrives()
              + ".."
              + ArrayConfig.MAX_DRIVES
              + " for "
              + config);
    }
    if (slot < 0 || slot >= slotCount) {
      throw new IllegalArgumentException(
          "slot (" + slot + ") must be in 0.." + (slotCount - 1));
    }
    if (generation < 1) {
      throw new IllegalArgumentException("generation (" + generation + ") must be >= 1");
    }
    if (slotCount < 64 && (failedSlots >>> slotCount) != 0) {
      throw new IllegalArgumentException(
          "failedSlots (0x"
              + Long.toHexString(failedSlots)
              + ") names slots beyond slotCount ("
              + slotCount
              + ")");
    }
    if (slotCount < 64 && (rebuildingSlots >>> slotCount) != 0) {
      throw new IllegalArgumentException(
          "rebuildingSlots (0x"
              + Long.toHexString(rebuildingSlots)
              + ") names slots beyond slotCount ("
              + slotCount
              + ")");
    }
    if ((failedSlots & rebuildingSlots) != 0) {
      throw new IllegalArgumentException(
          "slot "
              + Long.numberOfTrailingZeros(failedSlots & rebuildingSlots)
              + " is both failed and rebuilding (failedSlots 0x"
              + Long.toHexString(failedSlots)
              + ", rebuildingSlots 0x"
              + Long.toHexString(rebuildingSlots)
              + ")");
    }
    created = Instant.ofEpochMilli(created.toEpochMilli());
  }

  /** A label with no slot being rebuilt. */
  public DriveLabel(
      UUID arrayId,
      UUID driveId,
      int slot,
      DriveRole role,
      ArrayConfig config,
      int slotCount,
      long generation,
      long failedSlots,
      Instant created) {
    this(arrayId, driveId, slot, role, config, slotCount, generation, failedSlots, 0L, created);
  }

  /** Whether {@code s} was a failed slot at this label's generation. */
  public boolean isFailed(int s) {
    return s >= 0 && s < 64 && (failedSlots & (1L << s)) != 0;
  }

  /** Whether the drive in slot {@code s} was being rebuilt at this label's generation. */
  public boolean isRebuilding(int s) {
    return s >= 0 && s < 64 && (rebuildingSlots & (1L << s)) != 0;
  }

  /**
   * This label at another generation with another failed-slot set; the rebuilding set is kept,
   * less the slots now failed.
   */
  public DriveLabel at(long newGeneration, long newFailedSlots) {
    return at(newGeneration, newFailedSlots, rebuildingSlots & ~newFailedSlots);
  }

  /** This label at another generation with other failed and rebuilding sets. */
  public DriveLabel at(long newGeneration, long newFailedSlots, long newRebuildingSlots) {
    return new DriveLabel(arrayId, driveId, slot, role, config, slotCount, newGeneration,
        newFailedSlots, newRebuildingSlots, created);
  }

  /** This drive moved to {@code newSlot} with {@code newRole} (a hot spare taking a slot over). */
  public DriveLabel inSlot(int newSlot, DriveRole newRole) {
    return new DriveLabel(arrayId, driveId, newSlot, newRole, config, slotCount, generation,
        failedSlots, rebuildingSlots, created);
  }

  /** Whether {@code other} describes the same array (everything but drive, slot and role). */
  public boolean sameArrayAs(DriveLabel other) {
    return arrayId.equals(other.arrayId)
        && config.equals(other.config)
        && slotCount == other.slotCount
        && generation == other.generation
        && failedSlots == other.failedSlots
        && rebuildingSlots == other.rebuildingSlots
        && created.equals(other.created);
  }
}
