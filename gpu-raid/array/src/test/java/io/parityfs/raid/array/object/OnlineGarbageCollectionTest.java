package io.parityfs.raid.array.object;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.fileDrives;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.RaidArray;
import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.repair.GarbageSchedule;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage collection on an array in use (audit, Low: "GC runs only at start"): a pass collects
 * what failed writes and deletes left, and never touches a write in flight.
 */
class OnlineGarbageCollectionTest {
  private static final int CELL = 4096;

  @TempDir Path root;

  private static FaultyDrive[] faulty(List<Path> dirs) throws IOException {
    Drive[] inner = fileDrives(dirs, Drive.IoMode.BUFFERED);
    FaultyDrive[] d = new FaultyDrive[inner.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = new FaultyDrive(inner[i], 11 + i);
    }
    return d;
  }

  private static String quoted(String prefix) {
    return prefix.replace(".", "\\.");
  }

  private static long files(List<Path> dirs, long id, Predicate<ObjectFiles.Name> p)
      throws IOException {
    long n = 0;
    for (Path dir : dirs) {
      try (Stream<Path> l = Files.list(dir)) {
        n += l.map(f -> ObjectFiles.tryParse(f.getFileName().toString()))
            .filter(x -> x.isPresent() && x.get().objectId() == id && p.test(x.get())).count();
      }
    }
    return n;
  }

