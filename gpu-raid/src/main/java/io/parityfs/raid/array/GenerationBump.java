package io.parityfs.raid.array;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Moves an array to its next generation: the new failed-slot set is the old one, plus the slots
 * being failed, plus every slot with no drive present (a drive absent at a membership change has
 * missed it, so it must come back as stale); the labels of the remaining present drives are
 * rewritten with generation + 1 and that set.
 *
 * <p>A crash part way leaves some drives at the new generation and some at the old one; assembly
 * completes such an interrupted bump (see {@link ArrayAssembler}).
 */
final class GenerationBump {
  private static final System.Logger LOG = System.getLogger(GenerationBump.class.getName());

  private GenerationBump() {}

  static AssembledArray bump(AssembledArray array, long failSlots) throws IOException {
    DriveLabel ref = array.reference();
    if (ref.slotCount() < 64 && (failSlots >>> ref.slotCount()) != 0) {
      throw new IllegalArgumentException("slots to fail (0x" + Long.toHexString(failSlots)
          + ") must be below the slot count (" + ref.slotCount() + ")");
    }
    Map<Integer, AssembledArray.Member> members = array.members();
    long failed = ref.failedSlots() | failSlots;
    for (int s = 0; s < ref.slotCount(); s++) {
      if (!members.containsKey(s)) {
        failed |= 1L << s;
      }
    }
    long next = ref.generation() + 1;
    Map<Integer, AssembledArray.Member> kept = new TreeMap<>();
    List<String> errors = new ArrayList<>();
    for (AssembledArray.Member m : members.values()) {
      if ((failed & (1L << m.label().slot())) != 0) {
        continue;
      }
      DriveLabel l = m.label().at(next, failed);
      try {
        LabelFile.write(m.drive(), l);
        kept.put(l.slot(), new AssembledArray.Member(m.drive(), l));
      } catch (IOException e) {
        errors.add(m.drive() + " (slot " + l.slot() + "): " + e);
      }
    }
    DriveLabel newRef = ref.at(next, failed);
    AssembledArray result = new AssembledArray(newRef, kept, List.of());
    LOG.log(System.Logger.Level.INFO, "array {0}: generation {1} -> {2}, failed slots 0x{3}",
        ref.arrayId(), ref.generation(), next, Long.toHexString(failed));
    if (!errors.isEmpty()) {
      throw new ArrayException(ArrayError.IO_ERROR, null, "array " + ref.arrayId()
          + ": generation " + next + " could not be written to " + String.join("; ", errors)
          + "; mark those slots failed");
    }
    return result;
  }
}
