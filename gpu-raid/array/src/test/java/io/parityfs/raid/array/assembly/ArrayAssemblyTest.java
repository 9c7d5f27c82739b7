package io.parityfs.raid.array.assembly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.parityfs.raid.array.format.LabelEncoder;
import io.parityfs.raid.array.format.LabelFormat;
import io.parityfs.raid.array.format.Labels;
import io.parityfs.raid.codec.CodecGeometry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArrayAssemblyTest {
  private static final ArrayConfig RS_4_2_SPARE =
      ArrayConfig.builder().geometry(CodecGeometry.reedSolomon(4, 2)).hotSpares(1).build();

  @TempDir Path root;

  private List<Path> drives(String prefix, int n) throws IOException {
    List<Path> d = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      d.add(Files.createDirectories(root.resolve(prefix + i)));
    }
    return d;
  }

  @Test
  void createLabelsDataThenSpares() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray a = ArrayLabels.create(RS_4_2_SPARE, d);
    assertEquals(1, a.generation());
    assertEquals(7, a.slotCount());
    assertEquals(RS_4_2_SPARE, a.config());
    assertEquals(6, a.count(DriveState.ONLINE));
    assertEquals(DriveState.SPARE, a.slot(6).state());
    for (int i = 0; i < 7; i++) {
      DriveLabel l = ArrayLabels.readLabel(d.get(i));
      assertEquals(a.arrayId(), l.arrayId());
      assertEquals(i, l.slot());
      assertEquals(i < 6 ? DriveRole.DATA : DriveRole.SPARE, l.role());
      assertEquals(1, l.generation());
      assertEquals(d.get(i), a.slot(i).drive());
    }
    Set<Object> driveIds = new HashSet<>();
    a.slots().forEach(s -> driveIds.add(s.label().driveId()));
    assertEquals(7, driveIds.size());
  }

  @Test
  void assemblesFromShuffledRenamedDrives() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray created = ArrayLabels.create(RS_4_2_SPARE, d);
    // After a "restart" every mount point has moved, and the list comes in another order.
    List<Path> moved = new ArrayList<>();
    for (int i = 0; i < d.size(); i++) {
      Path to = root.resolve("mnt-" + (char) ('a' + (i * 3) % 7));
      Files.move(d.get(i), to);
      moved.add(to);
    }
    List<Path> shuffled = new ArrayList<>(moved);
    Collections.shuffle(shuffled, new Random(42));
    AssembledArray a = ArrayLabels.assemble(shuffled);
    assertEquals(created.arrayId(), a.arrayId());
    assertEquals(RS_4_2_SPARE, a.config());
    assertEquals(created.created(), a.created());
    for (int i = 0; i < 7; i++) {
      assertEquals(moved.get(i), a.slot(i).drive(), "slot " + i);
      assertEquals(created.slot(i).label(), a.slot(i).label());
      assertEquals(created.slot(i).state(), a.slot(i).state());
    }
    assertTrue(a.rejected().isEmpty());
  }

  @Test
  void missingDrivesLeaveMissingSlots() throws IOException {
    List<Path> d = drives("nvme", 7);
    ArrayLabels.create(RS_4_2_SPARE, d);
    List<Path> some = new ArrayList<>(d);
    some.remove(6);
    some.remove(2);
    some.add(root.resolve("never-mounted"));
    AssembledArray a = ArrayLabels.assemble(some);
    assertEquals(DriveState.MISSING, a.slot(2).state());
    assertNull(a.slot(2).drive());
    assertFalse(a.slot(2).drivePath().isPresent());
    assertEquals(DriveState.MISSING, a.slot(6).state());
    assertEquals(5, a.count(DriveState.ONLINE));
    assertEquals(1, a.rejected().size());
    assertEquals(ArrayError.NO_LABEL, a.rejected().get(0).reason().error());
  }

  @Test
  void foreignDrivesAreReportedWhenTheArrayIsNamedAndAmbiguousOtherwise() throws IOException {
    AssembledArray mine = ArrayLabels.create(RS_4_2_SPARE, drives("mine", 7));
    AssembledArray other = ArrayLabels.create(
        ArrayConfig.builder().mirror(2).build(), drives("other", 2));
    List<Path> all = new ArrayList<>();
    try (var s = Files.list(root)) {
      s.sorted().forEach(all::add);
    }
    ArrayException e = assertThrows(ArrayException.class, () -> ArrayLabels.assemble(all));
    assertEquals(ArrayError.AMBIGUOUS_ARRAY, e.error());
    assertTrue(e.getMessage().contains(mine.arrayId() + " (rs:4+2, 7 slots)"), e.getMessage());
    assertTrue(e.getMessage().contains(other.arrayId() + " (mirror:2, 2 slots) on "
        + root.resolve("other0")), e.getMessage());

    AssembledArray a = ArrayLabels.assemble(all, mine.arrayId());
    assertEquals(7, a.count(DriveState.ONLINE) + a.count(DriveState.SPARE));
    assertEquals(2, a.rejected().size());
    for (RejectedDrive r : a.rejected()) {
      assertEquals(ArrayError.FOREIGN_DRIVE, r.reason().error());
      assertTrue(r.reason().getMessage().contains("belongs to array " + other.arrayId()),
          r.reason().getMessage());
    }
    AssembledArray b = ArrayLabels.assemble(all, other.arrayId());
    assertEquals(2, b.count(DriveState.ONLINE));
    assertEquals(7, b.rejected().size());

    java.util.UUID nobody = java.util.UUID.randomUUID();
    e = assertThrows(ArrayException.class, () -> ArrayLabels.assemble(all, nobody));
    assertEquals(ArrayError.ARRAY_NOT_FOUND, e.error());
    e = assertThrows(ArrayException.class,
        () -> ArrayLabels.assemble(List.of(root.resolve("nothing"))));
    assertEquals(ArrayError.ARRAY_NOT_FOUND, e.error());
  }

  @Test
  void aFailedDriveThatComesBackIsStale() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray a = ArrayLabels.create(RS_4_2_SPARE, d);
    AssembledArray b = ArrayLabels.markFailed(a, 2);
    assertEquals(2, b.generation());
    assertEquals(DriveState.FAILED, b.slot(2).state());
    assertEquals(1, ArrayLabels.readLabel(d.get(2)).generation()); // left alone
    assertEquals(2, ArrayLabels.readLabel(d.get(0)).generation());

    AssembledArray c = ArrayLabels.assemble(d);
    assertEquals(2, c.generation());
    assertEquals(DriveState.FAILED, c.slot(2).state());
    assertNull(c.slot(2).drive());
    assertEquals(5, c.count(DriveState.ONLINE));
    assertEquals(6, c.dataSlots());
    assertEquals(ArrayState.DEGRADED, ArrayHealth.arrayState(
        c.driveStates(), c.config().protection().tolerates(), false));
    assertEquals(1, c.rejected().size());
    ArrayException stale = c.rejected().get(0).reason();
    assertEquals(ArrayError.STALE_DRIVE, stale.error());
    assertEquals(d.get(2), stale.path());
    assertTrue(stale.getMessage().contains("generation 1, array " + a.arrayId()
        + " is at generation 2"), stale.getMessage());
  }

  @Test
  void aDriveAbsentAtABumpIsStaleWhenItReturns() throws IOException {
    List<Path> d = drives("nvme", 7);
    ArrayLabels.create(RS_4_2_SPARE, d);
    List<Path> without4 = new ArrayList<>(d);
    without4.remove(4);
    AssembledArray degraded = ArrayLabels.assemble(without4);
    assertEquals(DriveState.MISSING, degraded.slot(4).state());
    AssembledArray bumped = ArrayLabels.bumpGeneration(degraded);
    assertEquals(DriveState.FAILED, bumped.slot(4).state());

    AssembledArray back = ArrayLabels.assemble(d);
    assertEquals(DriveState.FAILED, back.slot(4).state());
    assertEquals(ArrayError.STALE_DRIVE, back.rejected().get(0).reason().error());
  }

  @Test
  void aDriveThatMissedAnInterruptedBumpIsBroughtForward() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray a = ArrayLabels.create(RS_4_2_SPARE, d);
    byte[] before = Files.readAllBytes(LabelFile.of(d.get(3)));
    ArrayLabels.bumpGeneration(a);
    // Simulate a crash part way through the bump: drive 3 never got generation 2.
    Files.write(LabelFile.of(d.get(3)), before);

    AssembledArray c = ArrayLabels.assemble(d);
    assertEquals(2, c.generation());
    assertEquals(DriveState.ONLINE, c.slot(3).state());
    assertTrue(c.rejected().isEmpty(), c.rejected().toString());
    assertEquals(2, ArrayLabels.readLabel(d.get(3)).generation());

    // Two generations behind is stale, not an interrupted bump.
    ArrayLabels.bumpGeneration(c);
    ArrayLabels.bumpGeneration(ArrayLabels.assemble(d));
    Files.write(LabelFile.of(d.get(3)), before);
    AssembledArray e = ArrayLabels.assemble(d);
    assertEquals(DriveState.MISSING, e.slot(3).state());
    assertEquals(ArrayError.STALE_DRIVE, e.rejected().get(0).reason().error());
  }

  @Test
  void twoDrivesInOneSlotRefuseToAssemble() throws IOException {
    List<Path> d = drives("nvme", 7);
    ArrayLabels.create(RS_4_2_SPARE, d);
    Path copy = Files.createDirectories(root.resolve("copy"));
    Files.copy(LabelFile.of(d.get(1)), LabelFile.of(copy));
    List<Path> candidates = new ArrayList<>(d);
    candidates.add(copy);
    ArrayException e = assertThrows(ArrayException.class,
        () -> ArrayLabels.assemble(candidates));
    assertEquals(ArrayError.DUPLICATE_SLOT, e.error());
    assertTrue(e.getMessage().contains("slot 1 of array"), e.getMessage());
    assertTrue(e.getMessage().contains(d.get(1).toString()), e.getMessage());
    assertTrue(e.getMessage().contains(copy.toString()), e.getMessage());
  }

  @Test
  void theSameDirectoryTwiceCountsOnce() throws IOException {
    List<Path> d = drives("nvme", 7);
    ArrayLabels.create(RS_4_2_SPARE, d);
    List<Path> candidates = new ArrayList<>(d);
    candidates.add(root.resolve("nvme1/../nvme1"));
    AssembledArray a = ArrayLabels.assemble(candidates);
    assertEquals(6, a.count(DriveState.ONLINE));
  }

  @Test
  void aCorruptLabelRejectsOneDriveNotTheArray() throws IOException {
    List<Path> d = drives("nvme", 7);
    ArrayLabels.create(RS_4_2_SPARE, d);
    Path label = LabelFile.of(d.get(0));
    byte[] bytes = Files.readAllBytes(label);
    bytes[40] ^= (byte) 0x80;
    Files.write(label, bytes);
    Files.write(LabelFile.of(d.get(5)), java.util.Arrays.copyOf(bytes, 60));
    AssembledArray a = ArrayLabels.assemble(d);
    assertEquals(DriveState.MISSING, a.slot(0).state());
    assertEquals(DriveState.MISSING, a.slot(5).state());
    assertEquals(2, a.rejected().size());
    for (RejectedDrive r : a.rejected()) {
      assertEquals(ArrayError.CORRUPT_LABEL, r.reason().error());
    }
    assertTrue(a.rejected().get(0).reason().getMessage().contains(label.toString()));
    assertTrue(a.rejected().get(1).reason().getMessage().contains("is truncated"));
  }

  @Test
  void aLeftoverTempLabelIsRemovedAndTheValidLabelUsed() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray created = ArrayLabels.create(RS_4_2_SPARE, d);
    // A crash between writing the temp file and the rename: a half-written temp file.
    Path temp = d.get(2).resolve(LabelFormat.TEMP_NAME);
    Files.write(temp, new byte[] {'P', 'F', 'S'});
    AssembledArray a = ArrayLabels.assemble(d);
    assertEquals(DriveState.ONLINE, a.slot(2).state());
    assertEquals(created.slot(2).label(), a.slot(2).label());
    assertFalse(Files.exists(temp));
    // A temp file alone (crash during the very first write) means no label.
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    Files.write(fresh.resolve(LabelFormat.TEMP_NAME), LabelEncoder.encode(Labels.golden()));
    List<Path> candidates = new ArrayList<>(d);
    candidates.add(fresh);
    a = ArrayLabels.assemble(candidates);
    assertEquals(ArrayError.NO_LABEL, a.rejected().get(0).reason().error());
    assertFalse(Files.exists(fresh.resolve(LabelFormat.TEMP_NAME)));
  }

  @Test
  void createRefusesLabelledOrNonEmptyDrivesUnlessForced() throws IOException {
    List<Path> d = drives("nvme", 7);
    AssembledArray first = ArrayLabels.create(RS_4_2_SPARE, d);
    ArrayException e = assertThrows(ArrayException.class,
        () -> ArrayLabels.create(RS_4_2_SPARE, d));
    assertEquals(ArrayError.NOT_EMPTY, e.error());
    assertEquals(d.get(0), e.path());
    assertTrue(e.getMessage().contains("drive " + d.get(0) + " already belongs to array "
        + first.arrayId() + " (slot 0, generation 1, rs:4+2)"), e.getMessage());

    List<Path> more = drives("fresh", 7);
    Files.writeString(more.get(3).resolve("chunk-0001"), "data");
    Files.createDirectories(more.get(4).resolve("lost+found"));
    e = assertThrows(ArrayException.class, () -> ArrayLabels.create(RS_4_2_SPARE, more));
    assertEquals(ArrayError.NOT_EMPTY, e.error());
    assertTrue(e.getMessage().contains("holds 1 entry (first: chunk-0001)"), e.getMessage());
    for (Path p : more) {
      assertFalse(LabelFile.exists(p), "a refused create writes nothing");
    }

    AssembledArray second = ArrayLabels.create(RS_4_2_SPARE, d, true);
    assertEquals(second.arrayId(), ArrayLabels.assemble(d).arrayId());
    assertFalse(first.arrayId().equals(second.arrayId()));
  }

  @Test
  void createRefusesBadDriveLists() throws IOException {
    List<Path> d = drives("nvme", 7);
    ArrayConfigTest.assertMessage("needs at least 7 drives, not 6",
        () -> create(RS_4_2_SPARE, d.subList(0, 6)));
    List<Path> twice = new ArrayList<>(d.subList(0, 6));
    twice.add(root.resolve("nvme0/."));
    ArrayConfigTest.assertMessage("is given twice", () -> create(RS_4_2_SPARE, twice));
    List<Path> nested = new ArrayList<>(d.subList(0, 6));
    nested.add(Files.createDirectories(d.get(2).resolve("inner")));
    ArrayConfigTest.assertMessage("are nested in one another",
        () -> create(RS_4_2_SPARE, nested));
    List<Path> absent = new ArrayList<>(d.subList(0, 6));
    absent.add(root.resolve("absent"));
    ArrayConfigTest.assertMessage("absent does not exist", () -> create(RS_4_2_SPARE, absent));
  }

  @Test
  void sixtyFourDrivesAreTheLimit() throws IOException {
    ArrayConfig c = ArrayConfig.builder().geometry(CodecGeometry.reedSolomon(10, 4))
        .hotSpares(2).build();
    List<Path> d = drives("nvme", 65);
    ArrayConfigTest.assertMessage("an array has at most 64 drives, not 65", () -> create(c, d));
    List<Path> sixtyFour = d.subList(0, 64);
    ArrayLabels.create(c, sixtyFour);
    List<Path> shuffled = new ArrayList<>(sixtyFour);
    Collections.shuffle(shuffled, new Random(7));
    AssembledArray a = ArrayLabels.assemble(shuffled);
    assertEquals(64, a.slotCount());
    assertEquals(62, a.count(DriveState.ONLINE));
    assertEquals(2, a.count(DriveState.SPARE));
    AssembledArray b = ArrayLabels.markFailed(a, 63);
    assertEquals(DriveState.FAILED, ArrayLabels.assemble(sixtyFour).slot(63).state());
    assertEquals(1L << 63, b.failedSlots());
  }

  @Test
  void mirroredArray() throws IOException {
    ArrayConfig c = ArrayConfig.builder().mirror(3).cellSize(4096).maxObjectSize(1 << 20).build();
    List<Path> d = drives("m", 3);
    ArrayLabels.create(c, d);
    AssembledArray a = ArrayLabels.assemble(d);
    assertEquals(c, a.config());
    assertEquals(3, a.count(DriveState.ONLINE));
  }

  private static void create(ArrayConfig c, List<Path> d) {
    try {
      ArrayLabels.create(c, d);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
