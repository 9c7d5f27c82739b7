package io.parityfs.raid.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.assembly.ArrayLabels;
import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.drive.Fault.Gate;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.array.repair.RebuildProgress;
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
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What keeps a RAID array recovering on its own: a FAILED rebuild is retried, a rebuild resumed
 * at open survives the garbage collection (reliability audit D8/A3 and the "never retried" part
 * of D5), and an admin cannot fail more slots than the protection tolerates by accident (D6).
 */
class RaidArrayRecoveryTest {
  private static final int CELL = 4096;
  private static final StoreOptions OPTIONS = new StoreOptions(4 * CELL, 2, 2);

  @TempDir Path root;

  private static ParityCodecFactory codecs() {
    return ParityCodecFactory.builder().backend(CodecBackend.CPU).build();
  }

  private static ArrayConfig config() {
    return ArrayConfig.builder().protection(Protection.parse("raid6:4+2")).cellSize(CELL)
        .maxObjectSize(1 << 20).build();
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
    Eventually.until(what, Duration.ofSeconds(20), condition);
  }

  /** Opens every drive as a FileDrive, {@code faulty} wrapped in a FaultyDrive with faults. */
  private static RaidArray.DriveOpener opener(Path faulty, Fault... faults) {
    return dir -> {
      Drive d = RaidArray.FILE_DRIVES.open(dir);
      if (!dir.equals(faulty)) {
        return d;
      }
      FaultyDrive f = new FaultyDrive(d, 1);
      for (Fault x : faults) {
        f.inject(x);
      }
      return f;
    };
  }

  /** A shard's temp file (not a manifest's). */
  private static final String SHARD_TEMP = ".*\\.[0-9a-f]{2}\\.tmp";

  @Test
  void aRebuildThatEndsFailedWithoutItsDriveFailingIsRetried() throws Exception {
    List<Path> drives = dirs("retry", 6);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    try (RaidArray a = RaidArray.create(config(), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 20);
    }
    // The new drive's first shard write finds its file gone (as when a delete took it): not a
    // drive failure, so the rebuild ends FAILED with the drive healthy.
    Fault once = Fault.missing(Op.WRITE).matching(SHARD_TEMP).onCall(1);
    try (RaidArray a = RaidArray.open(drives, Optional.empty(), codecs(), OPTIONS,
        opener(fresh, once))) {
      a.retryBackoff(Duration.ofMillis(1));
      a.failDrive(1);
      RebuildProgress first = a.replaceDrive(1, fresh, false).await();
      assertEquals(RebuildProgress.State.FAILED, first.state(), first.toString());
      await(() -> a.state() == ArrayState.OPTIMAL, "the retried rebuild puts slot 1 ONLINE");
      assertEquals(DriveState.ONLINE, a.labels().slot(1).state());
      checkObjects(a, 0, 20);
    }
  }

  @Test
  void aRebuildResumedAtOpenIsNotUndoneByGarbageCollection() throws Exception {
    List<Path> drives = dirs("resume", 6);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    try (RaidArray a = RaidArray.create(config(), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 20);
      a.failDrive(2);
    }
    // The labels say slot 2 is REBUILDING onto fresh, as after a stop or a crash mid-rebuild,
    // and a temp the crash left is there.
    ArrayLabels.replaceDrive(ArrayLabels.assemble(drives), 2, fresh);
    Files.write(fresh.resolve(ObjectFiles.temp(ObjectFiles.shard(3, 0, 0))), new byte[100]);
    Gate held = new Gate();
    List<Path> all = new ArrayList<>(drives);
    all.add(fresh);
    // Hold the first write of object 5's temp shard on slot 2 (raid6:4+2 on 6 drives puts
    // every object on every slot).
    int shard = java.util.Arrays.stream(DrivePlacement.of(6, 6).drivesFor(5)).boxed().toList()
        .indexOf(2);
    String temp = ObjectFiles.temp(ObjectFiles.shard(5, 0, shard));
    try (RaidArray a = RaidArray.open(all, Optional.empty(), codecs(), OPTIONS,
        opener(fresh, Fault.hold(held, Op.WRITE).matching(temp.replace(".", "\\.")).onCall(1)))) {
      try {
        assertTrue(a.garbageAtOpen() >= 1, "the crash's temp was collected at open");
        held.awaitReached(); // the resumed rebuild is writing object 5's temp shard
        assertTrue(Files.exists(fresh.resolve(temp)));
        // What StorageNode did after open: a collection racing the resumed rebuild.
        a.store().collectGarbage();
        assertTrue(Files.exists(fresh.resolve(temp)), "the rebuild's temp survived GC");
      } finally {
        held.open();
      }
      await(() -> a.state() == ArrayState.OPTIMAL, "the resumed rebuild puts slot 2 ONLINE");
      checkObjects(a, 0, 20);
    }
  }

