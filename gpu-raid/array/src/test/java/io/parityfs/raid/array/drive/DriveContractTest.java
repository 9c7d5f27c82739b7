package io.parityfs.raid.array.drive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@link Drive} contract; one small subclass per implementation and mode. */
public abstract class DriveContractTest {
  @TempDir Path dir;
  Drive drive;

  abstract Drive newDrive(Path dir) throws IOException;

  @BeforeEach
  void openDrive() throws IOException {
    drive = newDrive(dir);
  }

  @AfterEach
  void closeDrive() throws IOException {
    drive.close();
  }

  public static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static byte[] read(DriveFile f, long position, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n);
    f.readFully(b, position);
    return b.array();
  }

  @Test
  void alignedDirectBufferRoundTrip() throws IOException {
    int a = drive.alignment();
    byte[] data = random(3 * a, 1);
    try (DriveFile f = drive.create("shard-1")) {
      ByteBuffer src = drive.allocateAligned(3 * a).put(data).flip();
      f.write(src, a);
      assertFalse(src.hasRemaining());
      ByteBuffer dst = drive.allocateAligned(3 * a);
      assertEquals(3 * a, f.read(dst, a));
      byte[] back = new byte[3 * a];
      dst.flip().get(back);
      assertArrayEquals(data, back);
      assertEquals(4L * a, f.size());
      assertArrayEquals(new byte[a], read(f, 0, a), "hole reads as zeros");
    }
    assertEquals(4L * drive.alignment(), drive.size("shard-1"));
  }

  @Test
  void alignedHeapBufferGoesThroughBounce() throws IOException {
    byte[] data = random(8192, 2);
    try (DriveFile f = drive.create("x")) {
      ByteBuffer src = ByteBuffer.wrap(data);
      f.write(src, 0);
      assertFalse(src.hasRemaining());
      ByteBuffer dst = ByteBuffer.allocate(8192);
      f.readFully(dst, 0);
      assertArrayEquals(data, dst.array());
    }
  }

  @Test
  void unalignedUseRoundTripsAndReportsEndOfFile() throws IOException {
    byte[] data = random(1000, 3);
    try (DriveFile f = drive.create("label")) {
      ByteBuffer src = ByteBuffer.allocate(1013).position(13);
      src.put(data).position(13);
      f.write(src, 7);
      assertEquals(1007, f.size());
      assertArrayEquals(data, read(f, 7, 1000));
      ByteBuffer tail = ByteBuffer.allocate(100);
      assertEquals(7, f.read(tail, 1000), "short read only at the end");
      assertEquals(0, f.read(ByteBuffer.allocate(10), 5000));
      assertThrows(EOFException.class, () -> f.readFully(ByteBuffer.allocate(100), 1000));
    }
  }

  @Test
  void alignedAndUnalignedWritesOfOneFileAreCoherent() throws IOException {
    int a = drive.alignment();
    try (DriveFile f = drive.create("mixed")) {
      f.write(drive.allocateAligned(2 * a).put(random(2 * a, 4)).flip(), 0);
      f.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), a - 1);
      ByteBuffer back = drive.allocateAligned(2 * a);
      f.readFully(back, 0);
      assertEquals(1, back.get(a - 1));
      assertEquals(3, back.get(a + 1));
      f.sync();
    }
    try (DriveFile f = drive.open("mixed")) {
      assertArrayEquals(new byte[] {1, 2, 3}, read(f, drive.alignment() - 1, 3));
    }
  }

  @Test
  void concurrentWritesToOneFile() throws Exception {
    int a = drive.alignment();
    int threads = 8;
    int blocks = 16;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (DriveFile f = drive.create("parallel")) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(
            pool.submit(
                () -> {
                  ByteBuffer b = drive.allocateAligned(a);
                  for (int i = id; i < threads * blocks; i += threads) {
                    b.clear();
                    while (b.hasRemaining()) {
                      b.put((byte) i);
                    }
                    f.write(b.flip(), (long) i * a);
                  }
                  return null;
                }));
      }
      for (Future<?> d : done) {
        d.get();
      }
      f.sync();
      for (int i = 0; i < threads * blocks; i++) {
        assertEquals((byte) i, read(f, (long) i * a + a / 2, 1)[0]);
      }
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void openForWriteUpdatesAnExistingFileInPlace() throws IOException {
    int a = drive.alignment();
    byte[] data = random(4 * a, 5);
    try (DriveFile f = drive.create("shard")) {
      f.write(ByteBuffer.wrap(data), 0);
      f.sync();
    }
    byte[] patch = random(a, 6);
    try (DriveFile reader = drive.open("shard");
        DriveFile f = drive.openForWrite("shard")) {
      assertEquals(4L * a, f.size(), "not truncated");
      assertArrayEquals(data, read(f, 0, 4 * a), "readable");
      f.write(drive.allocateAligned(a).put(patch).flip(), 2L * a); // aligned: O_DIRECT if DIRECT
      f.write(ByteBuffer.wrap(new byte[] {9, 8, 7}), 5); // unaligned: buffered path
      f.sync();
      assertEquals(4L * a, f.size());
      assertArrayEquals(patch, read(reader, 2L * a, a), "a read-only handle sees the write");
      ByteBuffer direct = drive.allocateAligned(a);
      reader.readFully(direct, 2L * a);
      byte[] back = new byte[a];
      direct.flip().get(back);
      assertArrayEquals(patch, back);
    }
    System.arraycopy(patch, 0, data, 2 * a, a);
    data[5] = 9;
    data[6] = 8;
    data[7] = 7;
    try (DriveFile f = drive.open("shard")) {
      assertEquals(4L * a, f.size());
      assertArrayEquals(data, read(f, 0, 4 * a));
    }
    assertEquals(List.of("shard"), drive.list(""));
  }

  @Test
  void openForWriteNeedsAnExistingFile() throws IOException {
    NoSuchFileException e =
        assertThrows(NoSuchFileException.class, () -> drive.openForWrite("nope"));
    assertFalse(Drive.isDriveFailure(e));
    assertEquals(List.of(), drive.list(""), "nothing created");
    assertThrows(IllegalArgumentException.class, () -> drive.openForWrite("../x"));
  }

  @Test
  void renameReplacesAtomicallyAndListingIsSorted() throws IOException {
    for (String n : new String[] {"shard-2", "shard-1", "label.tmp", "label"}) {
      try (DriveFile f = drive.create(n)) {
        f.write(ByteBuffer.wrap(n.getBytes()), 0);
        f.sync();
      }
    }
    assertEquals(List.of("label", "label.tmp", "shard-1", "shard-2"), drive.list(""));
    assertEquals(List.of("shard-1", "shard-2"), drive.list("shard-"));
    drive.rename("label.tmp", "label");
    drive.syncDirectory();
    assertEquals(List.of("label", "shard-1", "shard-2"), drive.list(""));
    try (DriveFile f = drive.open("label")) {
      assertArrayEquals("label.tmp".getBytes(), read(f, 0, 9));
    }
    assertTrue(drive.delete("shard-1"));
    assertFalse(drive.delete("shard-1"));
    assertEquals(List.of("shard-2"), drive.list("shard"));
  }

  @Test
  void absentFileIsNotADriveFailure() {
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> drive.open("nope"));
    assertFalse(Drive.isDriveFailure(e));
    assertThrows(NoSuchFileException.class, () -> drive.size("nope"));
    assertThrows(NoSuchFileException.class, () -> drive.rename("nope", "other"));
  }

  @Test
  void namesMustBeSingleNames() {
    for (String bad : new String[] {"", ".", "..", "../x", "a/b", "/etc/passwd"}) {
      assertThrows(IllegalArgumentException.class, () -> drive.create(bad), bad);
    }
  }

  @Test
  void spaceIsReported() throws IOException {
    long total = drive.totalSpace();
    long usable = drive.usableSpace();
    assertTrue(total > 0, "total " + total);
    assertTrue(usable >= 0 && usable <= total, "usable " + usable + " of " + total);
  }

  @Test
  void closedDriveRefusesCalls() throws IOException {
    drive.close();
    assertThrows(ClosedChannelException.class, () -> drive.list(""));
    assertThrows(ClosedChannelException.class, () -> drive.create("x"));
    assertThrows(ClosedChannelException.class, () -> drive.openForWrite("x"));
  }
}
