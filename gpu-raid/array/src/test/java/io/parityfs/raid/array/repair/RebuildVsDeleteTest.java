package io.parityfs.raid.array.repair;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Gate;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.object.ArrayFixtures;
import io.parityfs.raid.array.object.ManifestFile;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rebuild racing deletes, re-creations and foreground writes of the objects it rebuilds
 * (reliability audit D5/A1, A2, D9/A4): each race is set up with gates that hold one drive call,
 * so the interleaving is the same on every run.
 */
class RebuildVsDeleteTest {
  private static final int CELL = 4096;
  /** The object raced; the other one is rebuilt normally. */
  private static final long X = 7;
  private static final long Y = 8;
  private static final int SLOT = 1;

  @TempDir Path root;

  private final ArrayConfig config = config("raid6:4+2");
  private List<Path> dirs;
  private FaultyDrive[] drives;
  private Drive fresh;
  private ObjectStore store;

  /** 6 fault drives over O_DIRECT FileDrives; slot 1 failed and given a blank drive. */
  private void setUp(boolean faultyFresh) throws IOException {
    dirs = ArrayFixtures.dirs(root, "a", 6);
    drives = new FaultyDrive[6];
    for (int s = 0; s < 6; s++) {
      FileDrive d = FileDrive.open(dirs.get(s), Drive.IoMode.DIRECT);
      assumeTrue(d.ioMode() == Drive.IoMode.DIRECT, "no O_DIRECT on " + dirs.get(s));
      drives[s] = new FaultyDrive(d, s);
    }
    store = ArrayFixtures.store(config, drives.clone(), codec(config));
    write(X, bytes(X, 0));
    write(Y, bytes(Y, 0));
    store.detachDrive(SLOT);
    Path dir = Files.createDirectories(root.resolve("fresh"));
    FileDrive f = FileDrive.open(dir, Drive.IoMode.DIRECT);
    fresh = faultyFresh ? new FaultyDrive(f, 99) : f;
    store.attachDrive(SLOT, fresh);
  }

  /** Content keyed by object and generation, so a stale incarnation cannot pass for the new. */
  private static byte[] bytes(long id, int generation) {
    return random(5 * 4 * CELL + 123, id * 1000 + generation);
  }

  private void write(long id, byte[] b) throws IOException {
    store.write(id, new ByteArrayInputStream(b), b.length);
  }

