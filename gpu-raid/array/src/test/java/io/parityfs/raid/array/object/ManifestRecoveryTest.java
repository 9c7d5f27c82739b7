package io.parityfs.raid.array.object;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.fileDrives;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Audit D7, second half: a version whose manifests are all gone from the live drives is rebuilt
 * from its shard headers; a deleted version never is, even when the delete crashed half-way.
 */
class ManifestRecoveryTest {
  private static final int CELL = 4096;
  private static final long ID = 0x00d7_0000_0000_0001L;

  @TempDir Path root;

  private static FaultyDrive[] faulty(List<Path> dirs) throws IOException {
    Drive[] inner = fileDrives(dirs, Drive.IoMode.BUFFERED);
    FaultyDrive[] d = new FaultyDrive[inner.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = new FaultyDrive(inner[i], 7 + i);
    }
    return d;
  }

  private static byte[] readAll(ObjectStore s, long id) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate((int) s.length(id));
    s.read(id, 0, buf);
    return buf.array();
  }

  /** Flips one byte in the middle of {@code file}: the manifest no longer reads back. */
  private static void rot(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0x5a);
    }
  }

  private static long count(Path dir, long id, java.util.function.Predicate<ObjectFiles.Name> p)
      throws IOException {
    try (Stream<Path> l = Files.list(dir)) {
      return l.map(f -> ObjectFiles.tryParse(f.getFileName().toString()))
          .filter(n -> n.isPresent() && n.get().objectId() == id && p.test(n.get())).count();
    }
  }

  /**
   * The audit's test, within what the m+1 rule (D7's first half) allows: manifests of the write
   * fail with NO_SPACE on three of six RAID-6 drives, so exactly m+1 = 3 are durable and the
   * write is acknowledged; then one holder disappears and the other two copies rot. Five shards
   * are intact, the manifest is nowhere: the read used to be OBJECT_NOT_FOUND. It now gives the
   * written bytes, from a manifest rebuilt from the shard headers and written again on every
   * live drive, where a later store finds it. (Today a write whose manifest reaches only one
   * drive is not acknowledged at all: see ObjectStoreTest, so "all drives but one" cannot be
   * the set-up any more; all holders disappearing takes m+1 shards with them.)
   */
  @Test
  void aVersionWhoseManifestsAreAllLostIsRebuiltFromItsShardHeaders() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "lost", 6);
    byte[] data = random(7 * 4 * CELL + 999, 0xd7);
    FaultyDrive[] d = faulty(dirs);
    String temp = ObjectFiles.temp(ObjectFiles.manifest(ID, 0)).replace(".", "\\.");
    for (int i = 3; i < 6; i++) {
      d[i].inject(Fault.full(Op.CREATE).matching(temp));
    }
    try (ObjectStore s = new ObjectStore(c, d, codec(c))) {
      assertEquals(0, s.write(ID, new ByteArrayInputStream(data), data.length));
    }
    for (int i = 0; i < 3; i++) {
      assertEquals(1, count(dirs.get(i), ID, ObjectFiles.Name::isManifest), "holder " + i);
    }
    rot(dirs.get(1).resolve(ObjectFiles.manifest(ID, 0)));
    rot(dirs.get(2).resolve(ObjectFiles.manifest(ID, 0)));
    FaultyDrive[] after = faulty(dirs);
    after[0].disappear();
    try (ObjectStore s = new ObjectStore(c, after, codec(c))) {
      assertArrayEquals(data, readAll(s, ID), "the acknowledged bytes, not OBJECT_NOT_FOUND");
    }
    for (int i = 1; i < 6; i++) {
      try (FileDrive f = FileDrive.open(dirs.get(i), Drive.IoMode.BUFFERED)) {
        assertEquals(data.length, ManifestFile.read(f, ID, 0).objectLength(), "drive " + i);
      }
    }
    Drive[] fresh = fileDrives(dirs.subList(1, 6), Drive.IoMode.BUFFERED);
    Drive[] withoutFirst = new Drive[6];
    System.arraycopy(fresh, 0, withoutFirst, 1, 5);
    try (ObjectStore s = new ObjectStore(c, withoutFirst, codec(c))) {
      assertArrayEquals(data, readAll(s, ID), "the rewritten manifests are found");
      assertEquals(0, s.collectGarbage(), "nothing of the version is garbage");
    }
  }

  /**
   * A delete that crashes after its first phase (every manifest gone) and before its shards go,
   * on an array that then opens with a drive missing: five shards of a version with no manifest
   * are the very picture of the lost-manifest case above, and a reconstruction would bring the
   * deleted object back. The tombstones the first phase leaves say it was deleted: the object
   * stays NOT_FOUND, and garbage collection finishes the delete.
   */
  @Test
  void aDeleteThatCrashesBeforeItsShardsGoNeverComesBack() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "crash", 6);
    byte[] data = random(5 * 4 * CELL + 17, 0xde1);
    FaultyDrive[] d = faulty(dirs);
    try (ObjectStore s = new ObjectStore(c, d, codec(c))) {
      s.write(ID, new ByteArrayInputStream(data), data.length);
      // a drive's delete steps: the first phase (manifest renamed, directory synced) takes
      // two; the crash comes at the third, its shard delete, after every drive's first phase
      for (FaultyDrive f : d) {
        f.crashAtStep(f.steps() + 3, CrashModel.LOSE_UNSYNCED);
      }
      assertThrows(SimulatedCrash.class, () -> s.delete(ID));
      for (FaultyDrive f : d) {
        f.crashNow(CrashModel.LOSE_UNSYNCED);
      }
    }
    long shards = 0;
    for (int i = 1; i < 6; i++) {
      assertEquals(0, count(dirs.get(i), ID, ObjectFiles.Name::isManifest), "drive " + i);
      shards += count(dirs.get(i), ID, ObjectFiles.Name::isShard);
    }
    assertEquals(5, shards, "k = 4 intact shards and no manifest on the drives that open");
    Drive[] fresh = fileDrives(dirs.subList(1, 6), Drive.IoMode.BUFFERED);
    Drive[] withoutFirst = new Drive[6];
    System.arraycopy(fresh, 0, withoutFirst, 1, 5);
    try (ObjectStore s = new ObjectStore(c, withoutFirst, codec(c))) {
      assertTrue(s.stat(ID).isEmpty(), "a deleted object stays deleted");
      ArrayException e = assertThrows(ArrayException.class, () -> s.length(ID));
      assertEquals(ArrayError.OBJECT_NOT_FOUND, e.error());
      assertTrue(s.collectGarbage() > 0);
      for (int i = 1; i < 6; i++) {
        assertEquals(0, count(dirs.get(i), ID, n -> true), "drive " + i + " holds nothing");
      }
      assertTrue(s.stat(ID).isEmpty());
      s.write(ID, new ByteArrayInputStream(data, 0, 100), 100);
      assertEquals(100, s.length(ID), "written again afterwards");
    }
  }

  /**
   * A delete that completes leaves only its tombstones, which hide nothing live: the id is
   * written again at a higher version, and a garbage collection pass takes them away.
   */
  @Test
  void aCompletedDeleteLeavesOnlyTombstonesForGarbageCollection() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = ArrayFixtures.dirs(root, "done", 4);
    try (ObjectStore s = new ObjectStore(c, fileDrives(dirs, Drive.IoMode.BUFFERED), codec(c))) {
      byte[] data = random(3 * CELL, 5);
      s.write(ID, new ByteArrayInputStream(data), data.length);
      assertTrue(s.delete(ID));
      assertTrue(s.stat(ID).isEmpty());
      for (Path dir : dirs) {
        assertEquals(1, count(dir, ID, n -> true), dir.toString());
        assertEquals(1, count(dir, ID, ObjectFiles.Name::isTombstone), dir.toString());
      }
      assertEquals(4, s.collectGarbageOnline().deleted());
      for (Path dir : dirs) {
        assertEquals(0, count(dir, ID, n -> true), dir.toString());
      }
      s.write(ID, new ByteArrayInputStream(data), data.length);
      assertTrue(s.delete(ID));
      assertEquals(1, s.write(ID, new ByteArrayInputStream(data), data.length),
          "above the tombstone left by the last delete");
      assertArrayEquals(data, readAll(s, ID));
      s.collectGarbageOnline();
      for (Path dir : dirs) {
        assertEquals(2, count(dir, ID, n -> n.version() == 1), dir.toString());
        assertEquals(2, count(dir, ID, n -> true), "the tombstone went with the old version");
      }
    }
  }

  /**
   * A commit that finds too few manifests durable takes them back and its shards too, so that no
   * later look-up rebuilds the failed version from them (here on a degraded array, where its
   * five shards look just like a version whose manifests were lost).
   */
  @Test
  void aFailedCommitIsNotRebuiltFromItsShards() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "failed", 6);
    FaultyDrive[] d = faulty(dirs);
    Drive[] drives = d.clone();
    drives[5] = null; // absent: the write is degraded and needs 1 + (2 - 1) manifests
    String temp = ObjectFiles.temp(ObjectFiles.manifest(ID, 0)).replace(".", "\\.");
    for (int i = 1; i < 5; i++) {
      d[i].inject(Fault.full(Op.CREATE).matching(temp));
    }
    byte[] data = random(4 * CELL, 9);
    try (ObjectStore s = new ObjectStore(c, drives, codec(c))) {
      ArrayException e = assertThrows(ArrayException.class,
          () -> s.write(ID, new ByteArrayInputStream(data), data.length));
      assertEquals(ArrayError.NO_SPACE, e.error());
      for (FaultyDrive f : d) {
        f.clearFaults();
      }
      assertTrue(s.stat(ID).isEmpty(), "the failed write is not committed by a look-up");
    }
    for (int i = 0; i < 5; i++) {
      assertEquals(0, count(dirs.get(i), ID, n -> true), "drive " + i);
    }
  }
}
