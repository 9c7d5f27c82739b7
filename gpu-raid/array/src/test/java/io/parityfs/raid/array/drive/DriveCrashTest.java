package io.parityfs.raid.array.drive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.FaultyDrive.CrashModel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Crash at every step of the label-style replace (write temp, sync, rename, sync directory), then
 * re-open the drive and check the label is the old one or the new one, never torn; and check the
 * crash model catches the same sequence with a sync left out.
 */
class DriveCrashTest {
  private static final byte[] OLD = DriveContractTest.random(300, 1);
  private static final byte[] NEW = DriveContractTest.random(333, 2);

  @TempDir Path root;

  /** The workload: LabelFile.write against the Drive API, with syncs that can be left out. */
  private static void replace(Drive d, byte[] content, boolean syncFile, boolean syncDir)
      throws IOException {
    try (DriveFile f = d.create("label.tmp")) {
      f.write(ByteBuffer.wrap(content), 0);
      if (syncFile) {
        f.sync();
      }
    }
    d.rename("label.tmp", "label");
    if (syncDir) {
      d.syncDirectory();
    }
  }

  /** Re-assembly: drop a leftover temp file, return the label (null if absent). */
  private static byte[] recover(Path dir) throws IOException {
    try (Drive d = FileDrive.open(dir, Drive.IoMode.BUFFERED)) {
      d.delete("label.tmp");
      d.syncDirectory();
      if (d.list("label").isEmpty()) {
        return null;
      }
      try (DriveFile f = d.open("label")) {
        ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(f.size()));
        f.readFully(b, 0);
        return b.array();
      }
    }
  }

  /**
   * Runs the workload crashing at step {@code step} (or after the last one when step is past
   * it); returns the recovered label.
   */
  private byte[] crashRun(
      String name, byte[] before, long step, CrashModel model, boolean syncFile, boolean syncDir)
      throws IOException {
    Path dir = Files.createDirectories(root.resolve(name));
    if (before != null) {
      Files.write(dir.resolve("label"), before);
    }
    FaultyDrive d = new FaultyDrive(FileDrive.open(dir, Drive.IoMode.DIRECT), step);
    d.crashAtStep(step, model);
    try {
      replace(d, NEW, syncFile, syncDir);
      d.crashNow(model);
    } catch (SimulatedCrash expected) {
      assertTrue(d.steps() == step, "crashed at step " + d.steps() + ", armed for " + step);
    }
    assertThrows(SimulatedCrash.class, () -> d.list(""), "a crashed drive stays dead");
    return recover(dir);
  }

  private long stepsOfWorkload(boolean syncFile, boolean syncDir) throws IOException {
    Path dir = Files.createDirectories(root.resolve("count"));
    FaultyDrive d = new FaultyDrive(FileDrive.open(dir, Drive.IoMode.BUFFERED), 0);
    replace(d, NEW, syncFile, syncDir);
    return d.steps();
  }

  @ParameterizedTest
  @EnumSource(CrashModel.class)
  void crashAtEveryStepLeavesOldOrNewLabel(CrashModel model) throws IOException {
    long steps = stepsOfWorkload(true, true);
    assertEquals(5, steps, "create, write, sync, rename, sync directory");
    for (byte[] before : Arrays.asList(OLD, null)) {
      for (long s = 1; s <= steps + 1; s++) {
        byte[] after = crashRun(model + "-" + (before == null) + "-" + s, before, s, model, true,
            true);
        boolean old = before == null ? after == null : Arrays.equals(before, after);
        boolean isNew = Arrays.equals(NEW, after);
        assertTrue(old || isNew, "crash at step " + s + ": torn label " + Arrays.toString(after));
        if (s > steps) {
          assertArrayEquals(NEW, after, "a completed replace is durable");
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CrashModel.class)
  void withoutFileSyncACrashCanTearTheLabel(CrashModel model) throws IOException {
    long steps = stepsOfWorkload(false, true);
    int torn = 0;
    for (long s = 1; s <= steps + 1; s++) {
      byte[] after = crashRun(model + "-nosync-" + s, OLD, s, model, false, true);
      if (!Arrays.equals(OLD, after) && !Arrays.equals(NEW, after)) {
        torn++;
      }
    }
    assertTrue(torn > 0, model + " must expose the missing file sync");
  }

  @ParameterizedTest
  @EnumSource(CrashModel.class)
  void withoutDirectorySyncACompletedReplaceCanBeLost(CrashModel model) throws IOException {
    long steps = stepsOfWorkload(true, false);
    byte[] after = crashRun(model + "-nodirsync", OLD, steps + 1, model, true, false);
    if (model == CrashModel.LOSE_UNSYNCED) {
      assertArrayEquals(OLD, after, "the rename was never made durable");
    } else {
      assertArrayEquals(NEW, after);
    }
  }
}
