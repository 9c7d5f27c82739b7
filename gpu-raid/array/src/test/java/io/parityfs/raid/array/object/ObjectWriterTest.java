package io.parityfs.raid.array.object;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DrivePlacement;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The I/O engine: streaming writes in batches over per-drive queues, overwrite and append as new
 * versions, bulk range reads (healthy and degraded), out-of-space handling and one writer per
 * object. Small cells and small batches, so that every path (full batches, a partial last batch,
 * several batches in flight) runs with a few hundred KiB.
 */
class ObjectWriterTest {
  private static final int CELL = 4096;
  /** Two stripes per batch, two batches in flight, two threads per drive. */
  private static final StoreOptions SMALL = new StoreOptions(2 * CELL, 2, 2);
  private static final long ID = 0x00c0ffee00000001L;

  @TempDir Path root;

  private Drive[] drives(String name, int n) throws IOException {
    Drive[] d = new Drive[n];
    for (int i = 0; i < n; i++) {
      d[i] = FileDrive.open(Files.createDirectories(root.resolve(name).resolve("d" + i)),
          Drive.IoMode.DIRECT);
    }
    return d;
  }

  private static ObjectStore store(ArrayConfig c, Drive[] d) {
    return new ObjectStore(c, d, codec(c), SMALL);
  }

