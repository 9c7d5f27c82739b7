package io.parityfs.raid.array.object;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveContractTest;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive.CrashModel;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.drive.SimulatedCrash;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ObjectLayout;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.array.format.ShardHeader;
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
import java.util.zip.CRC32C;
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

  // ---- in-place repair: crash safety ----

  private static final int CELLS = 6;
  private static final int VICTIM = 3;

  private static long entryOffset(int cell) {
    return ShardFormat.tableEntryOffset(CELL, CELLS, cell) + 4 * (cell % ShardFormat.ENTRIES_PER_BLOCK);
  }

  /** A published shard of CELLS cells whose cell VICTIM (cellRot) or its entry is damaged. */
  private byte[] damagedShard(Path dir, boolean cellRot) throws IOException {
    byte[] data = DriveContractTest.random(CELLS * CELL, 11);
    try (Drive d = FileDrive.open(dir, Drive.IoMode.DIRECT)) {
      writeShard(d, NAME, data, true);
    }
    flipBit(dir.resolve(NAME),
        cellRot ? ShardFormat.cellOffset(CELL, VICTIM) + 3000 : entryOffset(VICTIM) + 1);
    return data;
  }

  private static ByteBuffer goodCell(byte[] data) {
    return ByteBuffer.wrap(data, VICTIM * CELL, CELL).slice();
  }

  /**
   * Every cell but VICTIM reads clean and right; VICTIM reads as the repaired bytes or fails its
   * CRC (then, if {@code oldCell} is given, holding exactly those bytes): never wrong and valid.
   * Returns whether VICTIM read clean.
   */
  private static boolean assertOldOrRepaired(Path dir, byte[] data, byte[] oldCell)
      throws IOException {
    try (Drive d = FileDrive.open(dir, Drive.IoMode.DIRECT);
        ShardReader r = ShardReader.open(d, NAME)) {
      assertEquals(List.of(NAME), d.list(""), "no other file");
      ByteBuffer cell = d.allocateAligned(CELL);
      for (int i = 0; i < CELLS; i++) {
        cell.clear();
        if (i == VICTIM) {
          try {
            r.readCell(i, cell);
          } catch (ArrayException e) {
            assertEquals(ArrayError.CORRUPT_CELL, e.error(), e.getMessage());
            if (oldCell != null) {
              byte[] got = new byte[CELL];
              cell.get(got);
              assertArrayEquals(oldCell, got, "the old bytes");
            }
            continue;
          }
        } else {
          r.readCell(i, cell);
        }
        byte[] got = new byte[CELL];
        cell.flip().get(got);
        assertArrayEquals(Arrays.copyOfRange(data, i * CELL, (i + 1) * CELL), got, "cell " + i);
        if (i == VICTIM) {
          return true;
        }
      }
      return false;
    }
  }

  private static byte[] cellBytes(Path file, int cell) throws IOException {
    byte[] b = new byte[CELL];
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      f.seek(ShardFormat.cellOffset(CELL, cell));
      f.readFully(b);
    }
    return b;
  }

  @Test
  void rewriteCellRepairsInPlace() throws IOException {
    Path dir = Files.createDirectories(root.resolve("inplace"));
    byte[] data = damagedShard(dir, true);
    try (Drive d = FileDrive.open(dir, Drive.IoMode.DIRECT)) {
      FaultyDrive f = new FaultyDrive(d, 4);
      FaultyDrive.Injected writes = f.inject(Fault.delay(java.time.Duration.ZERO, Op.WRITE));
      FaultyDrive.Injected creates =
          f.inject(Fault.delay(java.time.Duration.ZERO, Op.CREATE, Op.RENAME, Op.DELETE));
      try (ShardReader r = ShardReader.open(f, NAME)) {
        ByteBuffer cell = f.allocateAligned(CELL);
        assertThrows(ArrayException.class, () -> r.readCell(VICTIM, cell));
        r.rewriteCell(VICTIM, goodCell(data));
        assertEquals(4, f.steps(), "open for write, cell, table block, sync");
        assertEquals(2, writes.calls(), "one cell and one table block, nothing else");
        assertEquals(0, creates.calls(), "no temp file, no rename");
        r.readCell(VICTIM, cell.clear()); // the same reader sees the repair
      }
    }
    assertTrue(assertOldOrRepaired(dir, data, null));
    assertReadsBack(FileDrive.open(dir, Drive.IoMode.BUFFERED), NAME, data, false);
  }

  @Test
  void rewriteCellWriteErrorLeavesTheCellDetectedBad() throws IOException {
    Path dir = Files.createDirectories(root.resolve("wfail"));
    byte[] data = damagedShard(dir, true);
    byte[] old = cellBytes(dir.resolve(NAME), VICTIM);
    try (Drive d = FileDrive.open(dir, Drive.IoMode.DIRECT)) {
      FaultyDrive f = new FaultyDrive(d, 5);
      try (ShardReader r = ShardReader.open(f, NAME)) {
        f.inject(Fault.error(Op.WRITE).matching(NAME).onCall(2)); // the table block
        ArrayException e =
            assertThrows(ArrayException.class, () -> r.rewriteCell(VICTIM, goodCell(data)));
        assertEquals(ArrayError.DRIVE_IO, e.error());
        f.clearFaults();
        f.inject(Fault.corrupt(Op.WRITE).matching(NAME).onCall(1)); // a bit flips on the way
        r.rewriteCell(VICTIM, goodCell(data));
        assertThrows(ArrayException.class, () -> r.readCell(VICTIM, ByteBuffer.allocate(CELL)),
            "a repair corrupted in flight is caught on the next read");
      }
    }
    assertFalse(assertOldOrRepaired(dir, data, null));
    assertFalse(Arrays.equals(old, cellBytes(dir.resolve(NAME), VICTIM)));
  }

  @ParameterizedTest(name = "{0}, cell rot {1}")
  @CsvSource({"LOSE_UNSYNCED,true", "LOSE_UNSYNCED,false", "KEEP_NAMESPACE,true",
      "KEEP_NAMESPACE,false"})
  void crashAtEveryStepOfRewriteCellLeavesOldOrRepaired(CrashModel model, boolean cellRot)
      throws IOException {
    long steps = 4; // open for write, cell, table block, sync (checked in rewriteCellRepairsInPlace)
    int repaired = 0;
    for (long s = 1; s <= steps + 1; s++) {
      Path dir = Files.createDirectories(root.resolve("rw-" + model + "-" + cellRot + "-" + s));
      byte[] data = damagedShard(dir, cellRot);
      byte[] old = cellBytes(dir.resolve(NAME), VICTIM);
      FaultyDrive f = new FaultyDrive(FileDrive.open(dir, Drive.IoMode.DIRECT), s);
      f.crashAtStep(s, model);
      try (ShardReader r = ShardReader.open(f, NAME)) {
        try {
          r.rewriteCell(VICTIM, goodCell(data));
          assertEquals(steps, f.steps());
          f.crashNow(model);
        } catch (SimulatedCrash expected) {
          assertEquals(s, f.steps());
        }
      }
      boolean clean = assertOldOrRepaired(dir, data, old);
      if (s > steps) {
        assertTrue(clean, "a completed repair survives the crash");
      }
      if (clean) {
        repaired++;
      }
      // Whatever the crash left, repairing again makes the shard whole.
      try (Drive d = FileDrive.open(dir, Drive.IoMode.DIRECT);
          ShardReader r = ShardReader.open(d, NAME)) {
        r.rewriteCell(VICTIM, goodCell(data));
      }
      assertTrue(assertOldOrRepaired(dir, data, null));
    }
    assertTrue(repaired >= 1);
  }

  /**
   * What the crash model does not produce: a repair persisted in part (the cell only, the entry
   * only, half of the cell with or without the entry). None is read as valid but wrong.
   */
  @ParameterizedTest(name = "cell rot {0}")
  @CsvSource({"true", "false"})
  void partlyPersistedRepairIsNeverValidButWrong(boolean cellRot) throws IOException {
    for (int state = 0; state < 5; state++) {
      Path dir = Files.createDirectories(root.resolve("part-" + cellRot + "-" + state));
      byte[] data = damagedShard(dir, cellRot);
      byte[] good = Arrays.copyOfRange(data, VICTIM * CELL, (VICTIM + 1) * CELL);
      CRC32C crc = new CRC32C();
      crc.update(good);
      int newCrc = (int) crc.getValue();
      boolean cell = state == 0 || state == 2;
      boolean entry = state == 1 || state == 3 || state == 4;
      int cellBytes = state >= 2 ? CELL / 2 : CELL;
      try (RandomAccessFile f = new RandomAccessFile(dir.resolve(NAME).toFile(), "rw")) {
        if (cell || state == 3) {
          f.seek(ShardFormat.cellOffset(CELL, VICTIM) + (state == 3 ? CELL / 2 : 0));
          f.write(good, state == 3 ? CELL / 2 : 0, cellBytes);
        }
        if (entry && state != 3) {
          f.seek(entryOffset(VICTIM));
          f.writeInt(newCrc);
        }
      }
      boolean clean = assertOldOrRepaired(dir, data, null);
      if (!cellRot && state == 0) {
        assertFalse(clean, "good cell under the bad old entry");
      }
      try (Drive d = FileDrive.open(dir, Drive.IoMode.DIRECT);
          ShardReader r = ShardReader.open(d, NAME)) {
        r.rewriteCell(VICTIM, goodCell(data));
      }
      assertReadsBack(FileDrive.open(dir, Drive.IoMode.DIRECT), NAME, data, true);
    }
  }
}
