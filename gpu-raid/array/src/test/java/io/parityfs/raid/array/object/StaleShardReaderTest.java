package io.parityfs.raid.array.object;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Gate;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ObjectManifest;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard reader cached for a deleted object's file must not serve the object written again
 * under the same name (versions restart at 0 after a delete): reliability audit D17.
 */
class StaleShardReaderTest {
  private static final int LENGTH = 3 * 4 * 4096;

  @TempDir Path root;

  @Test
  void aReaderOfTheDeletedIncarnationIsNotServedForTheNewOne() throws Exception {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "a", 6);
    FaultyDrive[] drives = new FaultyDrive[6];
    for (int s = 0; s < 6; s++) {
      drives[s] = new FaultyDrive(FileDrive.open(dirs.get(s), Drive.IoMode.DIRECT), s);
    }
    long x = 5;
    byte[] first = random(LENGTH, 1);
    byte[] second = random(LENGTH, 2);
    try (ObjectStore store = new ObjectStore(c, drives.clone(), codec(c))) {
      store.write(x, new ByteArrayInputStream(first), LENGTH);
      ObjectManifest old = store.stat(x).orElseThrow();
      // A read of the first incarnation is held opening shard 0 (its header read), after the
      // cache missed and before the reader is cached.
      Gate gate = new Gate();
      drives[old.slotOf(0)].inject(Fault.hold(gate, Op.READ)
          .matching(ObjectFiles.shard(x, 0, 0).replace(".", "\\.")).onCall(1));
      CompletableFuture<byte[]> racing = CompletableFuture.supplyAsync(() -> {
        try {
          ByteBuffer b = ByteBuffer.allocate(100);
          store.read(x, 0, b);
          return b.array();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      gate.awaitReached();
      try {
        store.delete(x);
        store.collectGarbageOnline(); // takes the delete's tombstones: versions restart at 0
        store.write(x, new ByteArrayInputStream(second), LENGTH); // version 0 again
      } finally {
        gate.open();
      }
      racing.get(30, TimeUnit.SECONDS); // it cached its reader of the deleted file
      ObjectManifest now = store.stat(x).orElseThrow();
      assertEquals(0, now.version());
      assertNotEquals(old.created(), now.created(), "the incarnations' times differ");
      ByteBuffer b = ByteBuffer.allocate(LENGTH);
      assertEquals(LENGTH, store.read(x, 0, b));
      assertArrayEquals(second, b.array(), "the new incarnation's bytes");
    }
  }
}