  private static byte[] readAll(ObjectStore s, long id) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate((int) s.length(id));
    s.read(id, 0, buf);
    return buf.array();
  }

  private static void write(ObjectStore s, long id, byte[] data) throws IOException {
    s.write(id, new ByteArrayInputStream(data), data.length);
  }

  /**
   * The three kinds of garbage the audit names, made by the real paths with deletes that fail
   * (NoSuchFileException: not a drive failure, so every drive stays in use), plus a delete that
   * stopped after its first phase: one runtime pass on the open store collects all of it and
   * nothing else.
   */
  @Test
  void aRuntimePassCollectsWhatFailedWritesAndDeletesLeft() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "garbage", 6);
    FaultyDrive[] d = faulty(dirs);
    long aborted = 0x61;
    long orphan = 0x62;
    long old = 0x63;
    long halfDeleted = 0x64;
    byte[] v0 = random(3 * 4 * CELL, 1);
    byte[] v1 = random(2 * 4 * CELL + 5, 2);
    try (ObjectStore s = new ObjectStore(c, d, codec(c))) {
      // an aborted write whose temp files could not be deleted
      for (FaultyDrive f : d) {
        f.inject(Fault.missing(Op.DELETE).matching(quoted(ObjectFiles.prefix(aborted)) + ".*"));
      }
      ObjectWriter w = s.openWriter(aborted);
      w.write(ByteBuffer.wrap(v0));
      w.abort();
      // a commit whose manifests all failed, and whose shards could not be taken back
      for (FaultyDrive f : d) {
        f.inject(Fault.full(Op.CREATE).matching(quoted(ObjectFiles.prefix(orphan)) + ".*manifest.*"));
        f.inject(Fault.missing(Op.DELETE).matching(quoted(ObjectFiles.prefix(orphan)) + ".*"));
      }
      assertEquals(ArrayError.NO_SPACE,
          assertThrows(ArrayException.class, () -> write(s, orphan, v0)).error());
      // an old version whose delete failed after the new version committed
      write(s, old, v0);
      for (FaultyDrive f : d) {
        f.inject(Fault.missing(Op.DELETE).matching(quoted(ObjectFiles.prefix(old)) + "0{16}\\..*"));
      }
      write(s, old, v1);
      // a delete that left its tombstones and shards (its shard deletes failed)
      write(s, halfDeleted, v0);
      for (FaultyDrive f : d) {
        f.inject(Fault.missing(Op.DELETE).matching(quoted(ObjectFiles.prefix(halfDeleted))
            + ".*\\.0[0-5]"));
      }
      assertThrows(NoSuchFileException.class, () -> s.delete(halfDeleted));
      for (FaultyDrive f : d) {
        f.clearFaults();
      }

      assertEquals(6, files(dirs, aborted, ObjectFiles.Name::temp), "aborted temps");
      assertEquals(6, files(dirs, orphan, ObjectFiles.Name::isShard), "orphan shards");
      assertEquals(0, files(dirs, orphan, ObjectFiles.Name::isManifest));
      assertTrue(s.stat(orphan).isEmpty(), "the failed commit is not committed by a look-up");
      assertEquals(12, files(dirs, old, n -> n.version() == 0), "the old version's files");
      assertTrue(files(dirs, halfDeleted, ObjectFiles.Name::isTombstone) > 0);
      assertTrue(s.stat(halfDeleted).isEmpty(), "the delete's tombstones hide the object");

      ObjectStore.GarbagePass pass = s.collectGarbageOnline();

      assertEquals(0, pass.busy());
      assertEquals(0, files(dirs, aborted, n -> true), "aborted temps collected");
      assertEquals(0, files(dirs, orphan, n -> true), "orphan shards collected");
      assertEquals(0, files(dirs, old, n -> n.version() == 0), "old version collected");
      assertEquals(12, files(dirs, old, n -> n.version() == 1), "the live version kept");
      assertEquals(0, files(dirs, halfDeleted, n -> true), "the delete finished");
      assertEquals(6 + 6 + 12 + 12, pass.deleted(), pass.toString());
      assertEquals(pass.deleted(), s.garbageDeleted());
      assertEquals(1, s.garbagePasses());
      assertArrayEquals(v1, readAll(s, old));
      assertEquals(0, s.collectGarbageOnline().deleted(), "nothing left for a second pass");
    }
  }

  /**
   * The array's schedule runs passes on its own thread while the array is open, and stops with
   * it: an aborted write's temp file (its delete failed) goes without a restart.
   */
  @Test
  void theArraysScheduleCollectsWhileItIsOpen() throws Exception {
    List<Path> dirs = ArrayFixtures.dirs(root, "schedule", 4);
    ParityCodecFactory codecs = ParityCodecFactory
        .builder().backend(CodecBackend.CPU).build();
    GarbageSchedule g;
    try (RaidArray a = RaidArray.create(config("raid5:3+1"), dirs, codecs,
        StoreOptions.DEFAULTS)) {
      // what an aborted write leaves when deleting its temp fails
      Path kept = dirs.get(0).resolve(ObjectFiles.temp(ObjectFiles.shard(0x81, 0, 0)));
      Files.write(kept, random(3 * CELL, 4));
      g = a.scheduleGarbageCollection(java.time.Duration.ofMillis(10));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (Files.exists(kept) && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertTrue(!Files.exists(kept), "collected by a scheduled pass");
      assertTrue(a.garbageSchedule().isPresent());
    }
    long runs = g.runs(); // closing the array closed the schedule, after its running pass
    assertTrue(runs >= 1 && g.lastPass().isPresent(), "runs " + runs);
    assertEquals(runs, g.runs(), "no pass after close");
  }

  /**
   * A pass that runs while a write is paused, first with its shards' temp files half written,
   * then with its shards published and no manifest yet (exactly what a commit whose manifests
   * failed leaves: garbage by every rule but the lock), leaves the write alone; the write then
   * commits and reads back, from this store and a fresh one.
   */
  @Test
  void aRuntimePassRacingAWriteInFlightLeavesItIntact() throws Exception {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "race", 6);
    FaultyDrive[] d = faulty(dirs);
    long id = 0x71;
    byte[] data = random(5 * 4 * CELL + 123, 3);
    Fault.Gate writing = new Fault.Gate();
    Fault.Gate committing = new Fault.Gate();
    String prefix = quoted(ObjectFiles.prefix(id));
    d[0].inject(Fault.hold(writing, Op.WRITE).matching(prefix + ".*\\.0[0-5]\\.tmp").onCall(2));
    for (FaultyDrive f : d) {
      f.inject(Fault.hold(committing, Op.CREATE).matching(prefix + ".*manifest\\.tmp"));
    }
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (ObjectStore s = new ObjectStore(c, d, codec(c))) {
      CompletableFuture<Long> written = CompletableFuture.supplyAsync(() -> {
        try {
          return s.write(id, new ByteArrayInputStream(data), data.length);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }, pool);

      writing.awaitReached();
      assertEquals(6, files(dirs, id, ObjectFiles.Name::temp), "the write's temps");
      ObjectStore.GarbagePass first = s.collectGarbageOnline();
      assertEquals(1, first.busy(), first.toString());
      assertEquals(0, first.deleted());
      assertEquals(6, files(dirs, id, ObjectFiles.Name::temp), "temps untouched");
      writing.open();

      committing.awaitReached();
      assertEquals(6, files(dirs, id, ObjectFiles.Name::isShard), "published shards");
      assertEquals(0, files(dirs, id, n -> n.isManifest() && !n.temp()), "no manifest yet");
      ObjectStore.GarbagePass second = s.collectGarbageOnline();
      assertEquals(1, second.busy(), second.toString());
      assertEquals(0, second.deleted());
      assertEquals(6, files(dirs, id, ObjectFiles.Name::isShard), "shards untouched");
      committing.open();

      assertEquals(0L, written.get(30, TimeUnit.SECONDS));
      assertArrayEquals(data, readAll(s, id));
      assertEquals(0, s.collectGarbageOnline().deleted());
    } finally {
      pool.shutdownNow();
    }
    try (ObjectStore s = new ObjectStore(c, fileDrives(dirs, Drive.IoMode.BUFFERED), codec(c))) {
      assertArrayEquals(data, readAll(s, id));
      assertEquals(0, s.collectGarbage());
    }
  }
}
