package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.drive.LabelFile;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DriveLabel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Finds an array among candidate drive directories, given in any order. The rules, in the order
 * they apply (docs/array.md, "Assembly", says the same for admins):
 *
 * <ol>
 *   <li>Every candidate's label is read; a leftover temp label is deleted first. A candidate
 *       without a readable label is rejected (NO_LABEL, CORRUPT_LABEL, UNSUPPORTED_VERSION,
 *       IO_ERROR). Two candidates that are the same directory count once.
 *   <li>The array: the one with the id asked for (ARRAY_NOT_FOUND if none of its drives is
 *       there); without an id, the only array found (AMBIGUOUS_ARRAY listing them all when there
 *       are several, ARRAY_NOT_FOUND when there is none). Drives of other arrays are rejected as
 *       FOREIGN_DRIVE.
 *   <li>The newest generation among the array's drives is the array's. Labels at that generation
 *       must agree on the array (INCONSISTENT_LABELS otherwise).
 *   <li>A drive one generation behind whose slot is not failed at the newest generation missed
 *       only an interrupted bump: its label is rewritten to the newest generation and it is taken.
 *       Any other older drive is rejected as STALE_DRIVE.
 *   <li>Two drives of the newest generation in one slot: DUPLICATE_SLOT, nothing assembled.
 *   <li>Slots failed at the newest generation are FAILED, slots without a drive MISSING; a slot
 *       whose drive is present and whose rebuilding bit is set is REBUILDING.
 * </ol>
 *
 * Only the errors in rules 2, 3 and 5 fail the whole assembly; every other problem rejects one
 * drive and is reported in {@link AssembledArray#rejected()}, so an array with a bad drive still
 * comes up, degraded.
 */
final class ArrayAssembler {
  private static final System.Logger LOG = System.getLogger(ArrayAssembler.class.getName());

  private ArrayAssembler() {}

  static AssembledArray assemble(Collection<Path> candidates, UUID wanted) throws IOException {
    if (candidates == null) {
      throw new IllegalArgumentException("candidates must not be null");
    }
    List<RejectedDrive> rejected = new ArrayList<>();
    Map<UUID, List<AssembledArray.Member>> byArray = new LinkedHashMap<>();
    List<Path> seen = new ArrayList<>();
    for (Path c : candidates) {
      Path key = Files.isDirectory(c) ? c.toRealPath() : c.toAbsolutePath().normalize();
      if (seen.contains(key)) {
        continue;
      }
      seen.add(key);
      try {
        if (Files.isDirectory(c)) {
          LabelFile.removeLeftoverTemp(c);
        }
        DriveLabel l = LabelFile.read(c);
        byArray.computeIfAbsent(l.arrayId(), k -> new ArrayList<>())
            .add(new AssembledArray.Member(c, l));
      } catch (ArrayException e) {
        rejected.add(new RejectedDrive(c, e));
      } catch (IOException e) {
        rejected.add(new RejectedDrive(c, new ArrayException(ArrayError.IO_ERROR, c,
            "drive " + c + ": label cannot be read: " + e, e)));
      }
    }
    UUID id = choose(byArray, wanted, candidates.size());
    for (Map.Entry<UUID, List<AssembledArray.Member>> e : byArray.entrySet()) {
      if (!e.getKey().equals(id)) {
        for (AssembledArray.Member m : e.getValue()) {
          rejected.add(new RejectedDrive(m.drive(), new ArrayException(
              ArrayError.FOREIGN_DRIVE, m.drive(), "drive " + m.drive() + " belongs to array "
                  + m.label().arrayId() + " (slot " + m.label().slot() + ", generation "
                  + m.label().generation() + "), not to array " + id)));
        }
      }
    }
    AssembledArray array = members(byArray.get(id), rejected);
    for (RejectedDrive r : array.rejected()) {
      LOG.log(System.Logger.Level.WARNING, "array {0}: drive {1} not taken: {2}: {3}",
          id, r.drive(), r.reason().error(), r.reason().getMessage());
    }
    LOG.log(System.Logger.Level.INFO, "assembled {0}", array);
    return array;
  }

  private static UUID choose(
      Map<UUID, List<AssembledArray.Member>> byArray, UUID wanted, int candidates)
      throws ArrayException {
    if (wanted != null) {
      if (!byArray.containsKey(wanted)) {
        throw new ArrayException(ArrayError.ARRAY_NOT_FOUND, null, "no drive of array " + wanted
            + " among " + candidates + " candidate(s)" + found(byArray));
      }
      return wanted;
    }
    if (byArray.isEmpty()) {
      throw new ArrayException(ArrayError.ARRAY_NOT_FOUND, null,
          "no labelled drive among " + candidates + " candidate(s)");
    }
    if (byArray.size() > 1) {
      throw new ArrayException(ArrayError.AMBIGUOUS_ARRAY, null, "the candidates hold drives of "
          + byArray.size() + " arrays; name the one to assemble" + found(byArray));
    }
    return byArray.keySet().iterator().next();
  }

  private static String found(Map<UUID, List<AssembledArray.Member>> byArray) {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<UUID, List<AssembledArray.Member>> e : byArray.entrySet()) {
      DriveLabel any = e.getValue().get(0).label();
      s.append("; array ").append(e.getKey()).append(" (").append(any.config().protection())
          .append(", ").append(any.slotCount()).append(" slots) on");
      for (AssembledArray.Member m : e.getValue()) {
        s.append(' ').append(m.drive());
      }
    }
    return s.toString();
  }

  private static AssembledArray members(
      List<AssembledArray.Member> drives, List<RejectedDrive> rejected) throws IOException {
    AssembledArray.Member newest = drives.get(0);
    for (AssembledArray.Member m : drives) {
      if (m.label().generation() > newest.label().generation()) {
        newest = m;
      }
    }
    DriveLabel ref = newest.label();
    Map<Integer, AssembledArray.Member> slots = new TreeMap<>();
    List<AssembledArray.Member> behind = new ArrayList<>();
    for (AssembledArray.Member m : drives) {
      DriveLabel l = m.label();
      if (l.generation() < ref.generation()) {
        behind.add(m);
        continue;
      }
      if (!l.sameArrayAs(ref)) {
        throw new ArrayException(ArrayError.INCONSISTENT_LABELS, m.drive(), "drives "
            + newest.drive() + " and " + m.drive() + " of array " + ref.arrayId()
            + " disagree at generation " + ref.generation() + ": " + describe(ref) + " vs "
            + describe(l));
      }
      AssembledArray.Member other = slots.putIfAbsent(l.slot(), m);
      if (other != null) {
        throw duplicate(ref, other, m);
      }
    }
    Map<Integer, AssembledArray.Member> forwarded = new TreeMap<>();
    for (AssembledArray.Member m : behind) {
      DriveLabel l = m.label();
      boolean missedInterruptedBump = l.generation() == ref.generation() - 1
          && !ref.isFailed(l.slot())
          && !slots.containsKey(l.slot())
          && l.at(ref.generation(), ref.failedSlots(), ref.rebuildingSlots()).sameArrayAs(ref);
      if (!missedInterruptedBump) {
        rejected.add(new RejectedDrive(m.drive(), new ArrayException(ArrayError.STALE_DRIVE,
            m.drive(), "drive " + m.drive() + " (slot " + l.slot() + ") is stale: its label has"
                + " generation " + l.generation() + ", array " + ref.arrayId() + " is at"
                + " generation " + ref.generation() + "; it missed a membership change and"
                + " holds no trusted data")));
        continue;
      }
      AssembledArray.Member other = forwarded.putIfAbsent(l.slot(), m);
      if (other != null) {
        throw duplicate(l, other, m);
      }
    }
    for (AssembledArray.Member m : forwarded.values()) {
      DriveLabel l = m.label();
      DriveLabel forward = l.at(ref.generation(), ref.failedSlots(), ref.rebuildingSlots());
      try {
        LabelFile.write(m.drive(), forward);
        LOG.log(System.Logger.Level.INFO, "array {0}: drive {1} (slot {2}) missed an interrupted"
            + " bump to generation {3}; label brought forward", ref.arrayId(), m.drive(),
            l.slot(), ref.generation());
        slots.put(l.slot(), new AssembledArray.Member(m.drive(), forward));
      } catch (IOException e) {
        rejected.add(new RejectedDrive(m.drive(), new ArrayException(ArrayError.IO_ERROR,
            m.drive(), "drive " + m.drive() + ": label cannot be brought forward to generation "
                + ref.generation() + ": " + e, e)));
      }
    }
    return new AssembledArray(ref, slots, rejected);
  }

  private static ArrayException duplicate(
      DriveLabel gen, AssembledArray.Member a, AssembledArray.Member b) {
    return new ArrayException(ArrayError.DUPLICATE_SLOT, b.drive(), "slot " + b.label().slot()
        + " of array " + gen.arrayId() + " is claimed by two drives at generation "
        + gen.generation() + ": " + a.drive() + " (drive " + a.label().driveId() + ") and "
        + b.drive() + " (drive " + b.label().driveId() + "); remove the one that does not"
        + " belong (a copied label?)");
  }

  private static String describe(DriveLabel l) {
    return l.config() + ", " + l.slotCount() + " slots, failed 0x"
        + Long.toHexString(l.failedSlots()) + ", rebuilding 0x"
        + Long.toHexString(l.rebuildingSlots()) + ", created " + l.created();
  }
}
