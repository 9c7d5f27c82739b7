package io.parityfs.raid.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.Fault.Op;
import io.parityfs.raid.array.FaultyDrive.CrashModel;
import io.parityfs.raid.codec.CodecGeometry;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** ShardWriter and ShardReader on FileDrive and FaultyDrive: round trips, corruption, crashes. */
class ShardFileTest {
  private static final int CELL = 4096;
  private static final String NAME = "obj7.v1.s0";
  private static final Instant CREATED = Instant.parse("2025-03-04T05:06:07.089Z");

  @TempDir Path root;

  private static ShardHeader template(int cellSize) {
    return ShardHeader.of(7, 1, 0, new ObjectLayout(Protection.mirror(2), cellSize, 0), CREATED);
  }

  /** Writes {@code data} as mirror copy 0 in cells, finishes and publishes it. */
  private static void writeShard(Drive d, String name, byte[] data, boolean direct)
      throws IOException {
    ShardWriter w = new ShardWriter(d, name, template(CELL));
    ByteBuffer cell = direct ? d.allocateAligned(CELL) : ByteBuffer.allocate(CELL);
    for (int off = 0; off < data.length; off += CELL) {
      int n = Math.min(CELL, data.length - off);
      cell.clear().put(data, off, n).flip();
      w.writeCell(cell);
      assertEquals(0, cell.position(), "the writer does not move the caller's buffer");
    }
    String temp = w.finish(data.length, data.length);
    ShardWriter.publish(d, temp, name);
  }

  private Drive drive(String name) throws IOException {
    return FileDrive.open(Files.createDirectories(root.resolve(name)), Drive.IoMode.DIRECT);
  }

  private static byte[] padded(byte[] data) {
    return Arrays.copyOf(data, (data.length + CELL - 1) / CELL * CELL);
  }

  private static void assertReadsBack(Drive d, String name, byte[] data, boolean direct)
      throws IOException {
    byte[] want = padded(data);
    try (ShardReader r = ShardReader.open(d, name)) {
      assertEquals(data.length, r.header().dataLength());
      assertEquals(want.length / CELL, r.header().cellCount());
      assertEquals(r.header().fileLength(), d.size(name));
      ByteBuffer cell = direct ? d.allocateAligned(CELL) : ByteBuffer.allocate(CELL);
      for (int i = 0; i < want.length / CELL; i++) {
        cell.clear();
        r.readCell(i, cell);
        assertEquals(CELL, cell.position());
        byte[] got = new byte[CELL];
        cell.flip().get(got);
        assertArrayEquals(Arrays.copyOfRange(want, i * CELL, (i + 1) * CELL), got, "cell " + i);
      }
    }
  }

