package io.parityfs.raid.array;

import static io.parityfs.raid.array.object.ArrayFixtures.CELL;
import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.fileDrives;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.object.ArrayFixtures;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ObjectWriter;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A write that started before a slot's new drive was attached (the slot was failed, or failed
 * under the write) leaves its shard off that drive. If it commits after the rebuild listed the
 * objects, the rebuild must still put that shard on the new drive before it reports complete:
 * else the slot is declared ONLINE while an object has no shard there, and two more failures lose
 * it. The interleaving is forced: the write commits once the rebuild is past its plan.
 */
class RebuildWithWritesInFlightTest {
  private static final StoreOptions OPTIONS = new StoreOptions(2 * CELL, 2, 2);
  private static final long ID = 0x123000002L;

  @TempDir Path root;

  private static byte[] read(ObjectStore s, long id, int length) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(length);
    assertEquals(length, s.read(id, 0, buf));
    return buf.array();
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    Eventually.until(what, Duration.ofSeconds(60), condition);
  }

  private static boolean pastPlan(RebuildProgress p) {
    return p.state() != RebuildProgress.State.NEW && p.state() != RebuildProgress.State.PLANNING;
  }

  /** Fails two slots of the object's placement other than {@code rebuilt}; reads it back. */
  private static void assertSurvivesTwoMoreFailures(ObjectStore s, long id, byte[] data,
      int rebuilt) throws IOException {
    int failed = 0;
    for (int slot : s.placement().drivesFor(id)) {
      if (slot != rebuilt && failed < 2) {
        s.detachDrive(slot);
        failed++;
      }
    }
    assertArrayEquals(data, read(s, id, data.length), "object " + Long.toHexString(id));
  }

  /**
   * How the write relates to the failure of slot {@code victim}: {@code 0} the slot was failed
   * when the write opened; {@code 1} it failed under the write; {@code 2} as 0, over an older
   * committed version of the object (which the rebuild plans, and which the write supersedes).
   */
  @ParameterizedTest(name = "case {0}")
  @ValueSource(ints = {0, 1, 2})
  void aWriteCommittingAfterTheRebuildsPlanGetsItsShardOnTheNewDrive(int when) throws Exception {
    ArrayConfig c = config("raid6:4+2");
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    byte[] old = random(6 * CELL, 1);
    byte[] data = random(9 * CELL + 321, 2);
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(ArrayFixtures.dirs(root, "a", 7)),
        codec(c), OPTIONS)) {
      int[] slots = s.placement().drivesFor(ID);
      int victim = slots[2];
      for (long id = 1; id <= 10; id++) { // other objects, for the rebuild to do
        byte[] b = random((int) id * CELL, id);
        s.write(id, new ByteArrayInputStream(b), b.length);
      }
      if (when == 2) {
        s.write(ID, new ByteArrayInputStream(old), old.length);
      }
      if (when != 1) {
        s.detachDrive(victim);
      }
      ObjectWriter w = s.openWriter(ID);
      w.write(ByteBuffer.wrap(data, 0, data.length / 2));
      if (when == 1) {
        s.detachDrive(victim);
      }
      w.write(ByteBuffer.wrap(data, data.length / 2, data.length - data.length / 2));
      s.attachDrive(victim, FileDrive.open(fresh, Drive.IoMode.DIRECT));
      Rebuilder r = new Rebuilder(s, victim).start();
      await(() -> pastPlan(r.progress()), "the rebuild has planned");
      long version = w.commit().version();
      RebuildProgress p = r.await(60, TimeUnit.SECONDS).orElseThrow();
      assertTrue(p.complete(), p.toString());
      assertTrue(Files.exists(fresh.resolve(ObjectFiles.shard(ID, version, 2))),
          "the write's shard is on the rebuilt drive: " + p);
      assertSurvivesTwoMoreFailures(s, ID, data, victim);
    }
  }

  /** Until the writes that skip the new drive have ended, the rebuild is not complete. */
  @Test
  void theRebuildWaitsForAWriteThatSkipsItsDrive() throws Exception {
    ArrayConfig c = config("raid6:4+2");
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    byte[] data = random(3 * CELL, 3);
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(ArrayFixtures.dirs(root, "w", 7)),
        codec(c), OPTIONS)) {
      int victim = s.placement().drivesFor(ID)[0];
      s.detachDrive(victim);
      try (ObjectWriter w = s.openWriter(ID)) {
        w.write(ByteBuffer.wrap(data));
        s.attachDrive(victim, FileDrive.open(fresh, Drive.IoMode.DIRECT));
        Rebuilder r = new Rebuilder(s, victim).start();
        assertTrue(r.await(300, TimeUnit.MILLISECONDS).isEmpty(), "still waiting for the write");
        w.abort();
        RebuildProgress p = r.await(60, TimeUnit.SECONDS).orElseThrow();
        assertTrue(p.complete(), p.toString());
        assertEquals(0, p.objectsTotal());
      }
      // A write opened after the attach includes the new drive: nothing to wait for.
      s.write(ID, new ByteArrayInputStream(data), data.length);
      Rebuilder again = new Rebuilder(s, victim);
      try (ObjectWriter w = s.openWriter(ID + 1)) {
        w.write(ByteBuffer.wrap(data));
        assertTrue(again.run().complete());
        w.commit();
      }
      assertSurvivesTwoMoreFailures(s, ID, data, victim);
    }
  }

  private static ParityCodecFactory codecs() {
    return ParityCodecFactory.builder().backend(CodecBackend.CPU).build();
  }

  private static ArrayConfig arrayConfig(int spares) {
    return ArrayConfig.builder().protection(Protection.parse("raid6:4+2")).cellSize(CELL)
        .maxObjectSize(1 << 20).hotSpares(spares).build();
  }

  /**
   * The reported case on a running array: the write opens while its slot is FAILED, a
   * replacement is rebuilt meanwhile, and the array must not report OPTIMAL until the write's
   * shard is on the new drive; then two other slots fail and the object is still readable.
   */
  @Test
  void aReplacementIsOptimalOnlyWithTheShardsOfWritesThatSkippedIt() throws Exception {
    List<Path> drives = ArrayFixtures.dirs(root, "replace", 7);
    Path fresh = Files.createDirectories(root.resolve("new0"));
    byte[] data = random(7 * CELL + 9, 4);
    try (RaidArray a = RaidArray.create(arrayConfig(0), drives, codecs(), OPTIONS)) {
      int victim = a.store().placement().drivesFor(ID)[2];
      a.failDrive(victim);
      ObjectWriter w = a.store().openWriter(ID);
      w.write(ByteBuffer.wrap(data));
      Rebuilder r = a.replaceDrive(victim, fresh, false);
      await(() -> pastPlan(r.progress()), "the rebuild has planned");
      w.commit();
      await(() -> a.state() == ArrayState.OPTIMAL, "the slot is ONLINE");
      assertSurvivesTwoMoreFailures(a.store(), ID, data, victim);
    }
  }

  /** The same with a hot spare taking over a slot that an admin fails under the write. */
  @Test
  void aHotSpareIsOptimalOnlyWithTheShardsOfWritesThatSkippedIt() throws Exception {
    List<Path> drives = ArrayFixtures.dirs(root, "spare", 8);
    byte[] data = random(7 * CELL + 9, 5);
    try (RaidArray a = RaidArray.create(arrayConfig(1), drives, codecs(), OPTIONS)) {
      int victim = a.store().placement().drivesFor(ID)[1];
      ObjectWriter w = a.store().openWriter(ID);
      w.write(ByteBuffer.wrap(data, 0, 3 * CELL));
      a.failDrive(victim); // the spare takes the slot over and its rebuild starts
      await(() -> {
        RebuildProgress p = a.rebuilds().get(victim); // gone: it ended
        return p == null || pastPlan(p);
      }, "the spare's rebuild has planned");
      w.write(ByteBuffer.wrap(data, 3 * CELL, data.length - 3 * CELL));
      w.commit();
      await(() -> a.state() == ArrayState.OPTIMAL, "the spare is ONLINE");
      assertEquals(drives.get(7), a.labels().slot(victim).drive());
      assertSurvivesTwoMoreFailures(a.store(), ID, data, victim);
    }
  }

  /**
   * Many small writers in flight across a failure, a replacement and its rebuild; once the array
   * is OPTIMAL again, two other slots fail and every object must still read back.
   */
  @Test
  void concurrentSmallWritesAcrossAReplacementAllSurviveTwoMoreFailures() throws Exception {
    List<Path> drives = ArrayFixtures.dirs(root, "stress", 7);
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    int writers = 4;
    int perWriter = 40;
    Map<Long, byte[]> written = new TreeMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try (RaidArray a = RaidArray.create(arrayConfig(0), drives, codecs(), OPTIONS)) {
      int victim = 3;
      List<Future<Map<Long, byte[]>>> done = new java.util.ArrayList<>();
      for (int t = 0; t < writers; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          Map<Long, byte[]> mine = new TreeMap<>();
          for (int i = 0; i < perWriter; i++) {
            long id = 1000L * (thread + 1) + i;
            byte[] b = random(CELL + (int) (id % 5) * 1000, id);
            try (ObjectWriter w = a.store().openWriter(id)) {
              w.write(ByteBuffer.wrap(b, 0, b.length / 2));
              Thread.sleep(2 + i % 5); // so that writes are open across the attach and the plan
              w.write(ByteBuffer.wrap(b, b.length / 2, b.length - b.length / 2));
              w.commit();
            }
            mine.put(id, b);
          }
          return mine;
        }));
      }
      Thread.sleep(20);
      a.failDrive(victim);
      Thread.sleep(20);
      a.replaceDrive(victim, fresh, false);
      for (Future<Map<Long, byte[]>> f : done) {
        written.putAll(f.get(120, TimeUnit.SECONDS));
      }
      await(() -> a.state() == ArrayState.OPTIMAL, "the replacement is ONLINE");
      int[] others = {(victim + 1) % 7, (victim + 4) % 7};
      a.failDrive(others[0]);
      a.failDrive(others[1]);
      for (Map.Entry<Long, byte[]> e : written.entrySet()) {
        assertArrayEquals(e.getValue(), read(a.store(), e.getKey(), e.getValue().length),
            "object " + e.getKey());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