  @Test
  void failingMoreSlotsThanTheProtectionToleratesIsRefusedUnlessForced() throws Exception {
    List<Path> drives = dirs("guard", 6);
    try (RaidArray a = RaidArray.create(config(), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 10);
      a.failDrive(0);
      a.failDrive(4);
      assertEquals(ArrayState.DEGRADED, a.state());
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.failDrive(2));
      assertTrue(e.getMessage().contains("slot 2") && e.getMessage().contains("0 FAILED")
          && e.getMessage().contains("4 FAILED") && e.getMessage().contains("force"),
          e.getMessage());
      assertEquals(DriveState.ONLINE, a.labels().slot(2).state(), "nothing was failed");
      checkObjects(a, 0, 10);
      a.failDrive(4); // already failed: nothing more is lost, allowed
      a.failDrive(2, true);
      assertEquals(DriveState.FAILED, a.labels().slot(2).state());
      assertEquals(ArrayState.FAILED, a.state());
    }
  }

  @Test
  void aSecondOpenOfTheSameDrivesFailsNamingTheDrive() throws Exception {
    List<Path> drives = dirs("locked", 6);
    try (RaidArray a = RaidArray.create(config(), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 5);
      ArrayException e = assertThrows(ArrayException.class,
          () -> RaidArray.open(drives, Optional.empty(), codecs(), OPTIONS));
      assertEquals(ArrayError.DRIVE_IN_USE, e.error());
      assertTrue(e.getMessage().contains(drives.get(0).toString()) && e.getMessage().contains(
          "in use"), e.getMessage());
      checkObjects(a, 0, 5); // the first is untouched
      a.failDrive(3);
      try (RaidArray b = RaidArray.create(config(), dirs("b", 6), codecs(), OPTIONS)) {
        Path taken = root.resolve("b").resolve("d0");
        e = assertThrows(ArrayException.class, () -> a.replaceDrive(3, taken, true));
        assertEquals(ArrayError.DRIVE_IN_USE, e.error(), "another open array's drive");
      }
      a.replaceDrive(3, Files.createDirectories(root.resolve("other")), false).await();
    }
    try (RaidArray a = RaidArray.open(drives, Optional.empty(), codecs(), OPTIONS)) {
      checkObjects(a, 0, 5); // closed: the locks are released
    }
  }

  @Test
  void aSlotStillRebuildingCountsAsUnavailable() throws Exception {
    List<Path> drives = dirs("rebuilding", 6);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    try (RaidArray a = RaidArray.create(config(), drives, codecs(), OPTIONS)) {
      writeObjects(a, 0, 10);
      a.failDrive(0);
    }
    Gate held = new Gate();
    try (RaidArray a = RaidArray.open(drives, Optional.empty(), codecs(), OPTIONS,
        opener(fresh, Fault.hold(held, Op.WRITE).matching(SHARD_TEMP).onCall(1)))) {
      try {
        a.replaceDrive(0, fresh, false);
        held.awaitReached();
        a.failDrive(3); // slot 0 rebuilding, slot 3 failed: two, as raid6 tolerates
        IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> a.failDrive(5));
        assertTrue(e.getMessage().contains("0 REBUILDING"), e.getMessage());
      } finally {
        held.open();
      }
    }
  }
}