  private static byte[] readAll(ObjectStore s, long id) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate((int) s.length(id));
    assertEquals(buf.capacity(), s.read(id, 0, buf));
    return buf.array();
  }

  private static ReadableByteChannel channel(byte[] b) {
    return Channels.newChannel(new java.io.ByteArrayInputStream(b));
  }

  /** Names of every file on every drive (non-null) ending with .tmp. */
  private static List<String> temps(Drive[] drives) throws IOException {
    List<String> out = new ArrayList<>();
    for (Drive d : drives) {
      if (d != null) {
        for (String n : d.list("")) {
          if (n.endsWith(ShardWriter.TEMP_SUFFIX)) {
            out.add(d.root() + "/" + n);
          }
        }
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"raid5:3+1", "raid6:4+2", "rs:6+3", "mirror:3"})
  void streamsInPiecesOfAnySizeAcrossBatches(String protection) throws IOException {
    ArrayConfig c = config(protection);
    Random r = new Random(7);
    for (int size : new int[] {0, 1, CELL, 2 * CELL * 6 + 17, 40 * CELL + 3}) {
      byte[] data = random(size, size);
      Drive[] d = drives(protection + size, c.protection().width() + 2);
      try (ObjectStore s = store(c, d)) {
        long id = ID + size;
        try (ObjectWriter w = s.openWriter(id)) {
          for (int at = 0; at < size; ) {
            int n = Math.min(size - at, 1 + r.nextInt(3 * CELL));
            w.write(ByteBuffer.wrap(data, at, n));
            at += n;
          }
          assertEquals(size, w.length());
          assertEquals(0, w.commit().version());
        }
        assertArrayEquals(data, readAll(s, id), protection + " " + size);
        assertEquals(0, s.degradedReads());
        assertTrue(temps(d).isEmpty(), temps(d).toString());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"raid6:4+2", "mirror:3"})
  void bytesGivenWithTheirSendersChecksumAreCheckedOnceAndStoredWithIt(String protection)
      throws IOException {
    ArrayConfig c = config(protection);
    Drive[] d = drives("checked" + protection.charAt(0), c.protection().width() + 1);
    byte[] old = random(5 * CELL, 3);
    byte[] data = random(2 * CELL * 6 + 4 * CELL + 123, 4);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(old), old.length);
      // Frames of odd sizes, each split into two buffers as a receive buffer's components are.
      try (ObjectWriter w = s.openWriter(ID)) {
        Random r = new Random(5);
        for (int at = 0; at < data.length; ) {
          int n = Math.min(data.length - at, 1 + r.nextInt(3 * CELL));
          int half = n / 2;
          w.write(new ByteBuffer[] {ByteBuffer.wrap(data, at, half),
              ByteBuffer.wrap(data, at + half, n - half)}, crc(data, at, n));
          at += n;
        }
        w.commit();
      }
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.degradedReads(), "every stored cell checksum matches its bytes");

      // One flipped bit in flight: refused, nothing visible, nothing left behind.
      try (ObjectWriter w = s.openWriter(ID)) {
        byte[] sent = data.clone();
        sent[CELL + 9] ^= 0x10;
        w.write(new ByteBuffer[] {ByteBuffer.wrap(sent, 0, 3 * CELL)}, crc(data, 0, 3 * CELL));
        throw new AssertionError("a damaged write was taken");
      } catch (ArrayException e) {
        assertEquals(ArrayError.CORRUPT_INPUT, e.error());
      }
      assertArrayEquals(data, readAll(s, ID));
      assertTrue(temps(d).isEmpty(), temps(d).toString());
    }
  }

  @Test
  void damageToTheBytesInMemoryAfterTheCheckIsCaughtAndRepairedWhenTheyAreRead()
      throws IOException {
    ArrayConfig c = config("raid6:4+2");
    Drive[] d = drives("memory", 7);
    byte[] data = random(2 * CELL * 4, 6);
    try (ObjectStore s = store(c, d)) {
      try (ObjectWriter w = s.openWriter(ID)) {
        // A bit flips in a data cell in the node's memory after the check and the encode, before
        // the drive write (a bad DIMM, a stray write). A checksum taken from the buffer at the
        // drive write would vouch for the damaged bytes; the one taken at the check does not.
        w.beforeWrite(b -> b.shards[1].put(7, (byte) (b.shards[1].get(7) ^ 1)));
        w.write(new ByteBuffer[] {ByteBuffer.wrap(data)}, crc(data, 0, data.length));
        w.commit();
      }
      assertArrayEquals(data, readAll(s, ID), "the damaged cell is rebuilt from parity");
      assertEquals(1, s.degradedReads());
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(1, s.degradedReads(), "and repaired on the drive by the first read");
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"raid6:4+2", "mirror:3"})
  void aReadHandsOnTheChecksumOfTheBytesItGaveHealthyOrDegraded(String protection)
      throws IOException {
    ArrayConfig c = config(protection);
    Drive[] d = drives("readcrc" + protection.charAt(0), c.protection().width());
    byte[] data = random(2 * CELL * 7 + 1000, 8);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(data), data.length);
      long version = s.stat(ID).orElseThrow().version();
      Random r = new Random(9);
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 40; i++) {
          int off = i == 0 ? 0 : r.nextInt(data.length);
          int n = i == 0 ? data.length : 1 + r.nextInt(Math.min(5 * CELL, data.length - off));
          ByteBuffer into = ByteBuffer.allocate(n);
          io.parityfs.raid.array.format.RunningCrc crc =
              new io.parityfs.raid.array.format.RunningCrc();
          assertEquals(n, s.read(ID, version, off, into, crc));
          assertArrayEquals(Arrays.copyOfRange(data, off, off + n), into.array());
          assertEquals(crc(data, off, n), crc.value(), round + ": " + n + " bytes at " + off);
          assertEquals(n, crc.length());
        }
        if (round == 1) {
          assertTrue(s.degradedReads() > 0, "the second round read degraded");
          break;
        }
        // Then degraded: the first data shard's first cells damaged on the drive, restored from
        // parity (or read from another copy) and repaired as they are read.
        damageFirstCells(s, d, version);
      }
    }
  }

  /**
   * A read that lends its buffers (the storage node's READ, which copies nothing): the pieces,
   * in order, are the range's bytes and carry its stored CRC, healthy and degraded. Every lent
   * view keeps its bytes while it is held, through all the later reads of the round (a buffer
   * given back too early would be refilled by them); each loan is released once.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"raid6:4+2", "mirror:3"})
  void aLendingReadGivesTheRangeAsViewsThatKeepTheirBytesUntilReleased(String protection)
      throws IOException {
    record Piece(ByteBuffer view, PieceSink.Loan loan) {}
    record Read(int off, int n, List<Piece> pieces) {}
    ArrayConfig c = config(protection);
    Drive[] d = drives("lend" + protection.charAt(0), c.protection().width());
    byte[] data = random(3 * CELL * 40 + 1000, 10);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(data), data.length);
      long version = s.stat(ID).orElseThrow().version();
      Random r = new Random(11);
      for (int round = 0; round < 2; round++) {
        List<Read> held = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          int off = i == 0 ? 0 : r.nextInt(data.length);
          int n = i == 0 ? data.length : 1 + r.nextInt(Math.min(40 * CELL, data.length - off));
          List<Piece> pieces = new ArrayList<>();
          io.parityfs.raid.array.format.RunningCrc crc =
              new io.parityfs.raid.array.format.RunningCrc();
          assertEquals(n, s.read(ID, version, off, n, (view, loan) -> pieces.add(new Piece(
              loan == null ? ByteBuffer.allocate(view.remaining()).put(view).flip() : view,
              loan)), crc));
          assertEquals(crc(data, off, n), crc.value(), round + ": " + n + " bytes at " + off);
          assertTrue(pieces.stream().anyMatch(p -> p.loan() != null) || n < 2 * CELL,
              "a range of many cells is lent, not copied");
          held.add(new Read(off, n, pieces));
        }
        for (Read read : held) {
          ByteBuffer got = ByteBuffer.allocate(read.n());
          for (Piece p : read.pieces()) {
            got.put(p.view().duplicate());
          }
          assertArrayEquals(Arrays.copyOfRange(data, read.off(), read.off() + read.n()),
              got.array(), round + ": held " + read.n() + " bytes at " + read.off());
          for (Piece p : read.pieces()) {
            if (p.loan() != null) {
              p.loan().release();
            }
          }
        }
        if (round == 1) {
          assertTrue(s.degradedReads() > 0, "the second round read degraded");
          break;
        }
        damageFirstCells(s, d, version); // then degraded
      }
    }
  }

  @Test
  void aLoanReleasedMoreOftenThanLentFails() {
    BufferPool pool = new BufferPool(4096, 1);
    BufferLoan loan = new BufferLoan(pool.take(), pool).lend();
    loan.release();
    loan.release();
    assertThrows(IllegalStateException.class, loan::release);
    assertThrows(IllegalStateException.class, loan::lend);
  }

  /** Damages two bytes of each of the first 4 cells of the object's first data shard. */
  private static void damageFirstCells(ObjectStore s, Drive[] d, long version) throws IOException {
    Path shard = d[s.stat(ID).orElseThrow().slots().get(0)].root()
        .resolve(ObjectFiles.shard(ID, version, 0));
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(shard,
        java.nio.file.StandardOpenOption.WRITE)) {
      for (int cell = 0; cell < 4; cell++) {
        ch.write(ByteBuffer.wrap(new byte[] {(byte) 0xA5, 0x5A}),
            io.parityfs.raid.array.format.ShardFormat.cellOffset(CELL, cell) + 5);
      }
    }
  }

  private static int crc(byte[] b, int from, int n) {
    java.util.zip.CRC32C c = new java.util.zip.CRC32C();
    c.update(b, from, n);
    return (int) c.getValue();
  }

  @Test
  void abortAndShortSourceLeaveTheOldVersionAndNoTempFiles() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    Drive[] d = drives("a", 7);
    byte[] old = random(9 * CELL + 5, 1);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(old), old.length);
      try (ObjectWriter w = s.openWriter(ID)) {
        w.write(ByteBuffer.wrap(random(30 * CELL, 2)));
        // closed without commit
      }
      assertArrayEquals(old, readAll(s, ID));
      assertTrue(temps(d).isEmpty(), temps(d).toString());

      assertThrows(EOFException.class, () -> s.write(ID, channel(new byte[100]), 200));
      assertArrayEquals(old, readAll(s, ID));
      assertTrue(temps(d).isEmpty(), temps(d).toString());

      ObjectWriter w = s.openWriter(ID);
      w.write(ByteBuffer.wrap(new byte[(1 << 20) - 10]));
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> w.write(ByteBuffer.allocate(11)));
      assertTrue(e.getMessage().contains("maximum object size"), e.getMessage());
      assertThrows(IllegalStateException.class, w::commit);
      assertArrayEquals(old, readAll(s, ID));
      assertTrue(temps(d).isEmpty(), temps(d).toString());

      // the object is not left locked: a new write goes through, with a higher version
      assertTrue(s.write(ID, channel(old), old.length) > 0);
    }
  }

  @Test
  void overwritesAndAppendsMatchAModel() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    Drive[] d = drives("m", 8);
    Random r = new Random(11);
    byte[] model = random(5 * CELL + 77, 3);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(model), model.length);
      for (int step = 0; step < 40; step++) {
        byte[] piece = random(r.nextInt(3 * CELL), step);
        if (r.nextInt(4) == 0) {
          s.append(ID, channel(piece), piece.length);
          byte[] next = Arrays.copyOf(model, model.length + piece.length);
          System.arraycopy(piece, 0, next, model.length, piece.length);
          model = next;
        } else {
          int off = r.nextInt(model.length + 1);
          s.overwrite(ID, off, channel(piece), piece.length);
          byte[] next = Arrays.copyOf(model, Math.max(model.length, off + piece.length));
          System.arraycopy(piece, 0, next, off, piece.length);
          model = next;
        }
        assertArrayEquals(model, readAll(s, ID), "after step " + step);
      }
      int len = model.length;
      assertThrows(IllegalArgumentException.class,
          () -> s.overwrite(ID, len + 1, channel(new byte[1]), 1));
      assertThrows(ArrayException.class, () -> s.append(ID + 1, channel(new byte[1]), 1));
      assertArrayEquals(model, readAll(s, ID));
      // only the latest version's files are left on the drives
      for (Drive drive : d) {
        for (String n : drive.list(ObjectFiles.prefix(ID))) {
          assertEquals(s.stat(ID).orElseThrow().version(), ObjectFiles.parse(n).version(), n);
        }
      }
    }
  }

  @Test
  void aReadOfAGivenVersionNeverMixesVersions() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    Drive[] d = drives("v", 6);
    byte[] v0 = random(50_000, 1);
    byte[] v1 = random(50_000, 2);
    try (ObjectStore s = store(c, d)) {
      long first = s.write(ID, channel(v0), v0.length);
      ByteBuffer a = ByteBuffer.allocate(20_000);
      assertEquals(20_000, s.read(ID, first, 0, a));
      assertArrayEquals(Arrays.copyOf(v0, 20_000), a.array());
      long second = s.write(ID, channel(v1), v1.length); // replaces the version being read
      ByteBuffer b = ByteBuffer.allocate(30_000);
      ArrayException gone = assertThrows(ArrayException.class, () -> s.read(ID, first, 20_000, b));
      assertEquals(ArrayError.VERSION_GONE, gone.error());
      assertTrue(gone.getMessage().contains("version " + second), gone.getMessage());
      assertEquals(0, b.position(), "nothing returned");
      assertEquals(30_000, s.read(ID, second, 20_000, b));
      assertArrayEquals(Arrays.copyOfRange(v1, 20_000, 50_000), b.array());
      s.delete(ID);
      assertEquals(ArrayError.VERSION_GONE, assertThrows(ArrayException.class,
          () -> s.read(ID, second, 0, ByteBuffer.allocate(10))).error());
    }
  }

  @Test
  void bulkReadsRestoreWholeShardsWhenDrivesAreGone() throws IOException {
    ArrayConfig c = config("rs:6+3");
    Drive[] d = drives("g", 9);
    byte[] data = random(700_000, 5);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(data), data.length);
    }
    int[] slots = DrivePlacement.of(9, 9).drivesFor(ID);
    Drive[] partial = drives("g", 9); // closing the store closed the drives
    partial[slots[0]] = null; // data shard 0
    partial[slots[4]] = null; // data shard 4
    partial[slots[7]] = null; // parity shard 1
    try (ObjectStore s = store(c, partial)) {
      assertArrayEquals(data, readAll(s, ID));
      assertTrue(s.degradedReads() > 0);
      Random r = new Random(3);
      for (int i = 0; i < 30; i++) {
        int off = r.nextInt(data.length);
        int len = r.nextInt(Math.min(100_000, data.length - off) + 1);
        ByteBuffer b = ByteBuffer.allocate(len);
        assertEquals(len, s.read(ID, off, b));
        assertArrayEquals(Arrays.copyOfRange(data, off, off + len), b.array(), "at " + off);
      }
    }
    partial = drives("g", 9);
    partial[slots[0]] = null;
    partial[slots[4]] = null;
    partial[slots[7]] = null;
    partial[slots[8]] = null; // a fourth shard: beyond rs:6+3
    try (ObjectStore s = store(c, partial)) {
      ArrayException e = assertThrows(ArrayException.class, () -> readAll(s, ID));
      assertEquals(ArrayError.OBJECT_LOST, e.error());
    }
  }

  @Test
  void bulkReadsRepairCorruptCellsAndServeTheRightBytes() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    Drive[] inner = drives("c", 6);
    byte[] data = random(300_000, 9);
    try (ObjectStore s = store(c, inner)) {
      s.write(ID, channel(data), data.length);
    }
    inner = drives("c", 6); // closing the store closed the drives
    FaultyDrive[] faulty = new FaultyDrive[6];
    for (int i = 0; i < 6; i++) {
      faulty[i] = new FaultyDrive(inner[i], 100 + i);
    }
    faulty[2].inject(Fault.corrupt(Op.READ).matching(".*\\.0[0-5]$").onCall(2));
    try (ObjectStore s = store(c, faulty)) {
      assertArrayEquals(data, readAll(s, ID));
    }
    try (ObjectStore s = store(c, drives("c", 6))) {
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.degradedReads(), "the corrupt cell was repaired on disk");
    }
  }

  @Test
  void aFullDriveFailsTheWriteWithNoSpaceAndFailsNoDrive() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    Drive[] real = drives("f", 4);
    Drive[] d = real.clone();
    FaultyDrive filling = new FaultyDrive(real[1], 1);
    d[1] = filling;
    byte[] old = random(10_000, 1);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(old), old.length);
      filling.limitUsableSpace(8192);
      ArrayException e = assertThrows(ArrayException.class,
          () -> s.write(ID, channel(random(50_000, 2)), 50_000));
      assertEquals(ArrayError.NO_SPACE, e.error());
      assertTrue(e.getMessage().contains("free"), e.getMessage());
      assertEquals(0, s.failedSlots());
      assertArrayEquals(old, readAll(s, ID));
      assertTrue(temps(d).isEmpty(), temps(d).toString());
    }
    assertTrue(FileDrive.noSpace(new IOException("No space left on device")));
    assertFalse(FileDrive.noSpace(new IOException("Input/output error")));
  }

  @Test
  void aDriveFailingMidStreamDropsItsShardAndTheWriteCompletesDegraded() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    Drive[] inner = drives("x", 6);
    FaultyDrive[] d = new FaultyDrive[6];
    for (int i = 0; i < 6; i++) {
      d[i] = new FaultyDrive(inner[i], i);
    }
    d[3].inject(Fault.error(Op.WRITE).onCall(3));
    byte[] data = random(200_000, 4);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(data), data.length);
      assertEquals(1L << 3, s.failedSlots());
      assertArrayEquals(data, readAll(s, ID));
      assertTrue(s.degradedReads() > 0 || DrivePlacement.of(6, 6).drivesFor(ID)[4] == 3
          || DrivePlacement.of(6, 6).drivesFor(ID)[5] == 3);
    }
  }

  @Test
  void writersOfOneObjectTakeTurnsAndReadersSeeWholeVersions() throws Exception {
    ArrayConfig c = config("raid6:4+2");
    Drive[] d = drives("t", 6);
    byte[] a = random(100_000, 1);
    byte[] b = random(120_000, 2);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (ObjectStore s = store(c, d)) {
      s.write(ID, channel(a), a.length);
      ObjectWriter first = s.openWriter(ID);
      CountDownLatch started = new CountDownLatch(1);
      Future<Long> second = pool.submit(() -> {
        started.countDown();
        return s.write(ID, channel(a), a.length);
      });
      started.await();
      assertFalse(waitsDone(second, 300), "a second writer must wait for the first");
      first.write(ByteBuffer.wrap(b));
      long v1 = first.commit().version();
      long v2 = second.get(10, TimeUnit.SECONDS);
      assertTrue(v2 > v1, v1 + " then " + v2);
      assertArrayEquals(a, readAll(s, ID));

      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<String> wrong = new AtomicReference<>();
      Future<?> reader = pool.submit(() -> {
        while (!stop.get()) {
          try {
            // one read call sees one version (length() then read() could straddle two)
            ByteBuffer buf = ByteBuffer.allocate(200_000);
            byte[] got = Arrays.copyOf(buf.array(), s.read(ID, 0, buf));
            if (!Arrays.equals(got, a) && !Arrays.equals(got, b)) {
              wrong.set("a read saw neither version (" + got.length + " bytes)");
            }
          } catch (IOException e) {
            wrong.set(e.toString());
          }
        }
        return null;
      });
      for (int i = 0; i < 20; i++) {
        byte[] next = i % 2 == 0 ? b : a;
        s.write(ID, channel(next), next.length);
      }
      stop.set(true);
      reader.get(10, TimeUnit.SECONDS);
      assertEquals(null, wrong.get());
    } finally {
      pool.shutdownNow();
    }
  }

  private static boolean waitsDone(Future<?> f, long millis) throws InterruptedException {
    Thread.sleep(millis);
    return f.isDone();
  }
}
