package io.parityfs.raid.array.repair;

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
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.array.object.ArrayFixtures;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Rebuild of a data slot onto a new drive, over FileDrive and FaultyDrive. */
class RebuilderTest {
  private static final int CELL = 4096;

  @TempDir Path root;

  private List<Path> dirs(String name, int n) throws IOException {
    return ArrayFixtures.dirs(root, name, n);
  }

  /** Writes objects 1..count with sizes from 0 to a few stripes; returns id to bytes. */
  private static Map<Long, byte[]> writeObjects(ObjectStore s, int count, int maxCells)
      throws IOException {
    Map<Long, byte[]> objects = new TreeMap<>();
    Random r = new Random(count);
    for (long id = 1; id <= count; id++) {
      int size = id == 1 ? 0 : id == 2 ? 1 : r.nextInt(maxCells * CELL) + 1;
      byte[] data = random(size, id);
      s.write(id, new ByteArrayInputStream(data), size);
      objects.put(id, data);
    }
    return objects;
  }

  private static void assertReadsBack(ObjectStore s, Map<Long, byte[]> objects)
      throws IOException {
    for (Map.Entry<Long, byte[]> e : objects.entrySet()) {
      ByteBuffer buf = ByteBuffer.allocate(e.getValue().length);
      assertEquals(e.getValue().length, s.read(e.getKey(), 0, buf));
      assertArrayEquals(e.getValue(), buf.array(), "object " + e.getKey());
    }
  }