  private static void flipBit(Path file, long offset) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0x10);
    }
  }

  @ParameterizedTest(name = "{0} bytes, direct buffers {1}")
  @CsvSource({"0,false", "1,true", "5000,false", "5000,true", "12288,true",
      "6144007,false", "6144007,true"})
  void roundTrip(int length, boolean direct) throws IOException {
    byte[] data = DriveContractTest.random(length, length);
    try (Drive d = drive("rt")) {
      writeShard(d, NAME, data, direct);
      assertEquals(List.of(NAME), d.list(""), "no temp file left");
      assertReadsBack(d, NAME, data, direct);
    }
  }

  @Test
  void rangeReadReadsOnlyTheCellsTouched() throws IOException {
    byte[] data = DriveContractTest.random(10 * CELL, 3);
    try (Drive d = drive("range")) {
      writeShard(d, NAME, data, true);
      FaultyDrive f = new FaultyDrive(d, 1);
      FaultyDrive.Injected reads = f.inject(Fault.delay(java.time.Duration.ZERO, Op.READ));
      try (ShardReader r = ShardReader.open(f, NAME)) {
        long offset = 2 * CELL + 100;
        long length = 2 * CELL;
        assertEquals(3, r.cellsTouched(offset, length));
        ByteBuffer buf = f.allocateAligned(3 * CELL);
        long before = reads.calls();
        assertEquals(0, r.readRange(offset, length, buf).length);
        assertEquals(2, reads.calls() - before, "one read for the cells, one table block");
        assertEquals(3 * CELL, buf.position());
        byte[] got = new byte[(int) length];
        buf.position(100).get(got);
        assertArrayEquals(Arrays.copyOfRange(data, (int) offset, (int) (offset + length)), got);
        assertEquals(0, r.readRange(0, 0, buf.clear()).length);
      }
    }
  }

  @Test
  void parityShardOfAStripedObject() throws IOException {
    ObjectLayout layout = new ObjectLayout(Protection.parity(CodecGeometry.raid6(4)), CELL, 30000);
    ShardHeader header = ShardHeader.of(9, 3, 5, layout, CREATED);
    try (Drive d = drive("parity")) {
      ShardWriter w = new ShardWriter(d, "p", ShardHeader.of(9, 3, 5,
          new ObjectLayout(layout.protection(), CELL, 0), CREATED));
      ByteBuffer cell = ByteBuffer.wrap(DriveContractTest.random(CELL, 5));
      for (int i = 0; i < layout.stripes(); i++) {
        w.writeCell(cell);
      }
      assertThrows(IllegalArgumentException.class, () -> w.finish(30000, 30000),
          "data length disagreeing with the layout is refused");
      ShardWriter.publish(d, w.finish(30000, layout.shardDataLength(5)), "p");
      try (ShardReader r = ShardReader.open(d, "p")) {
        assertEquals(header, r.header());
      }
    }
  }

  @Test
  void misuseIsRefused() throws IOException {
    try (Drive d = drive("misuse")) {
      ShardWriter w = new ShardWriter(d, NAME, template(CELL));
      assertThrows(IllegalArgumentException.class,
          () -> w.writeCell(ByteBuffer.allocate(CELL + 1)));
      w.writeCell(ByteBuffer.allocate(10));
      assertThrows(IllegalStateException.class, () -> w.writeCell(ByteBuffer.allocate(CELL)),
          "only the last cell may be short");
      assertThrows(IllegalArgumentException.class, () -> w.finish(CELL, CELL),
          "cell count disagrees with the length");
      w.finish(10, 10);
      assertThrows(IllegalStateException.class, () -> w.finish(10, 10));
      assertThrows(IllegalArgumentException.class, () -> new ShardWriter(d, "x.tmp", template(CELL)));
      w.abort();
    }
  }

  @Test
  void flippedBitInACellReportsExactlyThatCell() throws IOException {
    byte[] data = DriveContractTest.random(8 * CELL, 4);
    try (Drive d = drive("cellrot")) {
      writeShard(d, NAME, data, true);
      flipBit(d.root().resolve(NAME), ShardFormat.cellOffset(CELL, 3) + 1234);
      try (ShardReader r = ShardReader.open(d, NAME)) {
        ByteBuffer buf = d.allocateAligned(8 * CELL);
        assertArrayEquals(new int[] {3}, r.readRange(0, 8 * CELL, buf));
        for (int i = 0; i < 8; i++) {
          ByteBuffer cell = ByteBuffer.allocate(CELL);
          if (i != 3) {
            r.readCell(i, cell);
            continue;
          }
          ArrayException e = assertThrows(ArrayException.class, () -> r.readCell(3, cell));
          assertEquals(ArrayError.CORRUPT_CELL, e.error());
          assertFalse(Drive.isDriveFailure(e));
          assertTrue(e.getMessage().contains(NAME) && e.getMessage().contains("cell 3 "),
              e.getMessage());
          assertTrue(e.getMessage().contains(String.format("%08x", r.crc(3))), e.getMessage());
          assertEquals(0, cell.position(), "a bad cell does not advance the buffer");
        }
        r.rewriteCell(3, ByteBuffer.wrap(data, 3 * CELL, CELL).slice());
      }
      assertReadsBack(d, NAME, data, false);
      assertEquals(List.of(NAME), d.list(""));
    }
  }

  @Test
  void flippedBitInTheHeaderIsACorruptShard() throws IOException {
    try (Drive d = drive("hdrrot")) {
      writeShard(d, NAME, DriveContractTest.random(3 * CELL, 6), false);
      flipBit(d.root().resolve(NAME), ShardFormat.OFF_OBJECT_LENGTH + 7);
      ArrayException e = assertThrows(ArrayException.class, () -> ShardReader.open(d, NAME));
      assertEquals(ArrayError.CORRUPT_SHARD, e.error());
      assertTrue(e.getMessage().contains(NAME), e.getMessage());
    }
  }

  @Test
  void truncatedFileIsACorruptShard() throws IOException {
    try (Drive d = drive("short")) {
      writeShard(d, NAME, DriveContractTest.random(3 * CELL, 6), false);
      try (RandomAccessFile f = new RandomAccessFile(d.root().resolve(NAME).toFile(), "rw")) {
        f.setLength(f.length() - CELL);
      }
      ArrayException e = assertThrows(ArrayException.class, () -> ShardReader.open(d, NAME));
      assertEquals(ArrayError.CORRUPT_SHARD, e.error());
      assertThrows(NoSuchFileException.class, () -> ShardReader.open(d, "absent"));
    }
  }

  @Test
  void flippedTableEntryReportsItsCellUntilRewritten() throws IOException {
    byte[] data = DriveContractTest.random(1500 * CELL - 5, 7); // two table blocks
    int victim = 1100;
    try (Drive d = drive("tablerot")) {
      writeShard(d, NAME, data, true);
      flipBit(d.root().resolve(NAME),
          ShardFormat.tableEntryOffset(CELL, 1500, victim) + 4 * (victim % 1024) + 2);
      try (ShardReader r = ShardReader.open(d, NAME)) {
        ByteBuffer cell = d.allocateAligned(CELL);
        ArrayException e = assertThrows(ArrayException.class, () -> r.readCell(victim, cell));
        assertEquals(ArrayError.CORRUPT_CELL, e.error());
        r.readCell(victim - 1, cell.clear());
        r.readCell(victim + 1, cell.clear());
        ByteBuffer good = ByteBuffer.wrap(data, victim * CELL, CELL).slice();
        r.rewriteCell(victim, good);
        r.readCell(victim, cell.clear());
        assertEquals(0, r.readRange(0, 1500L * CELL, d.allocateAligned(1500 * CELL)).length);
      }
      assertReadsBack(d, NAME, data, true);
    }
  }

  @Test
  void readErrorIsADriveFailure() throws IOException {
    try (Drive d = drive("eio")) {
      writeShard(d, NAME, DriveContractTest.random(4 * CELL, 8), true);
      FaultyDrive f = new FaultyDrive(d, 2);
      try (ShardReader r = ShardReader.open(f, NAME)) {
        f.inject(Fault.error(Op.READ).matching(NAME));
        ArrayException e =
            assertThrows(ArrayException.class, () -> r.readCell(2, ByteBuffer.allocate(CELL)));
        assertEquals(ArrayError.DRIVE_IO, e.error());
        assertTrue(Drive.isDriveFailure(e));
      }
    }
  }

  @Test
  void corruptionOnTheReadPathIsCaught() throws IOException {
    try (Drive d = drive("readrot")) {
      writeShard(d, NAME, DriveContractTest.random(4 * CELL, 9), true);
      FaultyDrive f = new FaultyDrive(d, 3);
      try (ShardReader r = ShardReader.open(f, NAME)) {
        r.crc(1); // table block loaded clean
        f.inject(Fault.corrupt(Op.READ).matching(NAME).onCall(1));
        ArrayException e =
            assertThrows(ArrayException.class, () -> r.readCell(1, ByteBuffer.allocate(CELL)));
        assertEquals(ArrayError.CORRUPT_CELL, e.error());
        r.readCell(1, ByteBuffer.allocate(CELL)); // the disk is fine: a retry reads clean
      }
    }
  }

  @Test
  void abortLeavesNothing() throws IOException {
    try (Drive d = drive("abort")) {
      ShardWriter w = new ShardWriter(d, NAME, template(CELL));
      w.writeCell(ByteBuffer.allocate(CELL));
      w.abort();
      assertEquals(List.of(), d.list(""));
      ShardWriter finished = new ShardWriter(d, NAME, template(CELL));
      finished.writeCell(ByteBuffer.allocate(CELL));
      finished.finish(CELL, CELL);
      finished.abort();
      finished.abort();
      assertEquals(List.of(), d.list(""));
    }
  }

  /** The workload under test: write, finish and publish one shard. */
  private static void workload(Drive d, byte[] data) throws IOException {
    writeShard(d, NAME, data, true);
  }

  @ParameterizedTest
  @EnumSource(CrashModel.class)
  void crashAtEveryStepLeavesNoShardOrAWholeOne(CrashModel model) throws IOException {
    byte[] data = DriveContractTest.random(5 * CELL + 17, 10);
    long steps;
    try (Drive d = drive("count-" + model)) {
      FaultyDrive f = new FaultyDrive(d, 0);
      workload(f, data);
      steps = f.steps();
    }
    assertEquals(1 + 6 + 1 + 1 + 1 + 1 + 1, steps,
        "create, 6 cells, table, header, sync, rename, sync directory");
    int whole = 0;
    for (long s = 1; s <= steps + 1; s++) {
      Path dir = Files.createDirectories(root.resolve(model + "-" + s));
      FaultyDrive f = new FaultyDrive(FileDrive.open(dir, Drive.IoMode.DIRECT), s);
      f.crashAtStep(s, model);
      try {
        workload(f, data);
        f.crashNow(model);
      } catch (SimulatedCrash expected) {
        assertEquals(s, f.steps());
      }
      try (Drive d = FileDrive.open(dir, Drive.IoMode.DIRECT)) {
        if (d.list(NAME).contains(NAME)) {
          assertReadsBack(d, NAME, data, true);
          whole++;
        } else {
          assertTrue(s <= steps, "a published shard survives the crash");
        }
      }
    }
    assertTrue(whole >= 1);
  }
}
