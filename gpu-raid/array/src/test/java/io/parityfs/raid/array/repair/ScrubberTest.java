package io.parityfs.raid.array.repair;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.fileDrives;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.array.object.ArrayFixtures;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ShardReader;
import io.parityfs.testkit.Eventually;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Scrubber, ScrubReport and ScrubSchedule over FileDrive and FaultyDrive. */
class ScrubberTest {
  private static final int CELL = 4096;
  private static final long ID = 0x0123456789abcdefL;
  private static final long OTHER = 0x00000000000000ffL;

  @TempDir Path root;

  // ---- fixtures ----

  private List<Path> dirs(String name, int n) throws IOException {
    return ArrayFixtures.dirs(root, name, n);
  }

  private static FaultyDrive[] faulty(List<Path> dirs) throws IOException {
    FaultyDrive[] d = new FaultyDrive[dirs.size()];
    for (int i = 0; i < d.length; i++) {
      d[i] = new FaultyDrive(FileDrive.open(dirs.get(i), Drive.IoMode.BUFFERED), 7 + i);
    }
    return d;
  }

  private static ObjectStore store(ArrayConfig c, Drive[] drives) {
    return ArrayFixtures.store(c, drives, codec(c));
  }

  private static void write(ObjectStore s, long id, byte[] data) throws IOException {
    s.write(id, new ByteArrayInputStream(data), data.length);
  }

