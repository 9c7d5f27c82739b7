package io.parityfs.raid.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.array.repair.RebuildProgress;
import io.parityfs.raid.array.repair.Rebuilder;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import io.parityfs.testkit.Eventually;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running array end to end on real folders: a drive vanishing under reads is failed in the
 * labels and replaced by the hot spare, which is rebuilt and brought ONLINE; a replacement by
 * command; a slot missing at open; a rebuild interrupted by a restart resumes.
 */
class RaidArrayTest {
  private static final int CELL = 4096;
  private static final StoreOptions OPTIONS = new StoreOptions(4 * CELL, 2, 2);

  @TempDir Path root;

  private static ParityCodecFactory codecs() {
    return ParityCodecFactory.builder().backend(CodecBackend.CPU).build();
  }

  private static ArrayConfig config(int spares) {
    return ArrayConfig.builder().protection(Protection.parse("raid6:4+2")).cellSize(CELL)
        .maxObjectSize(1 << 20).hotSpares(spares).build();
  }

  private List<Path> dirs(String name, int n) throws IOException {
    List<Path> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Files.createDirectories(root.resolve(name).resolve("d" + i)));
    }
    return out;
  }

  private static byte[] object(long id) {
    byte[] b = new byte[(int) (20_000 + id * 7_919 % 90_000)];
    new Random(id).nextBytes(b);
    return b;
  }

  private static void writeObjects(RaidArray a, int from, int to) throws IOException {
    for (long id = from; id < to; id++) {
      byte[] b = object(id);
      a.store().write(id, new ByteArrayInputStream(b), b.length);
    }
  }

  private static void checkObjects(RaidArray a, int from, int to) throws IOException {
    for (long id = from; id < to; id++) {
      byte[] b = object(id);
      ByteBuffer buf = ByteBuffer.allocate(b.length);
      assertEquals(b.length, a.store().read(id, 0, buf));
      assertArrayEquals(b, buf.array(), "object " + id);
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    Eventually.until(what, Duration.ofSeconds(60), condition);
  }

  @Test
  void aVanishedDriveIsFailedReplacedByTheSpareAndRebuilt() throws Exception {
    List<Path> drives = dirs("spare", 8); // 7 data slots + 1 hot spare
    Path spare = drives.get(7);
    try (RaidArray a = RaidArray.create(config(1), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 30);
      assertEquals(ArrayState.OPTIMAL, a.state());
      Files.move(drives.get(2), root.resolve("gone"));
      checkObjects(a, 0, 30); // degraded reads meet the vanished drive
      await(() -> a.labels().slot(2).drivePath().equals(Optional.of(spare))
          && a.state() == ArrayState.OPTIMAL, "the spare is rebuilt into slot 2");
      assertEquals(DriveState.ONLINE, a.labels().slot(2).state());
      assertTrue(a.labels().spare().isEmpty());
      long before = a.store().degradedReads();
      checkObjects(a, 0, 30);
      assertEquals(before, a.store().degradedReads(), "reads are healthy again");
      writeObjects(a, 30, 35);
    }
    Files.move(root.resolve("gone"), drives.get(2)); // the old drive comes back: stale
    try (RaidArray a = RaidArray.open(drives, Optional.empty(), codecs(), OPTIONS)) {
      assertEquals(ArrayState.OPTIMAL, a.state());
      assertEquals(spare, a.labels().slot(2).drive());
      assertEquals(1, a.labels().rejected().size());
      assertEquals(ArrayError.STALE_DRIVE, a.labels().rejected().get(0).reason().error());
      checkObjects(a, 0, 35);
      assertEquals(0, a.store().degradedReads());
    }
  }

  @Test
  void anAdminFailsADriveAndReplacesIt() throws Exception {
    List<Path> drives = dirs("replace", 7);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    try (RaidArray a = RaidArray.create(config(0), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 25);
      a.failDrive(1);
      assertEquals(ArrayState.DEGRADED, a.state());
      assertEquals(DriveState.FAILED, a.labels().slot(1).state());
      writeObjects(a, 25, 30); // degraded writes
      checkObjects(a, 0, 30);
      Path occupied = drives.get(3);
      assertThrows(IllegalArgumentException.class, () -> a.replaceDrive(3, occupied, true));
      Rebuilder r = a.replaceDrive(1, fresh, false);
      RebuildProgress p = r.await();
      assertTrue(p.complete(), p.toString());
      assertTrue(p.bytesDone() > 0 && p.bytesDone() == p.bytesTotal(), p.toString());
      await(() -> a.state() == ArrayState.OPTIMAL, "slot 1 is ONLINE");
      assertTrue(a.rebuilds().isEmpty());
      // issue 39 item 5: what it did stays readable after the end (a CLI that polls late)
      assertEquals(p, a.endedRebuilds().get(1), "the result of slot 1's rebuild");
      assertTrue(p.objectsRebuilt() > 0 && p.objectsDone() == p.objectsTotal(), p.toString());
      checkObjects(a, 0, 30);
    }
    List<Path> now = new ArrayList<>(drives);
    now.set(1, fresh);
    Collections.reverse(now);
    try (RaidArray a = RaidArray.open(now, Optional.empty(), codecs(), OPTIONS)) {
      assertEquals(ArrayState.OPTIMAL, a.state());
      checkObjects(a, 0, 30);
      assertEquals(0, a.store().degradedReads());
    }
  }

  @Test
  void aSlotMissingAtOpenIsFailedSoTheDriveIsStaleWhenItReturns() throws Exception {
    List<Path> drives = dirs("missing", 6);
    try (RaidArray a = RaidArray.create(config(0), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 10);
    }
    List<Path> without = new ArrayList<>(drives);
    without.remove(4);
    try (RaidArray a = RaidArray.open(without, Optional.empty(), codecs(), OPTIONS)) {
      assertEquals(DriveState.FAILED, a.labels().slot(4).state());
      assertEquals(ArrayState.DEGRADED, a.state());
      writeObjects(a, 0, 10); // new versions, without slot 4
      checkObjects(a, 0, 10);
    }
    try (RaidArray a = RaidArray.open(drives, Optional.empty(), codecs(), OPTIONS)) {
      assertEquals(ArrayError.STALE_DRIVE, a.labels().rejected().get(0).reason().error());
      assertEquals(ArrayState.DEGRADED, a.state());
      checkObjects(a, 0, 10);
    }
  }

  @Test
  void aRebuildInterruptedByARestartResumes() throws Exception {
    List<Path> drives = dirs("resume", 6);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    try (RaidArray a = RaidArray.create(config(0), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 40);
      a.failDrive(0);
      a.store().throttle(BackgroundThrottle.of(400_000, 400_000, 0)); // ~2 s for the shard data
      a.replaceDrive(0, fresh, false);
      await(() -> a.rebuilds().get(0) != null && a.rebuilds().get(0).objectsDone() >= 3,
          "the rebuild is under way");
      assertEquals(ArrayState.REBUILDING, a.state());
    } // closing stops the rebuild
    List<Path> now = new ArrayList<>(drives);
    now.set(0, fresh);
    try (RaidArray a = RaidArray.open(now, Optional.empty(), codecs(), OPTIONS)) {
      assertEquals(DriveState.REBUILDING, a.labels().slot(0).state());
      await(() -> a.state() == ArrayState.OPTIMAL, "the resumed rebuild completes");
      checkObjects(a, 0, 40);
    }
    try (RaidArray a = RaidArray.open(now, Optional.empty(), codecs(), OPTIONS)) {
      assertEquals(ArrayState.OPTIMAL, a.state());
      checkObjects(a, 0, 40);
      assertEquals(0, a.store().degradedReads());
    }
  }
}
