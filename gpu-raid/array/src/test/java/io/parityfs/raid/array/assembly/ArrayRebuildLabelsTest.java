package io.parityfs.raid.array.assembly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.drive.LabelFile;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayConfigTest;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DriveLabel;
import io.parityfs.raid.array.format.DriveRole;
import io.parityfs.raid.codec.CodecGeometry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The label side of a rebuild: replaceDrive, promoteSpare, finishRebuild, and crashes in them. */
class ArrayRebuildLabelsTest {
  private static final ArrayConfig RS_4_2 =
      ArrayConfig.builder().geometry(CodecGeometry.reedSolomon(4, 2)).build();
  private static final ArrayConfig RS_4_2_SPARE = RS_4_2.toBuilder().hotSpares(1).build();

  @TempDir Path root;

  private List<Path> drives(String prefix, int n) throws IOException {
    List<Path> d = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      d.add(Files.createDirectories(root.resolve(prefix + i)));
    }
    return d;
  }

  private static AssembledArray assembleShuffled(List<Path> paths, long seed) throws IOException {
    List<Path> shuffled = new ArrayList<>(paths);
    Collections.shuffle(shuffled, new Random(seed));
    return ArrayLabels.assemble(shuffled);
  }

  @Test
  void aReplacementIsRebuildingUntilFinishedAndTheOldDriveIsStale() throws IOException {
    List<Path> d = drives("nvme", 6);
    AssembledArray a = ArrayLabels.create(RS_4_2, d);
    AssembledArray failed = ArrayLabels.markFailed(a, 2);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    Files.createDirectories(fresh.resolve("lost+found"));

    AssembledArray r = ArrayLabels.replaceDrive(failed, 2, fresh);
    assertEquals(3, r.generation());
    assertEquals(DriveState.REBUILDING, r.slot(2).state());
    assertEquals(fresh, r.slot(2).drive());
    assertEquals(1L << 2, r.rebuildingSlots());
    assertEquals(0L, r.failedSlots());
    assertEquals(5, r.count(DriveState.ONLINE));
    DriveLabel l = ArrayLabels.readLabel(fresh);
    assertEquals(a.arrayId(), l.arrayId());
    assertEquals(2, l.slot());
    assertEquals(DriveRole.DATA, l.role());
    assertNotEquals(a.slot(2).label().driveId(), l.driveId());
    for (int i = 0; i < 6; i++) {
      DriveLabel on = ArrayLabels.readLabel(i == 2 ? fresh : d.get(i));
      assertEquals(3, on.generation(), "slot " + i);
      assertEquals(1L << 2, on.rebuildingSlots(), "slot " + i);
      assertEquals(0L, on.failedSlots(), "slot " + i);
    }
    assertEquals(ArrayState.REBUILDING, ArrayHealth.arrayState(
        r.dataSlotStates(), r.config().protection().tolerates(), true));

    List<Path> all = new ArrayList<>(d);
    all.add(fresh);
    AssembledArray back = assembleShuffled(all, 1);
    assertEquals(DriveState.REBUILDING, back.slot(2).state());
    assertEquals(fresh, back.slot(2).drive());
    assertEquals(1, back.rejected().size());
    assertEquals(ArrayError.STALE_DRIVE, back.rejected().get(0).reason().error());
    assertEquals(d.get(2), back.rejected().get(0).drive());

    AssembledArray done = ArrayLabels.finishRebuild(back, 2);
    assertEquals(4, done.generation());
    assertEquals(DriveState.ONLINE, done.slot(2).state());
    assertEquals(0L, done.rebuildingSlots());
    AssembledArray again = assembleShuffled(all, 2);
    assertEquals(6, again.count(DriveState.ONLINE));
    assertEquals(fresh, again.slot(2).drive());
    assertEquals(0L, again.rebuildingSlots());
    assertEquals(ArrayError.STALE_DRIVE, again.rejected().get(0).reason().error());
    assertEquals(ArrayState.OPTIMAL, ArrayHealth.arrayState(
        again.dataSlotStates(), again.config().protection().tolerates(), false));
  }

  @Test
  void aMissingSlotIsFailedInABumpOfItsOwnBeforeTheReplacementJoins() throws IOException {
    List<Path> d = drives("nvme", 6);
    ArrayLabels.create(RS_4_2, d);
    List<Path> without3 = new ArrayList<>(d);
    without3.remove(3);
    AssembledArray degraded = ArrayLabels.assemble(without3);
    assertEquals(DriveState.MISSING, degraded.slot(3).state());
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    AssembledArray r = ArrayLabels.replaceDrive(degraded, 3, fresh);
    assertEquals(3, r.generation(), "one bump to fail the slot, one to replace it");
    assertEquals(DriveState.REBUILDING, r.slot(3).state());

    List<Path> all = new ArrayList<>(d); // the old drive of slot 3 comes back, at generation 1
    all.add(fresh);
    AssembledArray back = assembleShuffled(all, 3);
    assertEquals(fresh, back.slot(3).drive());
    assertEquals(DriveState.REBUILDING, back.slot(3).state());
    assertEquals(ArrayError.STALE_DRIVE, back.rejected().get(0).reason().error());
    assertEquals(d.get(3), back.rejected().get(0).drive());
  }

  @Test
  void aHotSpareTakesOverAFailedSlotAndLeavesItsOwnSlotEmpty() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray a = ArrayLabels.create(RS_4_2_SPARE, d);
    assertEquals(6, a.spare().orElseThrow().slot());
    AssembledArray failed = ArrayLabels.markFailed(a, 1);
    AssembledArray p = ArrayLabels.promoteSpare(failed, 1);
    assertEquals(3, p.generation());
    assertEquals(DriveState.REBUILDING, p.slot(1).state());
    assertEquals(d.get(6), p.slot(1).drive());
    assertEquals(DriveState.FAILED, p.slot(6).state());
    assertNull(p.slot(6).drive());
    assertTrue(p.spare().isEmpty());
    assertEquals(7, p.slotCount());
    assertEquals(6, p.dataSlots());
    DriveLabel l = ArrayLabels.readLabel(d.get(6));
    assertEquals(1, l.slot());
    assertEquals(DriveRole.DATA, l.role());
    assertEquals(a.slot(6).label().driveId(), l.driveId(), "the spare keeps its drive id");
    assertEquals(1L << 1, l.rebuildingSlots());
    assertEquals(1L << 6, l.failedSlots());

    AssembledArray back = assembleShuffled(d, 4);
    assertEquals(DriveState.REBUILDING, back.slot(1).state());
    assertEquals(d.get(6), back.slot(1).drive());
    assertEquals(DriveState.FAILED, back.slot(6).state());
    assertEquals(ArrayError.STALE_DRIVE, back.rejected().get(0).reason().error());
    assertEquals(d.get(1), back.rejected().get(0).drive());
    // The vacated spare slot is not a lost data slot.
    assertEquals(ArrayState.REBUILDING, ArrayHealth.arrayState(
        back.dataSlotStates(), back.config().protection().tolerates(), true));

    AssembledArray done = ArrayLabels.finishRebuild(back, 1);
    assertEquals(DriveState.ONLINE, done.slot(1).state());
    AssembledArray again = assembleShuffled(d, 5);
    assertEquals(6, again.count(DriveState.ONLINE));
    assertEquals(ArrayState.OPTIMAL, ArrayHealth.arrayState(
        again.dataSlotStates(), again.config().protection().tolerates(), false));
    AssembledArray next = ArrayLabels.markFailed(again, 0);
    assertThrows(IllegalArgumentException.class, () -> ArrayLabels.promoteSpare(next, 0),
        "the only spare is used up");
  }

  @Test
  void refusals() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray a = ArrayLabels.create(RS_4_2_SPARE, d);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    ArrayConfigTest.assertMessage("slot 2 of array " + a.arrayId() + " is ONLINE",
        () -> replace(a, 2, fresh));
    ArrayConfigTest.assertMessage("slot 6 of array " + a.arrayId() + " is a hot-spare slot",
        () -> replace(a, 6, fresh));
    ArrayConfigTest.assertMessage("slot 2 of array " + a.arrayId() + " is ONLINE",
        () -> promote(a, 2));
    ArrayConfigTest.assertMessage("slot 2 of array " + a.arrayId() + " is ONLINE, not REBUILDING",
        () -> finish(a, 2));

    AssembledArray f = ArrayLabels.markFailed(a, 2);
    ArrayConfigTest.assertMessage("is given twice", () -> replace(f, 2, d.get(3)));
    Path inner = Files.createDirectories(d.get(3).resolve("inner"));
    ArrayConfigTest.assertMessage("are nested in one another", () -> replace(f, 2, inner));
    ArrayConfigTest.assertMessage("does not exist", () -> replace(f, 2, root.resolve("absent")));
    Files.writeString(fresh.resolve("chunk"), "x");
    ArrayException e = assertThrows(ArrayException.class,
        () -> ArrayLabels.replaceDrive(f, 2, fresh));
    assertEquals(ArrayError.NOT_EMPTY, e.error());
    // The old drive itself, labelled: refused without force, taken with it (a new drive id).
    e = assertThrows(ArrayException.class, () -> ArrayLabels.replaceDrive(f, 2, d.get(2)));
    assertEquals(ArrayError.NOT_EMPTY, e.error());
    AssembledArray r = ArrayLabels.replaceDrive(f, 2, d.get(2), true);
    assertEquals(DriveState.REBUILDING, r.slot(2).state());
    assertNotEquals(a.slot(2).label().driveId(), r.slot(2).label().driveId());
    ArrayConfigTest.assertMessage("is REBUILDING", () -> replace(r, 2, fresh));
    AssembledArray none = ArrayLabels.markFailed(ArrayLabels.create(RS_4_2, drives("ns", 6)), 0);
    ArrayConfigTest.assertMessage("has no hot spare", () -> promote(none, 0));
  }

  @Test
  void failingARebuildingSlotClearsItsRebuildingBit() throws IOException {
    List<Path> d = drives("nvme", 6);
    AssembledArray a = ArrayLabels.markFailed(ArrayLabels.create(RS_4_2, d), 4);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    AssembledArray r = ArrayLabels.replaceDrive(a, 4, fresh);
    AssembledArray other = ArrayLabels.markFailed(r, 0); // another drive fails meanwhile
    assertEquals(DriveState.REBUILDING, other.slot(4).state());
    assertEquals(1L << 4, other.rebuildingSlots());
    AssembledArray again = ArrayLabels.markFailed(other, 4); // the replacement fails too
    assertEquals(DriveState.FAILED, again.slot(4).state());
    assertEquals(0L, again.rebuildingSlots());
    List<Path> all = new ArrayList<>(d);
    all.add(fresh);
    assertEquals(DriveState.FAILED, ArrayLabels.assemble(all).slot(4).state());
  }

  // ---- crashes: every subset of the label writes of one step, then assembly ----

  /** The label bytes of each drive (null: none). */
  private static Map<Path, byte[]> labels(List<Path> drives) throws IOException {
    Map<Path, byte[]> m = new HashMap<>();
    for (Path p : drives) {
      Path f = LabelFile.of(p);
      m.put(p, Files.exists(f) ? Files.readAllBytes(f) : null);
    }
    return m;
  }

  private interface Check {
    void check(AssembledArray a, String where) throws IOException;
  }

  /**
   * For every subset of the drives whose label the step changed, puts the new label on those and
   * the old one on the others (as a crash part way through the step may leave them, and more),
   * assembles, and checks.
   */
  private static void everyCrash(List<Path> all, Map<Path, byte[]> before,
      Map<Path, byte[]> after, Check check) throws IOException {
    List<Path> changed = new ArrayList<>();
    for (Path p : all) {
      if (!java.util.Arrays.equals(before.get(p), after.get(p))) {
        changed.add(p);
      }
    }
    assertTrue(changed.size() >= 2, "the step changed " + changed);
    for (int subset = 0; subset < 1 << changed.size(); subset++) {
      StringBuilder where = new StringBuilder("new labels on");
      for (Path p : all) {
        int i = changed.indexOf(p);
        boolean isNew = i >= 0 && (subset & (1 << i)) != 0;
        byte[] bytes = isNew ? after.get(p) : before.get(p);
        if (isNew) {
          where.append(' ').append(p.getFileName());
        }
        if (bytes == null) {
          Files.deleteIfExists(LabelFile.of(p));
        } else {
          Files.write(LabelFile.of(p), bytes);
        }
      }
      check.check(assembleShuffled(all, subset), where.toString());
    }
  }

  @Test
  void aCrashDuringReplaceNeverTrustsTheNewDrive() throws IOException {
    List<Path> d = drives("nvme", 6);
    AssembledArray f = ArrayLabels.markFailed(ArrayLabels.create(RS_4_2, d), 2);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    List<Path> all = new ArrayList<>(d);
    all.add(fresh);
    Map<Path, byte[]> before = labels(all);
    ArrayLabels.replaceDrive(f, 2, fresh);
    Map<Path, byte[]> after = labels(all);
    int[] outcomes = new int[2];
    everyCrash(all, before, after, (a, where) -> {
      ArraySlot s = a.slot(2);
      assertNotEquals(DriveState.ONLINE, s.state(), where);
      assertFalse(d.get(2).equals(s.drive()), where + ": the old drive is never taken");
      if (s.drive() != null) {
        assertEquals(fresh, s.drive(), where);
        assertEquals(DriveState.REBUILDING, s.state(), where);
        outcomes[1]++;
      } else {
        assertTrue(s.state() == DriveState.FAILED || s.state() == DriveState.MISSING, where);
        outcomes[0]++;
        // Doing the step again completes it.
        AssembledArray redo = ArrayLabels.replaceDrive(a, 2, fresh, true);
        assertEquals(DriveState.REBUILDING, redo.slot(2).state(), where);
      }
      for (int i = 0; i < 6; i++) {
        if (i != 2) {
          assertEquals(DriveState.ONLINE, a.slot(i).state(), where + ": slot " + i);
        }
      }
    });
    assertTrue(outcomes[0] > 0 && outcomes[1] > 0, java.util.Arrays.toString(outcomes));
  }

  @Test
  void aCrashDuringPromotionNeverTrustsTheSpare() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray f = ArrayLabels.markFailed(ArrayLabels.create(RS_4_2_SPARE, d), 0);
    Map<Path, byte[]> before = labels(d);
    ArrayLabels.promoteSpare(f, 0);
    Map<Path, byte[]> after = labels(d);
    int[] outcomes = new int[3];
    everyCrash(d, before, after, (a, where) -> {
      ArraySlot s = a.slot(0);
      assertNotEquals(DriveState.ONLINE, s.state(), where);
      assertFalse(d.get(0).equals(s.drive()), where + ": the old drive is never taken");
      if (s.drive() != null) {
        assertEquals(d.get(6), s.drive(), where);
        assertEquals(DriveState.REBUILDING, s.state(), where);
        assertNull(a.slot(6).drive(), where);
        outcomes[0]++;
      } else if (a.slot(6).state() == DriveState.SPARE) {
        assertEquals(DriveState.FAILED, s.state(), where); // nothing happened yet
        outcomes[1]++;
      } else {
        outcomes[2]++; // the spare missed the bump: stale, the slot waits for another drive
        assertTrue(a.rejected().stream().anyMatch(r -> r.drive().equals(d.get(6))
            && r.reason().error() == ArrayError.STALE_DRIVE), where);
      }
      for (int i = 1; i < 6; i++) {
        assertEquals(DriveState.ONLINE, a.slot(i).state(), where + ": slot " + i);
      }
    });
    assertTrue(outcomes[0] > 0 && outcomes[1] > 0, java.util.Arrays.toString(outcomes));
  }

  @Test
  void aCrashDuringFinishLeavesTheSlotRebuildingOrOnlineWithTheNewDrive() throws IOException {
    List<Path> d = drives("nvme", 6);
    AssembledArray f = ArrayLabels.markFailed(ArrayLabels.create(RS_4_2, d), 5);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    AssembledArray r = ArrayLabels.replaceDrive(f, 5, fresh);
    List<Path> all = new ArrayList<>(d);
    all.add(fresh);
    Map<Path, byte[]> before = labels(all);
    ArrayLabels.finishRebuild(r, 5);
    Map<Path, byte[]> after = labels(all);
    int[] outcomes = new int[2];
    everyCrash(all, before, after, (a, where) -> {
      assertEquals(fresh, a.slot(5).drive(), where);
      if (a.slot(5).state() == DriveState.ONLINE) {
        outcomes[1]++;
      } else {
        assertEquals(DriveState.REBUILDING, a.slot(5).state(), where);
        outcomes[0]++;
      }
      assertEquals(5, a.count(DriveState.ONLINE) - (a.slot(5).state() == DriveState.ONLINE
          ? 1 : 0), where);
    });
    assertTrue(outcomes[0] > 0 && outcomes[1] > 0, java.util.Arrays.toString(outcomes));
  }

  private static void replace(AssembledArray a, int slot, Path drive) {
    try {
      ArrayLabels.replaceDrive(a, slot, drive);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void promote(AssembledArray a, int slot) {
    try {
      ArrayLabels.promoteSpare(a, slot);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void finish(AssembledArray a, int slot) {
    try {
      ArrayLabels.finishRebuild(a, slot);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