  private static byte[] readAll(ObjectStore s, long id) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate((int) s.length(id));
    assertEquals(buf.capacity(), s.read(id, 0, buf));
    return buf.array();
  }

  private static int k(ArrayConfig c) {
    return c.protection() instanceof Protection.Parity p ? p.geometry().k() : 1;
  }

  /** The directory holding shard {@code shard} of {@code id}. */
  private static Path dirOf(List<Path> dirs, ArrayConfig c, long id, int shard) {
    int[] slots = DrivePlacement.of(dirs.size(), c.protection().width()).drivesFor(id);
    return dirs.get(slots[shard]);
  }

  /** Flips one bit of cell {@code cell} of shard {@code shard} (version 0) on disk. */
  private static void flipBit(Path dir, long id, int shard, int cell) throws IOException {
    try (FileChannel f = FileChannel.open(dir.resolve(ObjectFiles.shard(id, 0, shard)),
        StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long at = ShardFormat.cellOffset(CELL, cell) + 100;
      ByteBuffer b = ByteBuffer.allocate(1);
      f.read(b, at);
      b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
      f.write(b, at);
    }
  }

  /** Replaces cell {@code cell} of shard {@code shard} with {@code bytes}, CRC entry included. */
  private static void replaceCell(Path dir, long id, int shard, int cell, byte[] bytes)
      throws IOException {
    try (Drive d = FileDrive.open(dir, Drive.IoMode.BUFFERED);
        ShardReader r = ShardReader.open(d, ObjectFiles.shard(id, 0, shard))) {
      r.rewriteCell(cell, ByteBuffer.wrap(bytes));
    }
  }

  /** Cell {@code cell} of shard {@code shard}, checked against its CRC. */
  private static byte[] cellOf(Path dir, long id, int shard, int cell) throws IOException {
    try (Drive d = FileDrive.open(dir, Drive.IoMode.BUFFERED);
        ShardReader r = ShardReader.open(d, ObjectFiles.shard(id, 0, shard))) {
      ByteBuffer b = ByteBuffer.allocate(CELL);
      r.readCell(cell, b);
      return b.array();
    }
  }

  /** Every file of every drive, by path, with its bytes. */
  private static Map<Path, byte[]> snapshot(List<Path> dirs) throws IOException {
    Map<Path, byte[]> out = new TreeMap<>();
    for (Path dir : dirs) {
      try (Stream<Path> l = Files.list(dir)) {
        for (Path f : (Iterable<Path>) l::iterator) {
          out.put(f, Files.readAllBytes(f));
        }
      }
    }
    return out;
  }

  private static void assertSameFiles(Map<Path, byte[]> before, Map<Path, byte[]> after) {
    assertEquals(before.keySet(), after.keySet());
    for (Map.Entry<Path, byte[]> e : before.entrySet()) {
      assertArrayEquals(e.getValue(), after.get(e.getKey()), e.getKey() + " changed");
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    Eventually.until(what, Duration.ofSeconds(20), condition);
  }

  private static void assertClean(ScrubReport r) {
    assertTrue(r.clean(), r.toString());
    assertFalse(r.cancelled());
    assertEquals(0, r.crcErrors());
    assertEquals(0, r.parityMismatches());
    assertEquals(0, r.missingShards());
    assertEquals(0, r.unrecoverableObjects());
    assertEquals(0, r.driveErrors());
  }

  // ---- a clean array ----

  @ParameterizedTest
  @ValueSource(strings = {"raid5:3+1", "raid6:4+2", "rs:6+3", "mirror:2", "mirror:3"})
  void cleanArrayChecksEveryCellAndReportsNothing(String protection) throws IOException {
    ArrayConfig c = config(protection);
    int width = c.protection().width();
    int k = k(c);
    int[] sizes = {k * CELL * 7 + 1234, 1, 0};
    try (ObjectStore s = store(c, fileDrives(dirs("clean", width + 2)))) {
      long stripes = 0;
      for (int i = 0; i < sizes.length; i++) {
        write(s, ID + i, random(sizes[i], i));
        stripes += s.stat(ID + i).orElseThrow().layout().stripes();
      }
      assertEquals(8 + 1, stripes);
      for (int batch : new int[] {Scrubber.DEFAULT_BATCH_BYTES, 3 * CELL, CELL}) {
        Scrubber scrubber = new Scrubber(s, batch);
        ScrubReport r = scrubber.run();
        assertClean(r);
        assertEquals(3, r.objectsScanned());
        assertEquals(0, r.objectsSkipped());
        assertEquals(stripes, r.stripes());
        assertEquals(stripes * width, r.cellsChecked(), "every cell of every shard");
        assertEquals(stripes * width * CELL, r.bytesRead());
        assertEquals(0, r.unavailableShards());
        assertTrue(r.toString().contains("no problems found"), r.toString());
        ScrubProgress p = scrubber.progress();
        assertFalse(p.running());
        assertEquals(3, p.objectsDone());
        assertEquals(3, p.objectsTotal());
        assertEquals(stripes * width * CELL, p.bytesTotal());
        assertEquals(p.bytesTotal(), p.bytesDone());
        assertEquals(1.0, p.fraction());
      }
      assertEquals(0, s.cellsRepaired());
    }
  }

  @Test
  void anEmptyArrayAndAnObjectWithoutCommittedVersion() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("empty", 4);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ScrubReport r = new Scrubber(s).run();
      assertClean(r);
      assertEquals(0, r.objectsScanned());
      // an orphan shard (a crashed write) and no manifest: garbage collection's job, skipped
      write(s, ID, random(CELL * 3, 1));
      Path dir = dirOf(dirs, c, ID, 0);
      Files.copy(dir.resolve(ObjectFiles.shard(ID, 0, 0)),
          dir.resolve(ObjectFiles.shard(OTHER, 0, 0)));
      r = new Scrubber(s).run();
      assertClean(r);
      assertEquals(1, r.objectsScanned());
      assertEquals(1, r.objectsSkipped());
    }
  }

  // ---- CRC errors ----

  @ParameterizedTest
  @ValueSource(strings = {"raid5:3+1", "raid6:4+2", "rs:6+3", "mirror:2", "mirror:3"})
  void flippedBitsInDataAndParityCellsAreRepaired(String protection) throws IOException {
    ArrayConfig c = config(protection);
    int width = c.protection().width();
    List<Path> dirs = dirs("flip", width + 1);
    byte[] data = random(k(c) * CELL * 6 + 77, 3);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
      write(s, OTHER, random(CELL * 2, 4));
    }
    flipBit(dirOf(dirs, c, ID, 0), ID, 0, 1); // a data cell (mirror: copy 0)
    flipBit(dirOf(dirs, c, ID, width - 1), ID, width - 1, 4); // a parity cell (the last copy)
    flipBit(dirOf(dirs, c, ID, width - 1), ID, width - 1, 5);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ScrubReport r = new Scrubber(s, 2 * CELL).run();
      assertEquals(3, r.crcErrors(), r.toString());
      assertEquals(3, r.crcErrorsRepaired(), r.toString());
      assertEquals(0, r.parityMismatches());
      assertEquals(0, r.unrecoverableObjects());
      assertEquals(0, r.missingShards());
      assertEquals(2, r.objectsScanned());
      assertTrue(r.allRepaired());
      assertFalse(r.clean());
      assertEquals(3, s.cellsRepaired(), "counted on the store");
      assertTrue(r.toString().contains("3 CRC errors (3 repaired)"), r.toString());
      assertClean(new Scrubber(s).run());
    }
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.degradedReads(), "repaired on disk: no reconstruction needed");
    }
    // the parity / copy cells are right again, not just self-consistent
    assertArrayEquals(java.util.Arrays.copyOfRange(data, k(c) * CELL, k(c) * CELL + CELL),
        cellOf(dirOf(dirs, c, ID, 0), ID, 0, 1));
    if (c.protection() instanceof Protection.Mirror) {
      assertArrayEquals(java.util.Arrays.copyOfRange(data, 4 * CELL, 5 * CELL),
          cellOf(dirOf(dirs, c, ID, width - 1), ID, width - 1, 4));
    }
  }

  @Test
  void raid6RepairsTwoBadCellsOfOneStripe() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("two", 6);
    byte[] data = random(CELL * 4 * 3, 5);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    flipBit(dirOf(dirs, c, ID, 1), ID, 1, 2);
    flipBit(dirOf(dirs, c, ID, 5), ID, 5, 2);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ScrubReport r = new Scrubber(s).run();
      assertEquals(2, r.crcErrorsRepaired(), r.toString());
      assertEquals(0, r.unrecoverableObjects());
      assertClean(new Scrubber(s).run());
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.degradedReads());
    }
  }

  /**
   * Issue 39: three bad cells of one RAID-6 stripe are beyond repair. The scrubber keeps what it
   * found (for the node to show and publish): the report, the standing damage, which a clean but
   * cancelled scrub does not clear, and the running totals.
   */
  @Test
  void raid6ThreeBadCellsOfOneStripeAreReportedAndKept() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("three", 6);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, random(CELL * 4 * 3, 6));
      write(s, OTHER, random(CELL * 4, 7));
    }
    flipBit(dirOf(dirs, c, ID, 0), ID, 0, 1);
    flipBit(dirOf(dirs, c, ID, 2), ID, 2, 1);
    flipBit(dirOf(dirs, c, ID, 4), ID, 4, 1);
    flipBit(dirOf(dirs, c, OTHER, 3), OTHER, 3, 0); // one bad cell elsewhere: repaired
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      Scrubber scrubber = new Scrubber(s);
      assertTrue(scrubber.lastReport().isEmpty());
      assertTrue(scrubber.damage().isEmpty());
      ScrubReport r = scrubber.run();
      assertEquals(2, r.objectsScanned(), r.toString());
      assertEquals(4, r.crcErrors(), r.toString());
      assertEquals(1, r.repaired(), r.toString());
      assertEquals(1, r.unrecoverableObjects(), r.toString());
      assertEquals(List.of(ID), r.unrecoverableIds());
      assertEquals(r.started().plus(r.duration()), r.ended());
      assertEquals(Optional.of(r), scrubber.lastReport());
      assertEquals(Optional.of(r), scrubber.damage());
      assertEquals(1, scrubber.repairsTotal());
      assertEquals(1, scrubber.unrecoverableTotal());

      ScrubReport stopped = scrubber.tryRun(() -> true).orElseThrow();
      assertTrue(stopped.cancelled());
      assertEquals(Optional.of(stopped), scrubber.lastReport());
      assertEquals(Optional.of(r), scrubber.damage(), "a cancelled scrub does not clear it");

      ScrubReport again = scrubber.run(); // nothing written for the lost stripe: still lost
      assertEquals(List.of(ID), again.unrecoverableIds());
      assertEquals(0, again.repaired());
      assertEquals(Optional.of(again), scrubber.damage());
      assertEquals(2, scrubber.unrecoverableTotal());
      assertEquals(1, scrubber.repairsTotal());
    }
  }

  // ---- damage cleared object by object (issue 39 item 4) ----

  private static final long LOST_A = 0x0000000100000001L;
  private static final long LOST_B = 0x0000000100000002L;
  private static final long LOST_C = 0x0000000100000003L;

  /** Writes A, B and C (RAID-6 4+2) and breaks stripe 1 of each beyond repair (3 bad cells). */
  private List<Path> threeLostObjects(ArrayConfig c, String name) throws IOException {
    List<Path> dirs = dirs(name, 6);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      for (long id : new long[] {LOST_A, LOST_B, LOST_C}) {
        write(s, id, random(CELL * 4 * 3, id));
      }
    }
    for (long id : new long[] {LOST_A, LOST_B, LOST_C}) {
      for (int shard : new int[] {0, 2, 4}) {
        flipBit(dirOf(dirs, c, id, shard), id, shard, 1);
      }
    }
    return dirs;
  }

  /**
   * An object the standing damage lists leaves it when a new version of it commits or it is
   * deleted: the count drops and the id goes; an object neither rewritten nor deleted stays, and
   * once none is left the damage is empty (the target no longer DAMAGED).
   */
  @Test
  void aRewrittenOrDeletedLostObjectLeavesTheDamage() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = threeLostObjects(c, "clear");
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      Scrubber scrubber = new Scrubber(s);
      ScrubReport r = scrubber.run();
      assertEquals(3, r.unrecoverableObjects(), r.toString());
      assertEquals(List.of(LOST_A, LOST_B, LOST_C), r.unrecoverableIds());
      assertEquals(Optional.of(r), scrubber.damage());

      byte[] fresh = random(CELL * 4 * 2, 77);
      write(s, LOST_A, fresh); // a new committed version: A is readable again
      ScrubReport d = scrubber.damage().orElseThrow();
      assertEquals(2, d.unrecoverableObjects(), d.toString());
      assertEquals(List.of(LOST_B, LOST_C), d.unrecoverableIds());
      assertArrayEquals(fresh, readAll(s, LOST_A));

      assertTrue(s.delete(LOST_B));
      d = scrubber.damage().orElseThrow();
      assertEquals(1, d.unrecoverableObjects(), d.toString());
      assertEquals(List.of(LOST_C), d.unrecoverableIds(), "C neither rewritten nor deleted");
      assertEquals(Optional.of(r), scrubber.lastReport(), "the last report stays as it was");
      assertEquals(3, scrubber.unrecoverableTotal());

      write(s, OTHER, random(CELL, 5)); // another object's write changes nothing
      assertEquals(Optional.of(d), scrubber.damage());

      s.delete(LOST_C);
      assertEquals(Optional.empty(), scrubber.damage(), "none left: not damaged any more");

      ScrubReport again = scrubber.run();
      assertEquals(0, again.unrecoverableObjects(), again.toString());
      assertEquals(Optional.empty(), scrubber.damage());
    }
  }

  /**
   * A write that lands during a scrub, after the scrub found the object unrecoverable, takes it
   * off that scrub's report too: the report the scrub keeps when it ends does not list it again.
   */
  @Test
  void aLostObjectRewrittenDuringTheScrubIsNotListedByIt() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = threeLostObjects(c, "during");
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      Scrubber scrubber = new Scrubber(s);
      boolean[] rewritten = {false};
      // called by the scrubbing thread between objects: A (the lowest id) is checked first
      ScrubReport r = scrubber.tryRun(() -> {
        if (!rewritten[0] && scrubber.progress().objectsDone() >= 1) {
          rewritten[0] = true;
          try {
            write(s, LOST_A, random(CELL * 4, 78));
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
        return false;
      }).orElseThrow();
      assertTrue(rewritten[0]);
      assertFalse(r.cancelled());
      assertEquals(2, r.unrecoverableObjects(), r.toString());
      assertEquals(List.of(LOST_B, LOST_C), r.unrecoverableIds());
      assertEquals(Optional.of(r), scrubber.damage());
    }
  }

  /**
   * The count stays honest beyond the listed ids: only a listed object leaves it; a version
   * found unrecoverable after the write that replaced another is not cleared by that write; and
   * an object the scrub itself sees replaced is taken back whether listed or not.
   */
  @Test
  void theTallyClearsOnlyListedObjectsAtAnOlderVersion() {
    Scrubber.Tally t = new Scrubber.Tally();
    for (long id = 1; id <= Scrubber.MAX_LISTED_IDS + 1; id++) {
      assertEquals(id <= Scrubber.MAX_LISTED_IDS, t.unrecoverable(id, 3));
    }
    ScrubReport r = t.report(false, 0);
    assertEquals(Scrubber.MAX_LISTED_IDS + 1, r.unrecoverableObjects());
    assertEquals(Scrubber.MAX_LISTED_IDS, r.unrecoverableIds().size());

    t.replaced(Scrubber.MAX_LISTED_IDS + 1, 4); // not listed: cannot be told apart
    t.replaced(7, 3); // the version found lost, or an older one: not replaced
    t.replaced(8, 4);
    t.replaced(9, Long.MAX_VALUE); // deleted
    t.replaced(8, 5); // already gone: not counted twice
    r = t.report(false, 0);
    assertEquals(Scrubber.MAX_LISTED_IDS - 1, r.unrecoverableObjects());
    assertEquals(Scrubber.MAX_LISTED_IDS - 2, r.unrecoverableIds().size());
    assertTrue(r.unrecoverableIds().contains(7L));
    assertFalse(r.unrecoverableIds().contains(8L));
    assertFalse(r.unrecoverableIds().contains(9L));

    t.withdraw(10, 3, true); // listed, then seen replaced by the scrub
    t.withdraw(8, 3, true); // taken off by the listener already: not again
    boolean listed = t.unrecoverable(1000, 1); // room again after the removals
    assertTrue(listed);
    t.withdraw(1000, 1, listed);
    assertTrue(t.unrecoverable(2000, 1));
    assertTrue(t.unrecoverable(2001, 1));
    assertTrue(t.unrecoverable(2002, 1));
    assertFalse(t.unrecoverable(2003, 1)); // full again: counted, not listed
    t.withdraw(2003, 1, false);
    r = t.report(false, 0);
    assertEquals(Scrubber.MAX_LISTED_IDS + 1, r.unrecoverableObjects(), r.toString());
    assertEquals(Scrubber.MAX_LISTED_IDS, r.unrecoverableIds().size());
    assertEquals(r.unrecoverableIds().size() - 1,
        r.without(2000).unrecoverableIds().size());
    assertEquals(r.unrecoverableObjects() - 1, r.without(2000).unrecoverableObjects());
    assertEquals(r, r.without(8), "not listed: the same report");
  }

  // ---- parity mismatches ----

  @ParameterizedTest
  @ValueSource(strings = {"raid5:3+1", "raid6:4+2", "rs:6+3"})
  void parityCellWithAMatchingCrcIsAParityMismatch(String protection) throws IOException {
    ArrayConfig c = config(protection);
    int k = k(c);
    int width = c.protection().width();
    List<Path> dirs = dirs("pm", width);
    byte[] data = random(k * CELL * 5, 6);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    Path parityDir = dirOf(dirs, c, ID, width - 1);
    byte[] good = cellOf(parityDir, ID, width - 1, 2);
    replaceCell(parityDir, ID, width - 1, 2, random(CELL, 99));
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(data, readAll(s, ID), "reads do not notice: the data cells are fine");
      ScrubReport r = new Scrubber(s).run();
      assertEquals(0, r.crcErrors(), r.toString());
      assertEquals(1, r.parityMismatches(), r.toString());
      assertEquals(1, r.parityMismatchesRepaired());
      assertEquals(0, r.unrecoverableObjects());
      assertEquals(1, s.cellsRepaired());
      assertTrue(r.toString().contains("1 parity mismatches (1 repaired)"), r.toString());
      assertClean(new Scrubber(s).run());
      assertArrayEquals(data, readAll(s, ID));
    }
    assertArrayEquals(good, cellOf(parityDir, ID, width - 1, 2), "the parity is right again");
  }

  @Test
  void mirrorCopiesThatDifferAreMadeEqualToTheFirstGoodCopy() throws IOException {
    ArrayConfig c = config("mirror:3");
    List<Path> dirs = dirs("mm", 4);
    byte[] data = random(CELL * 4, 7);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    replaceCell(dirOf(dirs, c, ID, 2), ID, 2, 3, random(CELL, 98));
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ScrubReport r = new Scrubber(s).run();
      assertEquals(1, r.parityMismatches(), r.toString());
      assertEquals(1, r.parityMismatchesRepaired());
      assertEquals(0, r.crcErrors());
      assertClean(new Scrubber(s).run());
    }
    assertArrayEquals(java.util.Arrays.copyOfRange(data, 3 * CELL, 4 * CELL),
        cellOf(dirOf(dirs, c, ID, 2), ID, 2, 3));
  }

  @Test
  void aBadDataCellAndAWrongParityCellAreTellApartWithEnoughParity() throws IOException {
    ArrayConfig c = config("rs:6+3");
    List<Path> dirs = dirs("both", 9);
    byte[] data = random(CELL * 6 * 3, 8);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    Path wrongParity = dirOf(dirs, c, ID, 7);
    byte[] good = cellOf(wrongParity, ID, 7, 1);
    replaceCell(wrongParity, ID, 7, 1, random(CELL, 97)); // self-consistent, wrong
    flipBit(dirOf(dirs, c, ID, 2), ID, 2, 1); // and a data cell of the same stripe fails its CRC
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ScrubReport r = new Scrubber(s).run();
      assertEquals(1, r.crcErrorsRepaired(), r.toString());
      assertEquals(1, r.parityMismatchesRepaired(), r.toString());
      assertEquals(0, r.unrecoverableObjects(), r.toString());
      assertClean(new Scrubber(s).run());
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.degradedReads());
    }
    assertArrayEquals(good, cellOf(wrongParity, ID, 7, 1));
  }

  @Test
  void aBadDataCellWithAWrongParityCellIsUnrecoverableWhenAmbiguous() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("amb", 6);
    byte[] data = random(CELL * 4 * 3, 9);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    replaceCell(dirOf(dirs, c, ID, 4), ID, 4, 1, random(CELL, 96));
    flipBit(dirOf(dirs, c, ID, 0), ID, 0, 1);
    Map<Path, byte[]> before = snapshot(dirs);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ScrubReport r = new Scrubber(s).run();
      assertEquals(1, r.unrecoverableObjects(), r.toString());
      assertEquals(List.of(ID), r.unrecoverableIds());
      assertEquals(1, r.crcErrors());
      assertEquals(0, r.crcErrorsRepaired(), "no guessed data written");
      assertFalse(r.allRepaired());
      assertEquals(0, s.cellsRepaired());
    }
    assertSameFiles(before, snapshot(dirs));
  }

  // ---- missing shards, unrecoverable objects, drive errors ----

  @Test
  void aMissingShardFileOnALiveDriveIsReCreatedAndTheRestStillChecked() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("miss", 7);
    byte[] data = random(CELL * 4 * 4 + 5, 10);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    Path gone = dirOf(dirs, c, ID, 1).resolve(ObjectFiles.shard(ID, 0, 1));
    Files.delete(gone);
    flipBit(dirOf(dirs, c, ID, 3), ID, 3, 2); // still repairable: 2 unusable cells, m = 2
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ScrubReport r = new Scrubber(s).run();
      assertEquals(1, r.missingShards(), r.toString());
      assertEquals(1, r.crcErrorsRepaired(), r.toString());
      assertEquals(0, r.unrecoverableObjects());
      assertEquals(5 * 5, r.cellsChecked(), "5 stripes of the 5 shards present");
      assertTrue(r.toString().contains("1 missing shards (1 re-created)"), r.toString());
      assertEquals(0, s.failedSlots(), "an absent file says nothing about the drive");
      // Audit D13: nothing else re-creates a shard missing on an ONLINE slot.
      assertEquals(1, r.shardsRecreated(), r.toString());
      assertTrue(r.allRepaired(), r.toString());
      assertTrue(Files.exists(gone), "re-created from the survivors");
      ScrubReport again = new Scrubber(s).run();
      assertTrue(again.clean(), again.toString());
      assertArrayEquals(data, readAll(s, ID));
      // The re-created shard is the right one: read with two other shards' drives away.
      ObjectManifest m = s.stat(ID).orElseThrow();
      s.detachDrive(m.slotOf(0));
      s.detachDrive(m.slotOf(2));
      assertArrayEquals(data, readAll(s, ID));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"raid5:3+1", "mirror:2"})
  void tooManyBadCellsInAStripeIsUnrecoverableAndNothingIsWritten(String protection)
      throws IOException {
    ArrayConfig c = config(protection);
    List<Path> dirs = dirs("lost", c.protection().width() + 1);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, random(k(c) * CELL * 4, 11));
      write(s, OTHER, random(CELL * 3, 12));
    }
    flipBit(dirOf(dirs, c, ID, 0), ID, 0, 2);
    flipBit(dirOf(dirs, c, ID, 1), ID, 1, 2);
    Map<Path, byte[]> before = snapshot(dirs);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ScrubReport r = new Scrubber(s).run();
      assertEquals(1, r.unrecoverableObjects(), r.toString());
      assertEquals(List.of(ID), r.unrecoverableIds());
      assertEquals(2, r.objectsScanned());
      assertEquals(2, r.crcErrors());
      assertEquals(0, r.crcErrorsRepaired());
      assertEquals(0, s.cellsRepaired());
      assertTrue(r.toString().contains("1 unrecoverable objects [0123456789abcdef]"),
          r.toString());
      ArrayException e = assertThrows(ArrayException.class, () -> readAll(s, ID));
      assertEquals(ArrayError.OBJECT_LOST, e.error());
    }
    assertSameFiles(before, snapshot(dirs));
  }

  @Test
  void aDriveErrorDuringTheScrubIsNotedAndTheObjectStillChecked() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    int width = 6;
    List<Path> dirs = dirs("err", width + 1);
    byte[] data = random(CELL * 4 * 8, 13);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    flipBit(dirOf(dirs, c, ID, 0), ID, 0, 5);
    int slot = DrivePlacement.of(width + 1, width).drivesFor(ID)[2];
    FaultyDrive[] d = faulty(dirs);
    // call 1 reads the header; call 2 is the scrub's first batch read
    FaultyDrive.Injected fault = d[slot].inject(
        Fault.error(Op.READ).matching(ObjectFiles.shard(ID, 0, 2).replace(".", "\\.")).onCall(2));
    try (ObjectStore s = store(c, d)) {
      ScrubReport r = new Scrubber(s, 2 * CELL).run();
      assertEquals(1, fault.fired());
      assertEquals(1, r.driveErrors(), r.toString());
      assertEquals(1L << slot, r.failedSlots());
      assertEquals(1L << slot, s.failedSlots(), "noted on the store");
      assertEquals(1, r.unavailableShards());
      assertEquals(1, r.crcErrorsRepaired(), "the other shards still checked and repaired");
      assertEquals(0, r.unrecoverableObjects());
      assertTrue(r.toString().contains("failed slots [" + slot + "]"), r.toString());
      assertArrayEquals(data, readAll(s, ID));
    }
  }

  // ---- throttle, concurrency, cancellation ----

  @Test
  void theThrottlePacesTheScrub() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    try (ObjectStore s = store(c, fileDrives(dirs("thr", 4)))) {
      write(s, ID, random(CELL * 3 * 32, 14)); // 32 stripes x 4 shards = 512 KiB of cells
      s.throttle(BackgroundThrottle.of(512 << 10, 512 << 10, 0)); // 512 KiB/s, 128 KiB burst
      ScrubReport r = new Scrubber(s, 8 * CELL).run();
      assertClean(r);
      assertEquals(512 << 10, r.bytesRead());
      assertTrue(r.duration().toMillis() >= 500, "paced: " + r.duration());
    }
  }

  /** A store whose shard reads each take {@code delay}, with {@code objects} objects. */
  private ObjectStore slowStore(String name, int objects, Duration delay) throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs(name, 4);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      for (int i = 0; i < objects; i++) {
        write(s, ID + i, random(CELL * 3 * 4, i));
      }
    }
    FaultyDrive[] d = faulty(dirs);
    for (FaultyDrive f : d) {
      f.inject(Fault.delay(delay, Op.READ));
    }
    return store(c, d);
  }

  @Test
  void stopCancelsTheRunningScrubAndTheNextRunIsWhole() throws Exception {
    try (ObjectStore s = slowStore("stop", 20, Duration.ofMillis(5))) {
      Scrubber scrubber = new Scrubber(s, CELL);
      CompletableFuture<ScrubReport> f = CompletableFuture.supplyAsync(scrubber::run);
      await(() -> scrubber.progress().objectsDone() >= 1, "one object scrubbed");
      ScrubProgress p = scrubber.progress();
      assertTrue(p.running());
      assertEquals(20, p.objectsTotal());
      assertTrue(p.bytesDone() > 0 && p.bytesDone() < p.bytesTotal(), p.toString());
      scrubber.stop();
      ScrubReport r = f.get();
      assertTrue(r.cancelled(), r.toString());
      assertTrue(r.objectsScanned() < 20, r.toString());
      assertTrue(r.toString().startsWith("scrub cancelled"), r.toString());
      assertFalse(scrubber.running());
      assertFalse(scrubber.progress().running());
      ScrubReport whole = scrubber.run(); // stop() does not stick to later scrubs
      assertFalse(whole.cancelled());
      assertEquals(20, whole.objectsScanned());
    }
  }

  @Test
  void twoScrubsNeverRunAtOnce() throws Exception {
    try (ObjectStore s = slowStore("once", 10, Duration.ofMillis(5))) {
      Scrubber scrubber = new Scrubber(s, CELL);
      CompletableFuture<ScrubReport> f = CompletableFuture.supplyAsync(scrubber::run);
      await(scrubber::running, "the scrub started");
      assertEquals(Optional.empty(), scrubber.tryRun());
      assertThrows(IllegalStateException.class, scrubber::run);
      scrubber.stop();
      assertTrue(f.get().cancelled());
      assertTrue(scrubber.tryRun().isPresent());
    }
  }

  // ---- the schedule ----

  @Test
  void theScheduleRunsRepeatedlyAndStopsOnClose() throws Exception {
    ArrayConfig c = config("rs:6+3");
    List<Path> dirs = dirs("sched", 9);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, random(CELL * 6 * 2, 15));
      Scrubber scrubber = new Scrubber(s);
      ScrubSchedule schedule =
          ScrubSchedule.start(scrubber, Duration.ZERO, Duration.ofMillis(20));
      try {
        await(() -> schedule.runs() >= 1, "a first scheduled scrub");
        assertTrue(schedule.lastReport().orElseThrow().clean());
        long cellsBefore = s.cellsRepaired();
        flipBit(dirOf(dirs, c, ID, 4), ID, 4, 1);
        await(() -> s.cellsRepaired() > cellsBefore, "a later scrub repairing the flipped bit");
        long runs = schedule.runs();
        // the scrub that repaired may still be running: wait for one that started after it
        await(() -> schedule.runs() >= runs + 2, "a whole scrub after the repair");
        ScrubReport last = schedule.lastReport().orElseThrow();
        assertEquals(1, last.objectsScanned());
        assertTrue(last.clean(), last.toString());
        assertEquals(cellsBefore + 1, s.cellsRepaired());
        assertTrue(schedule.runs() >= 3);
      } finally {
        schedule.close();
      }
      long runs = schedule.runs();
      Thread.sleep(150);
      assertEquals(runs, schedule.runs(), "no scrub after close");
      assertFalse(scrubber.running());
      schedule.close(); // idempotent
    }
  }

  @Test
  void closingTheScheduleCancelsTheRunningScrub() throws Exception {
    try (ObjectStore s = slowStore("schedclose", 30, Duration.ofMillis(5))) {
      Scrubber scrubber = new Scrubber(s, CELL);
      ScrubSchedule schedule = ScrubSchedule.start(scrubber, Duration.ZERO, Duration.ofHours(1));
      await(() -> scrubber.progress().objectsDone() >= 1, "the scheduled scrub under way");
      schedule.close();
      assertFalse(scrubber.running());
      ScrubReport r = schedule.lastReport().orElseThrow();
      assertTrue(r.cancelled(), r.toString());
      assertNotEquals(30, r.objectsScanned());
      assertEquals(1, schedule.runs());
    }
  }

  @Test
  void badArgumentsAreRefused() throws IOException {
    try (ObjectStore s = store(config("raid5:3+1"), fileDrives(dirs("args", 4)))) {
      Scrubber scrubber = new Scrubber(s);
      assertThrows(IllegalArgumentException.class, () -> new Scrubber(s, 0));
      assertThrows(IllegalArgumentException.class,
          () -> ScrubSchedule.start(scrubber, Duration.ZERO));
      assertThrows(IllegalArgumentException.class,
          () -> ScrubSchedule.start(scrubber, Duration.ofSeconds(-1), Duration.ofSeconds(1)));
    }
  }
}
