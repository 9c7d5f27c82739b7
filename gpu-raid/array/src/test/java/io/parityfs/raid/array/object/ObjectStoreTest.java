package io.parityfs.raid.array.object;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.fileDrives;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.assembly.ArrayLabels;
import io.parityfs.raid.array.assembly.AssembledArray;
import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive.CrashModel;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.drive.SimulatedCrash;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.ObjectLayout;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** ObjectStore over FileDrive and FaultyDrive: round trips, range reads, faults, repair, crashes. */
class ObjectStoreTest {
  private static final int CELL = 4096;
  private static final long ID = 0x0123456789abcdefL;

  @TempDir Path root;

  /** Directories d0..d(n-1) under root/name. */
  private List<Path> dirs(String name, int n) throws IOException {
    return ArrayFixtures.dirs(root, name, n);
  }

  private static FaultyDrive[] faulty(List<Path> dirs) throws IOException {
    Drive[] inner = fileDrives(dirs, Drive.IoMode.BUFFERED);
    FaultyDrive[] d = new FaultyDrive[inner.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = new FaultyDrive(inner[i], 42 + i);
    }
    return d;
  }

  private static ObjectStore store(ArrayConfig c, Drive[] drives) {
    return new ObjectStore(c, drives, codec(c));
  }

  private static byte[] readAll(ObjectStore s, long id) throws IOException {
    return readRange(s, id, 0, (int) s.length(id));
  }

