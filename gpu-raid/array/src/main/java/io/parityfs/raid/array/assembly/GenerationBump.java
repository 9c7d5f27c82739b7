package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.drive.LabelFile;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DriveLabel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Moves an array to its next generation: the new failed-slot set is the old one, plus the slots
 * being failed, plus every slot with no drive present (a drive absent at a membership change has
 * missed it, so it must come back as stale); the labels of the remaining present drives are
 * rewritten with generation + 1 and that set. A failed slot is never rebuilding: failing a slot
 * clears its rebuilding bit.
 *
 * <p>A bump can also let a drive join ({@link Change#joining}: a replacement, or a hot spare
 * moved to a data slot) into a slot that has no drive; that slot's failed bit is cleared and its
 * rebuilding bit set, and <b>the joining drive is labelled last</b>, after every other present
 * drive. A slot can also be vacated ({@link Change#vacate}: the spare's old slot), which then
 * counts as a slot without a drive, so failed.
 *
 * <p><b>Crash safety.</b> Labels are rewritten one by one, each crash-safely ({@link LabelFile}).
 * A crash part way leaves some drives at the new generation and some at the old one; assembly
 * completes such an interrupted bump (see {@link ArrayAssembler}: a drive one generation behind
 * whose slot is not failed at the newest generation is brought forward, with the newest
 * failed and rebuilding sets). For a joining drive: every label it ever carries has its slot's
 * rebuilding bit set (until {@link ArrayLabels#finishRebuild}), so it is never taken as holding
 * trusted data; and since it is written last, a crash before its label is durable leaves its
 * slot without a drive (MISSING at the new generation, or still FAILED at the old one), never
 * with the wrong one. The drive that used to fill the slot is at least two generations behind
 * (the slot was failed in an earlier bump, which it did not get), so it is stale, never rolled
 * forward.
 */
final class GenerationBump {
  private static final System.Logger LOG = System.getLogger(GenerationBump.class.getName());

  private GenerationBump() {}

  /**
   * What a bump changes besides the generation.
   *
   * @param fail slots to mark failed
   * @param rebuilt slots whose rebuild is complete: their rebuilding bit is cleared
   * @param vacate a slot whose drive leaves it (the spare's old slot), or -1
   * @param joining a drive joining a slot that has none, with its label (any generation and
   *     sets: they are replaced), or null
   */
  record Change(long fail, long rebuilt, int vacate, AssembledArray.Member joining) {
    static Change failing(long slots) {
      return new Change(slots, 0L, -1, null);
    }
  }

  static AssembledArray bump(AssembledArray array, long failSlots) throws IOException {
    return apply(array, Change.failing(failSlots));
  }

  static AssembledArray apply(AssembledArray array, Change change) throws IOException {
    DriveLabel ref = array.reference();
    long all = ref.slotCount() == 64 ? -1L : (1L << ref.slotCount()) - 1;
    if ((change.fail() & ~all) != 0 || (change.rebuilt() & ~all) != 0) {
      throw new IllegalArgumentException("slots to fail (0x" + Long.toHexString(change.fail())
          + ") and rebuilt (0x" + Long.toHexString(change.rebuilt())
          + ") must be below the slot count (" + ref.slotCount() + ")");
    }
    Map<Integer, AssembledArray.Member> members = array.members();
    if (change.vacate() >= 0) {
      members.remove(change.vacate());
    }
    int joinSlot = change.joining() == null ? -1 : change.joining().label().slot();
    long failed = ref.failedSlots() | change.fail();
    for (int s = 0; s < ref.slotCount(); s++) {
      if (!members.containsKey(s) && s != joinSlot) {
        failed |= 1L << s;
      }
    }
    long rebuilding = ref.rebuildingSlots() & ~change.rebuilt();
    if (joinSlot >= 0) {
      failed &= ~(1L << joinSlot);
      rebuilding |= 1L << joinSlot;
    }
    rebuilding &= ~failed;
    long next = ref.generation() + 1;
    Map<Integer, AssembledArray.Member> kept = new TreeMap<>();
    List<String> errors = new ArrayList<>();
    for (AssembledArray.Member m : members.values()) {
      if ((failed & (1L << m.label().slot())) != 0) {
        continue;
      }
      write(m, m.label().at(next, failed, rebuilding), kept, errors);
    }
    if (change.joining() != null) {
      // Last: see the class comment.
      write(change.joining(), change.joining().label().at(next, failed, rebuilding), kept, errors);
    }
    DriveLabel newRef = ref.at(next, failed, rebuilding);
    AssembledArray result = new AssembledArray(newRef, kept, List.of());
    LOG.log(System.Logger.Level.INFO, "array {0}: generation {1} -> {2}, failed slots 0x{3},"
        + " rebuilding slots 0x{4}", ref.arrayId(), ref.generation(), next,
        Long.toHexString(failed), Long.toHexString(rebuilding));
    if (!errors.isEmpty()) {
      throw new ArrayException(ArrayError.IO_ERROR, null, "array " + ref.arrayId()
          + ": generation " + next + " could not be written to " + String.join("; ", errors)
          + "; mark those slots failed");
    }
    return result;
  }

  private static void write(AssembledArray.Member m, DriveLabel l,
      Map<Integer, AssembledArray.Member> kept, List<String> errors) {
    try {
      LabelFile.write(m.drive(), l);
      kept.put(l.slot(), new AssembledArray.Member(m.drive(), l));
    } catch (IOException e) {
      errors.add(m.drive() + " (slot " + l.slot() + "): " + e);
    }
  }
}
