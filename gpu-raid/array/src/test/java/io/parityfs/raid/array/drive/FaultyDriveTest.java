package io.parityfs.raid.array.drive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.format.ArrayException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class FaultyDriveTest {
  @TempDir Path dir;

  private FaultyDrive drive(long seed) throws IOException {
    return new FaultyDrive(FileDrive.open(dir, Drive.IoMode.BUFFERED), seed);
  }

  private static void assertDriveFailure(Executable call) {
    ArrayException e = assertThrows(ArrayException.class, call);
    assertTrue(Drive.isDriveFailure(e), e.toString());
  }

  private static ByteBuffer bytes(int n) {
    return ByteBuffer.wrap(DriveContractTest.random(n, n));
  }

  @Test
  void errorOnTheNthMatchingCallOnly() throws IOException {
    FaultyDrive d = drive(1);
    FaultyDrive.Injected rule = d.inject(Fault.error(Op.WRITE).matching("shard-.*").onCall(2));
    try (DriveFile label = d.create("label");
        DriveFile shard = d.create("shard-3")) {
      label.write(bytes(10), 0);
      shard.write(bytes(10), 0);
      assertDriveFailure(() -> shard.write(bytes(10), 10));
      shard.write(bytes(10), 10);
      label.write(bytes(10), 10);
    }
    assertEquals(3, rule.calls());
    assertEquals(1, rule.fired());
    assertEquals(20, Files.size(dir.resolve("shard-3")));
  }

  @Test
  void errorsOnEachTargetedOperationLeaveTheOperationUndone() throws IOException {
    FaultyDrive d = drive(1);
    try (DriveFile f = d.create("a")) {
      f.write(bytes(4), 0);
      d.inject(Fault.error(Op.SYNC, Op.READ));
      assertDriveFailure(f::sync);
      assertDriveFailure(() -> f.read(ByteBuffer.allocate(4), 0));
    }
    d.inject(Fault.error(Op.RENAME, Op.SYNC_DIR, Op.DELETE));
    assertDriveFailure(() -> d.rename("a", "b"));
    assertDriveFailure(d::syncDirectory);
    assertDriveFailure(() -> d.delete("a"));
    assertEquals(List.of("a"), d.list(""));
    d.clearFaults();
    d.rename("a", "b");
    assertEquals(List.of("b"), d.list(""));
  }

  private List<Integer> failingReads(long seed) throws IOException {
    FaultyDrive d = drive(seed);
    try (DriveFile f = d.create("p")) {
      f.write(bytes(8), 0);
    }
    d.inject(Fault.error(Op.READ).withProbability(0.3));
    List<Integer> failed = new ArrayList<>();
    try (DriveFile f = d.open("p")) {
      for (int i = 0; i < 200; i++) {
        try {
          f.read(ByteBuffer.allocate(8), 0);
        } catch (ArrayException e) {
          failed.add(i);
        }
      }
    }
    return failed;
  }

  @Test
  void probabilityIsSeededAndDeterministic() throws IOException {
    List<Integer> first = failingReads(42);
    assertEquals(first, failingReads(42));
    assertNotEquals(first, failingReads(43));
    assertTrue(first.size() > 30 && first.size() < 90, "fired " + first.size() + " of 200");
  }

  private static int differingBits(byte[] a, byte[] b) {
    int bits = 0;
    for (int i = 0; i < a.length; i++) {
      bits += Integer.bitCount((a[i] ^ b[i]) & 0xff);
    }
    return bits;
  }

  @Test
  void corruptWriteFlipsOneStoredBitNotTheCallersBuffer() throws IOException {
    FaultyDrive d = drive(5);
    FaultyDrive.Injected rule = d.inject(Fault.corrupt(Op.WRITE).onCall(1));
    byte[] data = DriveContractTest.random(4096, 9);
    ByteBuffer src = ByteBuffer.wrap(data.clone());
    try (DriveFile f = d.create("c")) {
      f.write(src, 0);
    }
    assertArrayEquals(data, src.array());
    assertEquals(1, differingBits(data, Files.readAllBytes(dir.resolve("c"))));
    assertEquals(1, rule.fired());
  }

  @Test
  void corruptReadFlipsOneBitOfWhatIsReadOnly() throws IOException {
    FaultyDrive d = drive(5);
    byte[] data = DriveContractTest.random(4096, 9);
    try (DriveFile f = d.create("c")) {
      f.write(ByteBuffer.wrap(data), 0);
      d.inject(Fault.corrupt(Op.READ).onCall(1));
      assertEquals(1, differingBits(data, DriveContractTest.read(f, 0, 4096)));
      assertArrayEquals(data, DriveContractTest.read(f, 0, 4096));
    }
  }

  @Test
  void delaySleepsOnlyTheMatchingCall() throws IOException {
    FaultyDrive d = drive(5);
    FaultyDrive.Injected rule = d.inject(Fault.delay(Duration.ofMillis(40), Op.SIZE).onCall(1));
    try (DriveFile f = d.create("c")) {
      f.write(bytes(3), 0);
    }
    long start = System.nanoTime();
    assertEquals(3, d.size("c"));
    assertTrue(System.nanoTime() - start >= 40_000_000L);
    assertEquals(3, d.size("c"));
    assertEquals(1, rule.fired());
    assertThrows(IllegalArgumentException.class, () -> Fault.delay(Duration.ofMinutes(1), Op.READ));
  }

  @Test
  void aVanishedDriveFailsEveryCallIncludingOpenFiles() throws IOException {
    FaultyDrive d = drive(5);
    try (DriveFile f = d.create("c")) {
      f.write(bytes(3), 0);
      d.disappear();
      assertDriveFailure(() -> f.read(ByteBuffer.allocate(3), 0));
      assertDriveFailure(() -> f.write(bytes(3), 0));
      assertDriveFailure(f::sync);
    }
    assertDriveFailure(() -> d.list(""));
    assertDriveFailure(() -> d.open("c"));
    assertDriveFailure(() -> d.create("d"));
    assertDriveFailure(d::usableSpace);
  }
}