  /** The object files (shards and manifests) of a drive directory, by name. */
  private static Map<String, byte[]> objectFiles(Path dir) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    try (Stream<Path> l = Files.list(dir)) {
      for (Path f : (Iterable<Path>) l::iterator) {
        String n = f.getFileName().toString();
        if (ObjectFiles.tryParse(n).isPresent()) {
          files.put(n, Files.readAllBytes(f));
        }
      }
    }
    return files;
  }

  private static void assertSameFiles(Map<String, byte[]> expected, Path dir) throws IOException {
    Map<String, byte[]> got = objectFiles(dir);
    assertEquals(expected.keySet(), got.keySet(), "files on " + dir);
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), got.get(e.getKey()), e.getKey());
    }
  }

  /** Sum of cells x cell size of the objects with a shard on {@code slot}. */
  private static long shardBytesOn(ObjectStore s, Map<Long, byte[]> objects, int slot)
      throws IOException {
    long total = 0;
    for (long id : objects.keySet()) {
      ObjectManifest m = s.stat(id).orElseThrow();
      if (m.slots().contains(slot)) {
        total += (long) m.layout().stripes() * CELL;
      }
    }
    return total;
  }

  private static int objectsOn(DrivePlacement p, Map<Long, byte[]> objects, int slot) {
    int n = 0;
    for (long id : objects.keySet()) {
      for (int s : p.drivesFor(id)) {
        n += s == slot ? 1 : 0;
      }
    }
    return n;
  }

  @ParameterizedTest(name = "{0} on {1} drives, slot {2}")
  @CsvSource({"raid5:3+1, 5, 2", "raid6:4+2, 8, 0", "rs:6+3, 11, 7", "mirror:2, 3, 1",
      "mirror:3, 5, 4"})
  void rebuildsEveryShardOfTheSlotByteForByte(String protection, int drives, int victim)
      throws IOException {
    ArrayConfig c = config(protection);
    List<Path> dirs = dirs("a", drives);
    Map<Long, byte[]> objects;
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 12, 3 * c.protection().width());
    }
    Map<String, byte[]> original = objectFiles(dirs.get(victim));
    assertFalse(original.isEmpty());
    Drive[] d = fileDrives(dirs);
    d[victim].close();
    d[victim] = null; // the drive is gone
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      s.attachDrive(victim, FileDrive.open(fresh, Drive.IoMode.DIRECT));
      long expectBytes = shardBytesOn(s, objects, victim);
      // Small batches, so objects take several read requests per survivor.
      RebuildProgress p = new Rebuilder(s, victim, 2 * CELL).run();
      assertEquals(RebuildProgress.State.DONE, p.state(), p.toString());
      assertTrue(p.complete());
      int on = objectsOn(DrivePlacement.of(drives, c.protection().width()), objects, victim);
      assertEquals(on, original.size() / 2, "a shard and a manifest per object");
      assertEquals(on, p.objectsTotal());
      assertEquals(on, p.objectsRebuilt());
      assertEquals(on, p.objectsDone());
      assertEquals(0, p.objectsSkipped());
      assertEquals(0, p.objectsLost());
      assertEquals(expectBytes, p.bytesTotal());
      assertEquals(expectBytes, p.bytesDone());
      assertEquals(java.time.Duration.ZERO, p.eta().orElseThrow());
      assertTrue(p.bytesPerSecond() > 0);
      assertEquals(0, s.failedSlots());
    }
    assertSameFiles(original, fresh);

    // Reads with another drive gone still work: they need the rebuilt shards.
    List<Path> now = new ArrayList<>(dirs);
    now.set(victim, fresh);
    Drive[] again = fileDrives(now);
    int other = (victim + 1) % drives;
    again[other].close();
    again[other] = null;
    try (ObjectStore s = ArrayFixtures.store(c, again, codec(c))) {
      assertReadsBack(s, objects);
    }
    if (c.protection().tolerates() == 1) {
      // With m = 1 an object on both slots needs the rebuilt shard to be read at all.
      assertTrue(objectsOn(DrivePlacement.of(drives, c.protection().width()), objects, other) > 0);
    }
  }

  @Test
  void mostEndangeredObjectsGoFirst() throws IOException {
    ArrayConfig c = config("rs:4+2");
    List<Path> dirs = dirs("e", 9);
    Map<Long, byte[]> objects;
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 24, 4);
    }
    int victim = 3;
    int absent = 6;
    Drive[] d = fileDrives(dirs);
    d[victim].close();
    d[victim] = null;
    d[absent].close();
    d[absent] = null;
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    DrivePlacement placement = DrivePlacement.of(9, 6);
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      s.attachDrive(victim, FileDrive.open(fresh, Drive.IoMode.DIRECT));
      Rebuilder r = new Rebuilder(s, victim);
      RebuildProgress p = r.run();
      assertTrue(p.complete(), p.toString());
      List<Long> order = r.order();
      assertEquals(objectsOn(placement, objects, victim), order.size());
      int twoLost = 0;
      boolean seenOneLost = false;
      for (long id : order) {
        long mask = DrivePlacement.of(9, 6).placementMask(id);
        boolean onAbsent = (mask & (1L << absent)) != 0;
        if (onAbsent) {
          assertFalse(seenOneLost, "object " + id + " (two shards lost) after one with one lost");
          twoLost++;
        } else {
          seenOneLost = true;
        }
      }
      assertTrue(twoLost > 0 && twoLost < order.size(), twoLost + " of " + order.size());
    }
  }

  @Test
  void aStoppedRebuildIsResumedByANewOneSkippingWhatIsDone() throws Exception {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("r", 8);
    Map<Long, byte[]> objects;
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 30, 40);
    }
    int victim = 5;
    Map<String, byte[]> original = objectFiles(dirs.get(victim));
    Drive[] d = fileDrives(dirs);
    d[victim].close();
    d[victim] = null;
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    int on = original.size() / 2;
    long firstRun;
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      s.attachDrive(victim, FileDrive.open(fresh, Drive.IoMode.DIRECT));
      s.throttle(BackgroundThrottle.of(2 << 20, 2 << 20, 0));
      Rebuilder r = new Rebuilder(s, victim, 2 * CELL).start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (r.progress().objectsRebuilt() < 5 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      r.stop();
      RebuildProgress p = r.await();
      assertEquals(RebuildProgress.State.STOPPED, p.state(), p.toString());
      firstRun = p.objectsRebuilt();
      assertTrue(firstRun >= 5 && firstRun < on, firstRun + " of " + on);
      assertFalse(p.complete());
      assertThrows(IllegalStateException.class, r::start, "a Rebuilder runs once");
      try (Stream<Path> l = Files.list(fresh)) {
        assertTrue(l.noneMatch(f -> f.toString().endsWith(".tmp")), "the shard in progress"
            + " is deleted");
      }
    }
    // After a "restart": a new store and a new rebuilder finish the job.
    Drive[] d2 = fileDrives(dirs);
    d2[victim].close();
    d2[victim] = FileDrive.open(fresh, Drive.IoMode.DIRECT);
    try (ObjectStore s = ArrayFixtures.store(c, d2, codec(c))) {
      RebuildProgress p = new Rebuilder(s, victim).run();
      assertTrue(p.complete(), p.toString());
      assertEquals(firstRun, p.objectsSkipped());
      assertEquals(on - firstRun, p.objectsRebuilt());
      assertEquals(p.bytesTotal(), p.bytesDone());
      RebuildProgress third = new Rebuilder(s, victim).run();
      assertEquals(on, third.objectsSkipped(), "idempotent");
      assertEquals(0, third.objectsTotal());
    }
    assertSameFiles(original, fresh);
  }

  @Test
  void aPublishedShardWithoutItsManifestIsCompletedOnResume() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("m", 4);
    Map<Long, byte[]> objects;
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 6, 9);
    }
    Map<String, byte[]> original = objectFiles(dirs.get(0));
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    // The state a crash between publishing a shard and writing its manifest leaves.
    for (Map.Entry<String, byte[]> e : original.entrySet()) {
      if (!ObjectFiles.parse(e.getKey()).isManifest()) {
        Files.write(fresh.resolve(e.getKey()), e.getValue());
      }
    }
    Drive[] d = fileDrives(dirs);
    d[0].close();
    d[0] = FileDrive.open(fresh, Drive.IoMode.DIRECT);
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      RebuildProgress p = new Rebuilder(s, 0).run();
      assertEquals(objects.size(), p.objectsSkipped());
      assertEquals(0, p.objectsTotal());
      assertTrue(p.complete());
    }
    assertSameFiles(original, fresh);
  }

  @Test
  void theThrottleSlowsTheRebuild() throws Exception {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("t", 4);
    Map<Long, byte[]> objects;
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 8, 60);
    }
    Drive[] d = fileDrives(dirs);
    d[1].close();
    d[1] = FileDrive.open(Files.createDirectories(root.resolve("fresh")), Drive.IoMode.DIRECT);
    long rate = 512 << 10;
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      long shardBytes = shardBytesOn(s, objects, 1);
      long readBytes = 3 * shardBytes; // k survivors per stripe
      assertTrue(readBytes > 1.5 * rate, "enough to measure: " + readBytes);
      s.throttle(BackgroundThrottle.of(rate, rate, 0));
      Rebuilder r = new Rebuilder(s, 1).start();
      List<RebuildProgress> samples = new ArrayList<>();
      RebuildProgress p;
      while ((p = r.await(20, TimeUnit.MILLISECONDS).orElse(null)) == null) {
        samples.add(r.progress());
      }
      assertTrue(p.complete(), p.toString());
      double seconds = p.elapsed().toNanos() / 1e9;
      double floor = (readBytes - rate / 4.0) / rate; // the bucket's burst comes free
      assertTrue(seconds >= 0.8 * floor, seconds + " s for " + readBytes + " bytes at " + rate);
      assertTrue(p.bytesPerSecond() <= 1.5 * rate / 3, p.bytesPerSecond() + " B/s written");
      // Progress read from this thread while it ran: consistent and moving forward.
      long last = 0;
      boolean sawEta = false;
      for (RebuildProgress q : samples) {
        assertTrue(q.bytesDone() <= q.bytesTotal() || q.state() == RebuildProgress.State.PLANNING,
            q.toString());
        assertTrue(q.objectsDone() <= q.objectsTotal(), q.toString());
        assertTrue(q.bytesDone() >= last, q.toString());
        last = q.bytesDone();
        if (q.state() == RebuildProgress.State.RUNNING && q.eta().isPresent()) {
          sawEta = true;
          assertEquals(shardBytes, q.bytesTotal());
        }
      }
      assertTrue(sawEta, samples.size() + " samples");
      assertEquals(shardBytes, p.bytesDone());
    }
  }

  @Test
  void aSurvivorFailingMidRebuildIsWorkedAroundWithTwoParityShards() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = dirs("f", 6);
    Map<Long, byte[]> objects;
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 12, 16);
    }
    Map<String, byte[]> original = objectFiles(dirs.get(0));
    Drive[] d = new Drive[6];
    FaultyDrive failing = null;
    for (int i = 1; i < 6; i++) {
      FaultyDrive f = new FaultyDrive(FileDrive.open(dirs.get(i), Drive.IoMode.BUFFERED), i);
      d[i] = f;
      if (i == 2) {
        failing = f;
      }
    }
    FaultyDrive.Injected fault = failing.inject(Fault.error(Op.READ).onCall(25));
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    d[0] = FileDrive.open(fresh, Drive.IoMode.DIRECT);
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      RebuildProgress p = new Rebuilder(s, 0, 2 * CELL).run();
      assertEquals(1, fault.fired());
      assertTrue(p.complete(), p.toString());
      assertEquals(objects.size(), p.objectsRebuilt());
      assertEquals(1L << 2, s.failedSlots(), "the failing survivor is marked failed");
    }
    assertSameFiles(original, fresh);
    List<Path> now = new ArrayList<>(dirs);
    now.set(0, fresh);
    Drive[] two = fileDrives(now);
    for (int gone : new int[] {2, 4}) {
      two[gone].close();
      two[gone] = null;
    }
    try (ObjectStore s = ArrayFixtures.store(c, two, codec(c))) {
      assertReadsBack(s, objects);
    }
  }

  @Test
  void objectsMissingMoreShardsThanTheProtectionToleratesAreListedAsLost() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = dirs("l", 5);
    Map<Long, byte[]> objects;
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 12, 6);
    }
    DrivePlacement placement = DrivePlacement.of(5, 4);
    List<Long> doomed = new ArrayList<>();
    for (long id : objects.keySet()) {
      long mask = placement.placementMask(id);
      if ((mask & 1) != 0 && (mask & 2) != 0) {
        doomed.add(id);
      }
    }
    assertFalse(doomed.isEmpty());
    Drive[] d = fileDrives(dirs);
    d[0].close();
    d[1].close();
    d[1] = null;
    d[0] = FileDrive.open(Files.createDirectories(root.resolve("fresh")), Drive.IoMode.DIRECT);
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      RebuildProgress p = new Rebuilder(s, 0).run();
      assertEquals(RebuildProgress.State.DONE, p.state());
      assertFalse(p.complete());
      assertEquals(doomed.size(), p.objectsLost());
      assertEquals(doomed, p.lostObjects().stream().sorted().toList());
      assertEquals(objectsOn(placement, objects, 0) - doomed.size(), p.objectsRebuilt());
      assertEquals(p.bytesTotal(), p.bytesDone());
    }
  }

  @Test
  void aCorruptSurvivorCellIsRebuiltAroundAndRepaired() throws IOException {
    ArrayConfig c = config("rs:4+2");
    List<Path> dirs = dirs("c", 6);
    long id = 7;
    byte[] data = random(CELL * 4 * 5, 3);
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      s.write(id, new ByteArrayInputStream(data), data.length);
    }
    int[] slots = DrivePlacement.of(6, 6).drivesFor(id);
    Map<String, byte[]> original = objectFiles(dirs.get(slots[0]));
    Path shard1 = dirs.get(slots[1]).resolve(ObjectFiles.shard(id, 0, 1));
    byte[] good1 = Files.readAllBytes(shard1);
    try (RandomAccessFile f = new RandomAccessFile(shard1.toFile(), "rw")) {
      long at = ShardFormat.cellOffset(CELL, 2) + 10;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 1);
    }
    Drive[] d = fileDrives(dirs);
    d[slots[0]].close();
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    d[slots[0]] = FileDrive.open(fresh, Drive.IoMode.DIRECT);
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      RebuildProgress p = new Rebuilder(s, slots[0]).run();
      assertTrue(p.complete(), p.toString());
      assertEquals(1, p.cellsRepaired());
      assertEquals(1, s.cellsRepaired());
    }
    assertSameFiles(original, fresh);
    assertArrayEquals(good1, Files.readAllBytes(shard1), "the corrupt cell was rewritten");
  }

  @Test
  void endToEndWithTheLabels() throws IOException {
    ArrayConfig c = ArrayConfig.builder().protection(Protection.parse("raid6:4+2"))
        .cellSize(CELL).maxObjectSize(1 << 20).hotSpares(1).build();
    List<Path> dirs = dirs("x", 8);
    AssembledArray array = ArrayLabels.create(c, dirs);
    Map<Long, byte[]> objects;
    try (ParityCodecFactory codecs =
        ParityCodecFactory.builder().backend(CodecBackend.CPU).build()) {
      try (ObjectStore s = ObjectStore.open(array, codecs)) {
        objects = writeObjects(s, 15, 10);
      }
      Map<String, byte[]> original = objectFiles(dirs.get(4));
      AssembledArray failed = ArrayLabels.markFailed(array, 4);
      AssembledArray promoted = ArrayLabels.promoteSpare(failed, 4);
      assertEquals(DriveState.REBUILDING, promoted.slot(4).state());
      AssembledArray reassembled = ArrayLabels.assemble(dirs);
      assertEquals(DriveState.REBUILDING, reassembled.slot(4).state());
      try (ObjectStore s = ObjectStore.open(reassembled, codecs)) { // opens the REBUILDING drive
        RebuildProgress p = new Rebuilder(s, 4).run();
        assertTrue(p.complete(), p.toString());
        AssembledArray online = ArrayLabels.finishRebuild(reassembled, 4);
        assertEquals(DriveState.ONLINE, online.slot(4).state());
        assertReadsBack(s, objects);
      }
      assertSameFiles(original, dirs.get(7));
    }
  }

  @Test
  void refusesASlotWithoutADriveAndBadArguments() throws Exception {
    ArrayConfig c = config("raid5:3+1");
    Drive[] d = fileDrives(dirs("b", 4));
    d[2].close();
    d[2] = null;
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      assertThrows(IllegalArgumentException.class, () -> new Rebuilder(s, 4));
      assertThrows(IllegalArgumentException.class, () -> new Rebuilder(s, -1));
      RebuildProgress p = new Rebuilder(s, 2).run();
      assertEquals(RebuildProgress.State.FAILED, p.state());
      assertTrue(p.failure().contains("attach the new drive"), p.failure());
      Rebuilder never = new Rebuilder(s, 1);
      never.stop();
      assertEquals(RebuildProgress.State.STOPPED, never.await().state());
    }
  }
}