  private static byte[] readRange(ObjectStore s, long id, long offset, int len)
      throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(len);
    assertEquals(len, s.read(id, offset, buf));
    return buf.array();
  }

  private static byte[] slice(byte[] b, long from, int len) {
    byte[] out = new byte[len];
    System.arraycopy(b, (int) from, out, 0, len);
    return out;
  }

  private static void write(ObjectStore s, long id, byte[] data) throws IOException {
    s.write(id, new ByteArrayInputStream(data), data.length);
  }

  /**
   * Audit D7: a version with its manifest on one drive only is lost with that drive, although
   * its shards survive; so a write is not acknowledged with fewer than m+1 manifests.
   */
  @Test
  void aWriteWithTooFewDurableManifestsFailsAndTheOldVersionSurvivesADriveLoss()
      throws IOException {
    ArrayConfig c = config("raid6:4+2");
    FaultyDrive[] d = faulty(dirs("d7", 6));
    byte[] v0 = random(5 * 4 * CELL, 70);
    byte[] v1 = random(5 * 4 * CELL, 71);
    try (ObjectStore s = store(c, d)) {
      write(s, ID, v0);
      String temp = ObjectFiles.temp(ObjectFiles.manifest(ID, 1)).replace(".", "\\.");
      for (int i = 1; i < 6; i++) {
        d[i].inject(Fault.full(Op.CREATE).matching(temp)); // full, not failed
      }
      ArrayException e = assertThrows(ArrayException.class, () -> write(s, ID, v1));
      assertEquals(ArrayError.NO_SPACE, e.error(), e.getMessage());
      assertEquals(0L, s.failedSlots(), "full drives are not failed");
      for (FaultyDrive f : d) {
        f.clearFaults();
      }
      d[0].disappear(); // the one drive that got a manifest
      assertArrayEquals(v0, readAll(s, ID), "the acknowledged version is still readable");
      write(s, ID, v1); // room again: the next write commits
      assertArrayEquals(v1, readAll(s, ID));
    }
  }

  static Stream<Arguments> roundTrips() {
    List<Arguments> out = new ArrayList<>();
    for (String p : List.of("raid5:3+1", "raid6:4+2", "rs:6+3", "mirror:2")) {
      int width = Protection.parse(p).width();
      int k = p.startsWith("mirror") ? 1 : width - Protection.parse(p).tolerates();
      for (int drives : new int[] {width, width + 3}) {
        for (int size : new int[] {0, 1, CELL - 1, CELL, k * CELL * 5 + 1234}) {
          out.add(Arguments.of(p, drives, size));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} on {1} drives, {2} bytes")
  @MethodSource("roundTrips")
  void writesAndReadsBack(String protection, int drives, int size) throws IOException {
    ArrayConfig c = config(protection);
    byte[] data = random(size, size);
    try (ObjectStore s = store(c, fileDrives(dirs("a", drives)))) {
      assertEquals(0, s.write(ID, new ByteArrayInputStream(data), size));
      assertArrayEquals(data, readAll(s, ID));
      Random r = new Random(size);
      for (int i = 0; i < 20 && size > 0; i++) {
        long off = r.nextInt(size);
        int len = r.nextInt((int) (size - off) + 1);
        assertArrayEquals(slice(data, off, len), readRange(s, ID, off, len), "range " + off);
      }
      assertEquals(0, s.degradedReads());
    }
    // and through a fresh store (no cached manifest)
    try (ObjectStore s = store(c, fileDrives(dirs("a", drives)))) {
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.collectGarbage());
    }
  }

  @ParameterizedTest
  @MethodSource("touchCases")
  void rangeReadTouchesOnlyTheDrivesHoldingIt(String protection, int drives) throws IOException {
    ArrayConfig c = config(protection);
    FaultyDrive[] d = faulty(dirs("t", drives));
    FaultyDrive.Injected[] reads = new FaultyDrive.Injected[drives];
    for (int i = 0; i < drives; i++) {
      reads[i] = d[i].inject(Fault.delay(Duration.ZERO, Op.READ, Op.OPEN));
    }
    byte[] data = random(CELL * 37 + 99, 7);
    try (ObjectStore s = store(c, d)) {
      write(s, ID, data);
      ObjectManifest m = s.stat(ID).orElseThrow();
      ObjectLayout layout = m.layout();
      Random r = new Random(3);
      for (int i = 0; i < 40; i++) {
        long off = r.nextInt(data.length);
        int len = r.nextInt(Math.min(3 * CELL, (int) (data.length - off)) + 1);
        long[] before = new long[drives];
        for (int j = 0; j < drives; j++) {
          before[j] = reads[j].calls();
        }
        assertArrayEquals(slice(data, off, len), readRange(s, ID, off, len));
        long expected = 0;
        long shards = layout.shardsTouched(off, len);
        for (int sh = 0; sh < layout.dataShards(); sh++) {
          if ((shards & (1L << sh)) != 0) {
            expected |= 1L << m.slotOf(sh);
          }
        }
        long touched = 0;
        for (int j = 0; j < drives; j++) {
          if (reads[j].calls() > before[j]) {
            touched |= 1L << j;
          }
        }
        assertEquals(Long.toBinaryString(expected), Long.toBinaryString(touched),
            "range " + off + " +" + len);
      }
    }
  }

  static Stream<Arguments> touchCases() {
    return Stream.of(Arguments.of("raid6:4+2", 9), Arguments.of("rs:6+3", 9),
        Arguments.of("mirror:3", 5));
  }

  @Test
  void overwriteMakesANewVersionAndRemovesTheOld() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("o", 8);
    byte[] v0 = random(CELL * 9 + 5, 1);
    byte[] v1 = random(CELL * 2 + 77, 2);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertEquals(0, s.write(ID, new ByteArrayInputStream(v0), v0.length));
      assertEquals(1, s.write(ID, new ByteArrayInputStream(v1), v1.length));
      assertArrayEquals(v1, readAll(s, ID));
      assertEquals(1, s.stat(ID).orElseThrow().version());
    }
    int files = 0;
    for (Path dir : dirs) {
      try (Stream<Path> l = Files.list(dir)) {
        for (Path f : (Iterable<Path>) l::iterator) {
          String n = f.getFileName().toString();
          if (ObjectFiles.tryParse(n).isPresent()) {
            assertEquals(1, ObjectFiles.parse(n).version(), n);
            files++;
          }
        }
      }
    }
    assertEquals(2 * 6, files); // one manifest and one shard on each of the 6 drives
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(v1, readAll(s, ID));
      assertTrue(s.delete(ID));
      ArrayException e = assertThrows(ArrayException.class, () -> s.length(ID));
      assertEquals(ArrayError.OBJECT_NOT_FOUND, e.error());
      assertEquals(6, s.collectGarbage(), "only the delete's tombstones are left");
      assertEquals(0, s.collectGarbage());
    }
  }

  @Test
  void shortSourceFailsAndLeavesNothingVisible() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    try (ObjectStore s = store(c, fileDrives(dirs("e", 4)))) {
      assertThrows(java.io.EOFException.class,
          () -> s.write(ID, new ByteArrayInputStream(new byte[100]), 5000));
      assertFalse(s.stat(ID).isPresent());
      assertThrows(IllegalArgumentException.class,
          () -> s.write(ID, new ByteArrayInputStream(new byte[0]), (1 << 20) + 1));
    }
  }

  /** Failing reads (and opens) on the drives holding the first {@code failing} shards. */
  private void degraded(String protection, int drives, int failing, boolean lost)
      throws IOException {
    ArrayConfig c = config(protection);
    List<Path> dirs = dirs("g" + failing, drives);
    byte[] data = random(CELL * 23 + 17, failing);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    FaultyDrive[] d = faulty(dirs);
    int[] slots = DrivePlacement.of(drives, c.protection().width()).drivesFor(ID);
    for (int i = 0; i < failing; i++) {
      d[slots[i]].inject(Fault.error(Op.READ, Op.OPEN));
    }
    try (ObjectStore s = store(c, d)) {
      if (lost) {
        ArrayException e = assertThrows(ArrayException.class, () -> readAll(s, ID));
        assertEquals(ArrayError.OBJECT_LOST, e.error());
        assertTrue(e.getMessage().contains("cannot be read"), e.getMessage());
      } else {
        assertArrayEquals(data, readAll(s, ID));
        Random r = new Random(5);
        for (int i = 0; i < 10; i++) {
          long off = r.nextInt(data.length);
          int len = r.nextInt((int) (data.length - off) + 1);
          assertArrayEquals(slice(data, off, len), readRange(s, ID, off, len));
        }
        assertTrue(s.degradedReads() > 0);
        assertEquals(0, s.cellsRepaired());
      }
      for (int i = 0; i < failing; i++) {
        assertTrue((s.failedSlots() & (1L << slots[i])) != 0, "slot " + slots[i] + " failed");
      }
    }
  }

  @Test
  void raid5ReadsThroughOneFailedDrive() throws IOException {
    degraded("raid5:3+1", 6, 1, false);
  }

  @Test
  void raid6ReadsThroughTwoFailedDrives() throws IOException {
    degraded("raid6:4+2", 8, 2, false);
  }

  @Test
  void mirrorReadsThroughAFailedCopy() throws IOException {
    degraded("mirror:2", 3, 1, false);
  }

  @Test
  void moreThanMFailedDrivesIsAClearError() throws IOException {
    degraded("raid6:4+2", 8, 3, true);
  }

  @Test
  void missingShardFileIsReconstructed() throws IOException {
    ArrayConfig c = config("rs:6+3");
    List<Path> dirs = dirs("m", 9);
    byte[] data = random(CELL * 13, 11);
    int[] slots = DrivePlacement.of(9, 9).drivesFor(ID);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
      for (int i = 0; i < 3; i++) {
        Files.delete(dirs.get(slots[i]).resolve(ObjectFiles.shard(ID, 0, i)));
      }
      assertArrayEquals(data, readAll(s, ID));
      assertTrue(s.degradedReads() > 0);
      assertEquals(0, s.failedSlots()); // an absent file says nothing about the drive
    }
  }

  /** Flips one bit of cell {@code cell} of shard {@code shard} on disk. */
  private static void flipBit(Path dir, int shard, int cell) throws IOException {
    try (RandomAccessFile f =
        new RandomAccessFile(dir.resolve(ObjectFiles.shard(ID, 0, shard)).toFile(), "rw")) {
      long at = ShardFormat.cellOffset(CELL, cell) + 100;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0x10);
    }
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"raid6:4+2", "raid5:3+1", "mirror:2"})
  void flippedBitIsRepairedAndCounted(String protection) throws IOException {
    ArrayConfig c = config(protection);
    List<Path> dirs = dirs("f", c.protection().width() + 1);
    byte[] data = random(CELL * 17 + 3, 13);
    int[] slots = DrivePlacement.of(dirs.size(), c.protection().width()).drivesFor(ID);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    flipBit(dirs.get(slots[0]), 0, 2);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(1, s.cellsRepaired());
      assertEquals(1, s.degradedReads());
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(1, s.cellsRepaired(), "the second read finds the cell repaired");
      assertEquals(1, s.degradedReads());
      assertEquals(0, s.failedSlots());
    }
    try (ShardReader r = ShardReader.open(FileDrive.open(dirs.get(slots[0]), Drive.IoMode.DIRECT),
        ObjectFiles.shard(ID, 0, 0))) {
      r.readCell(2, ByteBuffer.allocateDirect(CELL)); // no CORRUPT_CELL: repaired on disk
    }
  }

  @Test
  void corruptCellsInTwoShardsOfOneStripeAreBothRepaired() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("f2", 6);
    byte[] data = random(CELL * 8, 17);
    int[] slots = DrivePlacement.of(6, 6).drivesFor(ID);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    flipBit(dirs.get(slots[1]), 1, 1);
    flipBit(dirs.get(slots[2]), 2, 1);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(2, s.cellsRepaired());
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(2, s.cellsRepaired());
    }
  }

  /**
   * Crashes drive {@code target} at each of its mutating steps while version 1 overwrites version
   * 0; the other drives are then crashed too (rewritten to their durable state). After reopening,
   * the object reads as exactly version 0 or version 1, and garbage collection leaves only the
   * files of that version.
   */
  @ParameterizedTest
  @EnumSource(CrashModel.class)
  void crashAtEveryStepLeavesTheOldOrTheNewVersion(CrashModel model) throws IOException {
    ArrayConfig c = config("raid5:3+1");
    byte[] v0 = random(CELL * 4 + 100, 21);
    byte[] v1 = random(CELL * 3 + 200, 22);
    int width = 4;
    int run = 0;
    int sawOld = 0;
    int sawNew = 0;
    List<Path> base = dirs("c" + model, width);
    try (ObjectStore s = store(c, fileDrives(base, Drive.IoMode.BUFFERED))) {
      write(s, ID, v0);
    }
    for (int target = 0; target < width; target++) {
      for (long step = 1; ; step++) {
        List<Path> dirs = dirs("c" + model + (run++), width);
        for (int i = 0; i < width; i++) { // a copy of version 0, without paying its fsyncs again
          try (Stream<Path> l = Files.list(base.get(i))) {
            for (Path f : (Iterable<Path>) l::iterator) {
              Files.copy(f, dirs.get(i).resolve(f.getFileName()));
            }
          }
        }
        FaultyDrive[] d = faulty(dirs);
        d[target].crashAtStep(step, model);
        boolean crashed = false;
        ObjectStore writer = store(c, d);
        try {
          write(writer, ID, v1);
        } catch (SimulatedCrash e) {
          crashed = true;
          for (FaultyDrive f : d) {
            f.crashNow(model); // the whole node goes down, not just one drive
          }
        } finally {
          writer.close();
        }
        if (!crashed) {
          assertTrue(step > 1, "drive " + target + " took no step");
          break;
        }
        String where = model + " drive " + target + " step " + step;
        byte[] got;
        try (ObjectStore s = store(c, fileDrives(dirs, Drive.IoMode.BUFFERED))) {
          got = readAll(s, ID);
          boolean isNew = java.util.Arrays.equals(got, v1);
          assertTrue(isNew || java.util.Arrays.equals(got, v0), where + ": a mix");
          if (isNew) {
            sawNew++;
          } else {
            sawOld++;
          }
          s.collectGarbage();
          assertArrayEquals(got, readAll(s, ID), where + ": after garbage collection");
        }
        long version = -1;
        for (Path dir : dirs) {
          try (Stream<Path> l = Files.list(dir)) {
            for (Path f : (Iterable<Path>) l::iterator) {
              ObjectFiles.Name n = ObjectFiles.parse(f.getFileName().toString());
              assertFalse(n.temp(), where + ": " + f);
              if (version < 0) {
                version = n.version();
              }
              assertEquals(version, n.version(), where + ": orphan " + f);
            }
          }
          // every drive has the manifest and its shard again (roll forward)
          assertEquals(2, Files.list(dir).count(), where + ": " + dir);
        }
        if (step % 4 == 0) { // sampled, to keep the test fast
          try (ObjectStore s = store(c, fileDrives(dirs, Drive.IoMode.BUFFERED))) {
            write(s, ID, v0);
            assertArrayEquals(v0, readAll(s, ID), where + ": writable afterwards");
          }
        }
      }
    }
    assertTrue(sawOld > 0 && sawNew > 0, "old " + sawOld + ", new " + sawNew);
  }

  @Test
  void opensOverAnAssembledArray() throws IOException {
    ArrayConfig c = ArrayConfig.builder().protection(Protection.parse("raid6:4+2")).cellSize(CELL)
        .maxObjectSize(1 << 20).hotSpares(1).build();
    List<Path> dirs = dirs("open", 8);
    AssembledArray array = ArrayLabels.create(c, dirs);
    byte[] data = random(CELL * 11 + 1, 31);
    try (ParityCodecFactory codecs =
            ParityCodecFactory.builder().backend(CodecBackend.CPU).build();
        ObjectStore s = ObjectStore.open(array, codecs)) {
      write(s, ID, data);
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.failedSlots());
      // the spare (slot 7) holds nothing
      try (Stream<Path> l = Files.list(dirs.get(7))) {
        assertTrue(l.noneMatch(f -> ObjectFiles.tryParse(f.getFileName().toString()).isPresent()));
      }
    }
  }

  @Test
  void corruptManifestOnOneDriveIsSkippedAndRewritten() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("cm", 4);
    byte[] data = random(CELL * 5, 41);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    int[] slots = DrivePlacement.of(4, 4).drivesFor(ID);
    Path bad = dirs.get(slots[0]).resolve(ObjectFiles.manifest(ID, 0));
    byte[] m = Files.readAllBytes(bad);
    m[20] ^= 1;
    Files.write(bad, m);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.collectGarbage());
    }
    ManifestFile.read(FileDrive.open(dirs.get(slots[0]), Drive.IoMode.BUFFERED), ID, 0);
  }

  /**
   * Bits flipped at random in reads (cells, CRC tables, headers) on every drive: every read
   * returns the right bytes or fails with OBJECT_LOST, never wrong data.
   */
  @Test
  void randomReadCorruptionNeverReturnsWrongBytes() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("rc", 7);
    byte[] data = random(CELL * 40 + 3, 51);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, data);
    }
    FaultyDrive[] d = faulty(dirs);
    List<FaultyDrive.Injected> injected = new ArrayList<>();
    for (FaultyDrive f : d) {
      injected.add(f.inject(Fault.corrupt(Op.READ).withProbability(0.05)));
    }
    int ok = 0;
    try (ObjectStore s = store(c, d)) {
      Random r = new Random(9);
      for (int i = 0; i < 60; i++) {
        long off = r.nextInt(data.length);
        int len = r.nextInt((int) (data.length - off) + 1);
        try {
          assertArrayEquals(slice(data, off, len), readRange(s, ID, off, len), "range " + off);
          ok++;
        } catch (ArrayException e) {
          assertEquals(ArrayError.OBJECT_LOST, e.error(), e.getMessage());
        }
      }
      // A corrupt cell is read again alone before it is restored from parity, so a transient
      // flip often heals without a reconstruction: count the flips, not the reconstructions.
      long fired = injected.stream().mapToLong(FaultyDrive.Injected::fired).sum();
      assertTrue(fired >= 10, fired + " bit flips injected");
    }
    assertTrue(ok > 30, ok + " of 60 reads succeeded");
  }

  @Test
  void writesDegradedWithoutAnAbsentDrive() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("dw", 6);
    int[] slots = DrivePlacement.of(6, 6).drivesFor(ID);
    Drive[] d = fileDrives(dirs);
    d[slots[1]].close();
    d[slots[1]] = null;
    byte[] data = random(CELL * 9 + 10, 61);
    try (ObjectStore s = store(c, d)) {
      assertEquals(0, s.write(ID, new ByteArrayInputStream(data), data.length));
      assertArrayEquals(data, readAll(s, ID));
      assertTrue(s.degradedReads() > 0);
    }
    assertFalse(Files.exists(dirs.get(slots[1]).resolve(ObjectFiles.shard(ID, 0, 1))));
    try (ObjectStore s = store(c, fileDrives(dirs))) { // the drive is back: its shard is missing
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.collectGarbage());
    }
  }

  @Test
  void aDriveFailingDuringTheWriteIsLeftOut() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("wf", 5);
    int[] slots = DrivePlacement.of(5, 4).drivesFor(ID);
    FaultyDrive[] d = faulty(dirs);
    d[slots[2]].inject(Fault.error(Op.WRITE).onCall(2));
    byte[] data = random(CELL * 7 + 1, 71);
    try (ObjectStore s = store(c, d)) {
      write(s, ID, data);
      assertEquals(1L << slots[2], s.failedSlots());
      assertArrayEquals(data, readAll(s, ID));
    }
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(data, readAll(s, ID));
      s.collectGarbage(); // the dropped shard's temp file
      assertArrayEquals(data, readAll(s, ID));
    }
    try (Stream<Path> l = Files.list(dirs.get(slots[2]))) {
      assertTrue(l.noneMatch(f -> f.getFileName().toString().endsWith(".tmp")));
    }
  }

  @Test
  void tooManyFailingDrivesRefuseTheWriteAndKeepTheOldVersion() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("wf2", 4);
    int[] slots = DrivePlacement.of(4, 4).drivesFor(ID);
    byte[] old = random(CELL * 2, 81);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, old);
    }
    FaultyDrive[] d = faulty(dirs);
    d[slots[0]].inject(Fault.error(Op.WRITE).onCall(1));
    d[slots[3]].inject(Fault.error(Op.WRITE).onCall(1));
    try (ObjectStore s = store(c, d)) {
      ArrayException e = assertThrows(ArrayException.class,
          () -> write(s, ID, random(CELL * 5, 82)));
      assertEquals(ArrayError.NOT_ENOUGH_DRIVES, e.error());
      assertTrue(e.getMessage().contains("tolerates 1"), e.getMessage());
    }
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(old, readAll(s, ID));
      assertEquals(0, s.stat(ID).orElseThrow().version());
      s.collectGarbage();
      assertArrayEquals(old, readAll(s, ID));
    }
  }

  @Test
  void garbageCollectionKeepsNewerShardsWhileAPlacementDriveIsAway() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("gk", 4);
    int[] slots = DrivePlacement.of(4, 4).drivesFor(ID);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      write(s, ID, random(CELL * 3, 91));
    }
    Path dir = dirs.get(slots[1]);
    Path orphan = dir.resolve(ObjectFiles.shard(ID, 1, 1)); // as a crashed write of v1 leaves it
    Files.copy(dir.resolve(ObjectFiles.shard(ID, 0, 1)), orphan);
    Drive[] d = fileDrives(dirs);
    d[slots[3]].close();
    d[slots[3]] = null;
    try (ObjectStore s = store(c, d)) {
      assertEquals(0, s.collectGarbage());
      assertTrue(Files.exists(orphan), "kept: the absent drive might hold the v1 manifest");
    }
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertEquals(1, s.collectGarbage());
      assertFalse(Files.exists(orphan));
      assertEquals(0, s.stat(ID).orElseThrow().version());
    }
  }

  @Test
  void aManifestFailingOnOneDriveStillCommitsAndIsRolledForward() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("mf", 6);
    int[] slots = DrivePlacement.of(6, 6).drivesFor(ID);
    FaultyDrive[] d = faulty(dirs);
    d[slots[4]].inject(Fault.error(Op.CREATE).matching(".*\\.manifest\\.tmp"));
    byte[] data = random(CELL * 6 + 9, 101);
    try (ObjectStore s = store(c, d)) {
      assertEquals(0, s.write(ID, new ByteArrayInputStream(data), data.length));
      assertEquals(1L << slots[4], s.failedSlots());
      assertArrayEquals(data, readAll(s, ID));
    }
    Path missing = dirs.get(slots[4]).resolve(ObjectFiles.manifest(ID, 0));
    assertFalse(Files.exists(missing));
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertArrayEquals(data, readAll(s, ID));
      s.collectGarbage();
    }
    assertTrue(Files.exists(missing), "rolled forward");
  }

  @Test
  void aReadRacingAnOverwriteRetriesOnTheNewVersion() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("race", 4);
    byte[] v0 = random(CELL * 4, 111);
    byte[] v1 = random(CELL * 5 + 3, 112);
    try (ObjectStore reader = store(c, fileDrives(dirs));
        ObjectStore writer = store(c, fileDrives(dirs))) {
      write(writer, ID, v0);
      assertArrayEquals(v0, readAll(reader, ID)); // caches version 0's manifest
      reader.context().readerCache().close(); // but not its open files: a read that has not opened them yet
      write(writer, ID, v1); // deletes version 0 under the reader
      ByteBuffer buf = ByteBuffer.allocate(v1.length);
      assertEquals(v0.length, reader.read(ID, 0, buf.limit(v0.length)));
      assertArrayEquals(slice(v1, 0, v0.length), slice(buf.array(), 0, v0.length));
      assertArrayEquals(v1, readAll(reader, ID));
    }
  }
}
