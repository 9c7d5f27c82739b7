package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.drive.LabelFile;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.DriveLabel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * Array membership on disk: creates arrays by labelling drives, assembles them again from their
 * labels (after a restart, with paths and order free to change), and moves them to the next
 * generation when their membership changes. Label format: {@link DriveLabel}; assembly rules:
 * docs/array.md ("Drive labels and assembly").
 *
 * <p>Stateless; the methods are thread-safe with respect to each other only when they touch
 * different drives. One process owns an array's drives: concurrent creation or bumps on the same
 * drives are not detected.
 */
public final class ArrayLabels {
  private ArrayLabels() {}

  /** {@link #create(ArrayConfig, List, boolean)} without force. */
  public static AssembledArray create(ArrayConfig config, List<Path> drives) throws IOException {
    return create(config, drives, false);
  }

  /**
   * Creates a new array on {@code drives}: the first {@code drives.size() - hotSpares} become data
   * slots 0, 1, … in the order given, the rest spares; each gets a label with a fresh drive id and
   * generation 1. Every drive is checked before any label is written.
   *
   * @param force reuse drives that already carry a label or hold files (their files are kept)
   * @throws IllegalArgumentException when the drive count does not fit the config (more than
   *     {@value ArrayConfig#MAX_DRIVES}, or fewer than width + spares), or a drive is not a
   *     directory, given twice, or nested in another
   * @throws ArrayException NOT_EMPTY (naming the drive and the array it belongs to) without force
   */
  public static AssembledArray create(ArrayConfig config, List<Path> drives, boolean force)
      throws IOException {
    return ArrayCreator.create(config, drives, force);
  }

  /**
   * Assembles the only array whose drives are among {@code candidates} (any order; missing,
   * unlabelled and broken candidates are reported, not fatal).
   *
   * @throws ArrayException AMBIGUOUS_ARRAY when drives of several arrays are found (the message
   *     lists them), ARRAY_NOT_FOUND when none is, DUPLICATE_SLOT, INCONSISTENT_LABELS
   */
  public static AssembledArray assemble(Collection<Path> candidates) throws IOException {
    return ArrayAssembler.assemble(candidates, null);
  }

  /**
   * Assembles array {@code arrayId} from its drives among {@code candidates}; drives of other
   * arrays are reported as FOREIGN_DRIVE in {@link AssembledArray#rejected()}.
   *
   * @throws ArrayException ARRAY_NOT_FOUND, DUPLICATE_SLOT, INCONSISTENT_LABELS
   */
  public static AssembledArray assemble(Collection<Path> candidates, UUID arrayId)
      throws IOException {
    if (arrayId == null) {
      throw new IllegalArgumentException("arrayId must not be null");
    }
    return ArrayAssembler.assemble(candidates, arrayId);
  }

  /**
   * Marks {@code slots} failed and moves the array to the next generation: the labels of the
   * present, non-failed drives are rewritten with generation + 1, so a failed drive that comes
   * back is refused as STALE_DRIVE. Slots without a drive are marked failed too.
   *
   * @return the array at the new generation
   * @throws ArrayException IO_ERROR naming the drives whose label could not be written (the
   *     others are at the new generation; mark those failed next)
   */
  public static AssembledArray markFailed(AssembledArray array, int... slots) throws IOException {
    long mask = 0;
    for (int s : slots) {
      array.slot(s); // checks the range
      mask |= 1L << s;
    }
    return GenerationBump.bump(array, mask);
  }

  /**
   * Moves the array to the next generation without failing a slot (other than those without a
   * drive, see {@link #markFailed}).
   */
  public static AssembledArray bumpGeneration(AssembledArray array) throws IOException {
    return GenerationBump.bump(array, 0L);
  }

  /** {@link #replaceDrive(AssembledArray, int, Path, boolean)} without force. */
  public static AssembledArray replaceDrive(AssembledArray array, int slot, Path newDrive)
      throws IOException {
    return replaceDrive(array, slot, newDrive, false);
  }

  /**
   * Puts the blank drive {@code newDrive} into the FAILED or MISSING data slot {@code slot}: it
   * gets a label with a new drive id, the slot is marked rebuilding ({@link
   * DriveState#REBUILDING}) and no longer failed, and the array moves to the next generation (a
   * MISSING slot is failed in a generation of its own first). The new drive is labelled after
   * every other present drive, and every label it carries says rebuilding, so it is never taken as
   * holding trusted data; see docs/array.md ("Rebuild"). Next: attach it to the object store,
   * rebuild ({@code Rebuilder}), then {@link #finishRebuild}.
   *
   * @param force reuse a drive that carries a label or holds files (its files are kept)
   * @return the array at the new generation
   * @throws IllegalArgumentException when the slot is a spare slot or not FAILED or MISSING, or
   *     the drive is not a directory, is a drive of the array or nested in one
   * @throws ArrayException NOT_EMPTY without force; IO_ERROR naming the drives whose label could
   *     not be written
   */
  public static AssembledArray replaceDrive(
      AssembledArray array, int slot, Path newDrive, boolean force) throws IOException {
    return SlotReplacement.replace(array, slot, newDrive, force);
  }

  /**
   * Moves a hot spare ({@link AssembledArray#spare()}) into the FAILED or MISSING data slot
   * {@code failedSlot}: its label is rewritten with that slot and role data (same drive id), the
   * slot is marked rebuilding, and the spare's old slot is left empty (failed in the labels, like
   * any slot without a drive at a bump; the slot count and {@link ArrayConfig#hotSpares()} stay as
   * created, so the array has one spare fewer in effect). The array moves to the next generation
   * (a MISSING slot is failed in a generation of its own first).
   *
   * @return the array at the new generation
   * @throws IllegalArgumentException when the array has no spare, or the slot is a spare slot or
   *     not FAILED or MISSING
   * @throws ArrayException IO_ERROR naming the drives whose label could not be written
   */
  public static AssembledArray promoteSpare(AssembledArray array, int failedSlot)
      throws IOException {
    return SlotReplacement.promote(array, failedSlot);
  }

  /**
   * Ends the rebuild of slot {@code slot} (its rebuilding bit is cleared, the array moves to the
   * next generation): the slot is ONLINE. Call it only once every live object's shard on the
   * slot is durable ({@code Rebuilder} finished with nothing left to do).
   *
   * @return the array at the new generation
   * @throws IllegalArgumentException when the slot is not REBUILDING
   * @throws ArrayException IO_ERROR naming the drives whose label could not be written
   */
  public static AssembledArray finishRebuild(AssembledArray array, int slot) throws IOException {
    return SlotReplacement.finish(array, slot);
  }

  /**
   * The label of one drive, for inspection.
   *
   * @throws ArrayException NO_LABEL, CORRUPT_LABEL or UNSUPPORTED_VERSION naming the path
   */
  public static DriveLabel readLabel(Path drive) throws IOException {
    return LabelFile.read(drive);
  }
}