  private byte[] read(long id, int length) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(length);
    assertEquals(length, store.read(id, 0, buf));
    return buf.array();
  }

  /** The first two shards of X other than slot 1's, in the order the rebuild opens them. */
  private int[] survivors(ObjectManifest m) {
    int target = m.slots().indexOf(SLOT);
    int[] out = new int[2];
    int n = 0;
    for (int j = 0; j < m.slots().size() && n < 2; j++) {
      if (j != target) {
        out[n++] = j;
      }
    }
    return out;
  }

  private static String regex(String name) {
    return name.replace(".", "\\.");
  }

  private static List<String> files(Path dir, long id) throws IOException {
    try (Stream<Path> l = Files.list(dir)) {
      return l.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(ObjectFiles.prefix(id))).sorted().toList();
    }
  }

  /**
   * Holds the rebuild of X once its temp shard exists on the new drive (at the header read of
   * the second survivor it opens), runs {@code during} there, then lets the rebuild finish.
   */
  private RebuildProgress rebuildAround(Op op, IoAction during) throws Exception {
    ObjectManifest m = store.stat(X).orElseThrow();
    int j = survivors(m)[1];
    Gate gate = new Gate();
    drives[m.slotOf(j)].inject(Fault.hold(gate, op)
        .matching(regex(ObjectFiles.shard(X, m.version(), j))));
    Rebuilder r = new Rebuilder(store, SLOT).start();
    try {
      gate.awaitReached();
      during.run();
    } finally {
      gate.open();
    }
    return r.await(30, TimeUnit.SECONDS).orElseThrow(() -> new AssertionError("rebuild hung"));
  }

  private interface IoAction {
    void run() throws Exception;
  }

  /**
   * A stat during a delete (between the delete's forgetting of the cached manifest and its
   * removal of the manifests from the drives) must not put the deleted object back in the cache:
   * the SoakTest saw a rebuild re-check such a stale entry and count a deleted object lost, and
   * reads of it would fail on missing shards instead of NOT_FOUND.
   */
  @Test
  void aStatRacingADeleteDoesNotLeaveTheDeletedObjectCached() throws Exception {
    setUp(false);
    ObjectManifest m = store.stat(X).orElseThrow();
    Gate gate = new Gate();
    for (int s = 0; s < drives.length; s++) {
      if (s != SLOT) {
        drives[s].inject(Fault.hold(gate, Op.RENAME, Op.DELETE)
            .matching(regex(ObjectFiles.manifest(X, m.version()))));
      }
    }
    CompletableFuture<Boolean> delete = CompletableFuture.supplyAsync(() -> {
      try {
        return store.delete(X);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    try {
      gate.awaitReached();
      // no manifest is deleted yet: the look-up finds one on the drives
      assertTrue(store.stat(X).isPresent());
    } finally {
      gate.open();
    }
    assertTrue(delete.get(30, TimeUnit.SECONDS));
    assertTrue(store.stat(X).isEmpty(), "the deleted object is still cached");
  }

  @Test
  void aDeleteDuringTheRebuildLeavesItsTempAndTheObjectCountsAsSuperseded() throws Exception {
    setUp(false);
    String temp = ObjectFiles.temp(ObjectFiles.shard(X, 0, store.stat(X).orElseThrow()
        .slots().indexOf(SLOT)));
    Path freshDir = fresh.root();
    RebuildProgress p = rebuildAround(Op.READ, () -> {
      assertTrue(Files.exists(freshDir.resolve(temp)), "the rebuild's temp shard exists");
      assertTrue(store.delete(X));
      // A1: the delete took every file of X but the rebuild's temp, which the rebuild owns.
      assertTrue(Files.exists(freshDir.resolve(temp)), "the delete left the rebuild's temp");
    });
    assertEquals(RebuildProgress.State.DONE, p.state(), p.toString());
    assertTrue(p.complete(), p.toString());
    assertEquals(1, p.objectsSuperseded(), p.toString());
    assertEquals(0, p.objectsLost(), p.toString());
    assertEquals(1, p.objectsRebuilt(), p.toString()); // Y
    assertEquals(List.of(), files(freshDir, X), "the rebuild dropped its temp of X");
    for (int s = 0; s < 6; s++) {
      if (s != SLOT) { // the failed drive keeps its files
        assertEquals(List.of(ObjectFiles.tombstone(X, 0)), files(dirs.get(s), X),
            "no file of X left on slot " + s + " but the delete's tombstone");
      }
    }
    store.collectGarbageOnline(); // which removes the tombstones
    for (int s = 0; s < 6; s++) {
      if (s != SLOT) {
        assertEquals(List.of(), files(dirs.get(s), X), "no file of X left on slot " + s);
      }
    }
    assertTrue(store.stat(X).isEmpty());
    assertArrayEquals(bytes(Y, 0), read(Y, bytes(Y, 0).length));
  }

  @Test
  void anObjectDeletedWhileASurvivorOpensIsSupersededNotLost() throws Exception {
    setUp(false);
    RebuildProgress p = rebuildAround(Op.OPEN, () -> assertTrue(store.delete(X)));
    // D9/A4: the survivors vanished with the delete; that is not a loss.
    assertEquals(RebuildProgress.State.DONE, p.state(), p.toString());
    assertEquals(0, p.objectsLost(), p.toString());
    assertEquals(1, p.objectsSuperseded(), p.toString());
    assertTrue(p.complete(), p.toString());
  }

  @Test
  void anObjectDeletedAndWrittenAgainMidRebuildKeepsItsNewBytes() throws Exception {
    setUp(false);
    byte[] second = bytes(X, 1);
    RebuildProgress p = rebuildAround(Op.READ, () -> {
      assertTrue(store.delete(X));
      write(X, second); // versions restart at 0 after a delete, unless a file of X remains
    });
    assertEquals(RebuildProgress.State.DONE, p.state(), p.toString());
    assertTrue(p.complete(), p.toString());
    assertEquals(1, p.objectsSuperseded(), p.toString());
    assertArrayEquals(second, read(X, second.length));
    // Read X through slot 1's shard: take two other drives of its placement away.
    ObjectManifest m = store.stat(X).orElseThrow();
    int taken = 0;
    for (int s : m.slots()) {
      if (s != SLOT && taken < 2) {
        store.detachDrive(s);
        taken++;
      }
    }
    assertArrayEquals(second, read(X, second.length), "slot 1's shard is the new version's");
  }

  @Test
  void theRebuildsManifestDoesNotRaceAForegroundWriterOnItsTempName() throws Exception {
    setUp(true);
    FaultyDrive out = (FaultyDrive) fresh;
    String temp = regex(ObjectFiles.temp(ObjectFiles.manifest(X, 1)));
    Gate writerRename = new Gate();
    Gate rebuildRename = new Gate();
    out.inject(Fault.hold(writerRename, Op.RENAME).matching(temp).onCall(1));
    out.inject(Fault.hold(rebuildRename, Op.RENAME).matching(temp).onCall(2));
    byte[] second = bytes(X, 1);
    // The writer opened after the attach: it writes X version 1 on the new drive too, and is
    // held renaming its manifest there, after the other drives' manifests.
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      try {
        write(X, second);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    writerRename.awaitReached();
    for (int s = 0; s < 6; s++) {
      if (s != SLOT) {
        Path manifest = dirs.get(s).resolve(ObjectFiles.manifest(X, 1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(manifest)) {
          assertTrue(System.nanoTime() < deadline, "manifest on slot " + s);
          Thread.sleep(1);
        }
      }
    }
    // The rebuild plans X version 1: its shard is on the new drive, its manifest not yet, so
    // it writes the manifest itself. Unlocked (the bug), it reaches its rename while the writer
    // waits; locked, it waits for the writer and finds the manifest written.
    Rebuilder r = new Rebuilder(store, SLOT).start();
    boolean raced = rebuildRename.awaitReached(Duration.ofSeconds(3));
    writerRename.open();
    writer.get(30, TimeUnit.SECONDS);
    rebuildRename.open();
    RebuildProgress p = r.await(30, TimeUnit.SECONDS).orElseThrow();
    assertEquals(RebuildProgress.State.DONE, p.state(), p + (raced ? " (raced the writer)" : ""));
    assertTrue(p.complete(), p.toString());
    assertFalse(raced, "the rebuild wrote X's manifest while the writer was writing it");
    assertEquals(second.length, ManifestFile.read(fresh, X, 1).objectLength());
    assertArrayEquals(second, read(X, second.length));
  }
}
