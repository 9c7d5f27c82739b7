package io.parityfs.raid.array;

import static io.parityfs.raid.array.object.ArrayFixtures.CELL;
import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.fileDrives;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.object.ArrayFixtures;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ObjectWriter;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A write in progress when a slot of its placement is taken out of service by someone else (an
 * admin's {@code failDrive}, another writer's drive error, a hot spare or a replacement moving
 * in): the shard is dropped and the write commits degraded while at most m shards are lost, and
 * fails cleanly ({@link ArrayError#NOT_ENOUGH_DRIVES}) beyond that. It used to run its later steps
 * against the vanished drive and end in a NullPointerException at publish.
 */
class WriteDuringDriveFailureTest {
  /** Small batches: a few stripes of data already went to the drives before the failure. */
  private static final StoreOptions OPTIONS = new StoreOptions(2 * CELL, 2, 2);
  private static final long ID = 0x42;

  @TempDir Path root;

  private ObjectStore store(String name) throws IOException {
    ArrayConfig c = config("raid6:4+2");
    return ArrayFixtures.store(c, fileDrives(ArrayFixtures.dirs(root, name, 7)), codec(c), OPTIONS);
  }

  private static byte[] read(ObjectStore s, long id, int length) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(length);
    assertEquals(length, s.read(id, 0, buf));
    return buf.array();
  }

  /** Writes half of {@code data}, runs {@code meanwhile}, writes the rest and commits. */
  private static long writeAround(ObjectWriter w, byte[] data, IoAction meanwhile)
      throws IOException {
    int half = data.length / 2;
    w.write(ByteBuffer.wrap(data, 0, half));
    meanwhile.run();
    w.write(ByteBuffer.wrap(data, half, data.length - half));
    return w.commit().version();
  }

  private interface IoAction {
    void run() throws IOException;
  }

  /** Shard {@code shard}'s slot; failing it before commit costs the write one shard. */
  @ParameterizedTest(name = "shard {0}")
  @ValueSource(ints = {0, 3, 5})
  void aSlotFailedByAnotherPartyDuringTheWriteIsLeftOut(int shard) throws IOException {
    byte[] data = random(11 * CELL + 123, shard);
    try (ObjectStore s = store("one" + shard)) {
      int[] slots = s.placement().drivesFor(ID);
      try (ObjectWriter w = s.openWriter(ID)) {
        assertEquals(0, writeAround(w, data, () -> s.detachDrive(slots[shard])));
      }
      assertArrayEquals(data, read(s, ID, data.length));
      // Committed with two shards' worth of redundancy less one: one more loss is survivable.
      s.detachDrive(slots[(shard + 1) % slots.length]);
      assertArrayEquals(data, read(s, ID, data.length));
    }
  }

  @Test
  void twoSlotsFailedMeanwhileStillCommitThreeFailCleanly() throws IOException {
    byte[] data = random(9 * CELL, 7);
    try (ObjectStore s = store("three")) {
      int[] slots = s.placement().drivesFor(ID);
      try (ObjectWriter w = s.openWriter(ID)) {
        writeAround(w, data, () -> {
          s.detachDrive(slots[1]);
          s.detachDrive(slots[4]);
        });
      }
      assertArrayEquals(data, read(s, ID, data.length));

      byte[] next = random(9 * CELL, 8);
      ObjectWriter w = s.openWriter(ID);
      ArrayException e = assertThrows(ArrayException.class,
          () -> writeAround(w, next, () -> s.detachDrive(slots[2])));
      assertEquals(ArrayError.NOT_ENOUGH_DRIVES, e.error(), e.getMessage());
      w.close();
      assertEquals(0, s.stat(ID).orElseThrow().version(), "the old version stays");
    }
  }

  @Test
  void failingASlotJustBeforeCommitLeavesItOutToo() throws IOException {
    byte[] data = random(5 * CELL + 1, 9);
    try (ObjectStore s = store("late")) {
      int[] slots = s.placement().drivesFor(ID);
      try (ObjectWriter w = s.openWriter(ID)) {
        w.write(ByteBuffer.wrap(data));
        s.detachDrive(slots[0]);
        s.detachDrive(slots[5]);
        assertEquals(0, w.commit().version());
      }
      assertArrayEquals(data, read(s, ID, data.length));
    }
  }

  /**
   * A hot spare or a replacement takes the slot over while the write runs: the shard was being
   * written on the old drive, so it is left out (a rebuild puts it on the new drive), never
   * "published" on the new drive, which holds no temp file of it.
   */
  @Test
  void aNewDriveMovingIntoTheSlotMeanwhileIsNotPublishedTo() throws IOException {
    byte[] data = random(13 * CELL + 77, 10);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    try (ObjectStore s = store("moved")) {
      int[] slots = s.placement().drivesFor(ID);
      try (ObjectWriter w = s.openWriter(ID)) {
        writeAround(w, data, () -> {
          s.detachDrive(slots[2]);
          s.attachDrive(slots[2], FileDrive.open(fresh, Drive.IoMode.DIRECT));
        });
      }
      assertArrayEquals(data, read(s, ID, data.length));
      try (Stream<Path> files = Files.list(fresh)) {
        assertTrue(files.noneMatch(f -> f.getFileName().toString()
            .startsWith(ObjectFiles.shard(ID, 0, 2))), "no shard (or temp) on the new drive");
      }
    }
  }

  /** The reported case: an admin fails a drive while a stream is being written. */
  @Test
  void anAdminFailingADriveUnderAStreamingWriteLetsItCommitDegraded() throws Exception {
    ArrayConfig c = ArrayConfig.builder().protection(Protection.parse("raid6:4+2")).cellSize(CELL)
        .maxObjectSize(1 << 20).build();
    List<Path> drives = ArrayFixtures.dirs(root, "array", 7);
    ParityCodecFactory codecs = ParityCodecFactory.builder().backend(CodecBackend.CPU).build();
    byte[] data = random(17 * CELL + 5, 11);
    try (RaidArray a = RaidArray.create(c, drives, codecs, OPTIONS)) {
      int[] slots = a.store().placement().drivesFor(ID);
      try (ObjectWriter w = a.store().openWriter(ID)) {
        writeAround(w, data, () -> a.failDrive(slots[0]));
      }
      assertEquals(DriveState.FAILED, a.labels().slot(slots[0]).state());
      assertArrayEquals(data, read(a.store(), ID, data.length));
    }
  }
}
