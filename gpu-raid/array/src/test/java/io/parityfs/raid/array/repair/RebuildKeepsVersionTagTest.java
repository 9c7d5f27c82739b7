package io.parityfs.raid.array.repair;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.fileDrives;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.VersionTag;
import io.parityfs.raid.array.object.ArrayFixtures;
import io.parityfs.raid.array.object.ManifestFile;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ObjectWriter;
import io.parityfs.raid.array.object.ShardReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repairs that write a version's files again keep its {@link VersionTag}: the rebuild of a
 * replaced drive (shards and manifests) and the scrub's re-creation of a missing shard.
 */
class RebuildKeepsVersionTagTest {
  private static final int CELL = 4096;

  @TempDir Path root;

  /** Object id's tag: none for every third object, else one of its own. */
  private static VersionTag tagOf(long id) {
    return id % 3 == 0 ? VersionTag.NONE : new VersionTag(id, 1000 + id);
  }

  /** Writes objects 1..count, a few stripes each, tagged as {@link #tagOf}; id to bytes. */
  private static Map<Long, byte[]> writeObjects(ObjectStore s, int count) throws IOException {
    Map<Long, byte[]> objects = new TreeMap<>();
    for (long id = 1; id <= count; id++) {
      byte[] data = random((int) (id * 3 * CELL + id), id);
      try (ObjectWriter w = s.openWriter(id)) {
        w.write(ByteBuffer.wrap(data));
        w.tag(tagOf(id));
        assertEquals(tagOf(id), w.commit().tag());
      }
      objects.put(id, data);
    }
    return objects;
  }

  private static void assertTagged(ObjectStore s, Map<Long, byte[]> objects) throws IOException {
    for (Map.Entry<Long, byte[]> e : objects.entrySet()) {
      assertEquals(tagOf(e.getKey()), s.stat(e.getKey()).orElseThrow().tag(), "object "
          + e.getKey());
      ByteBuffer buf = ByteBuffer.allocate(e.getValue().length);
      assertEquals(e.getValue().length, s.read(e.getKey(), 0, buf));
      assertArrayEquals(e.getValue(), buf.array(), "object " + e.getKey());
    }
  }

  @Test
  void aRebuildOntoAReplacedDriveKeepsEveryVersionsTag() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "a", 8);
    int victim = 2;
    Map<Long, byte[]> objects;
    Map<Long, ObjectManifest> manifests = new TreeMap<>();
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 12);
      for (long id : objects.keySet()) {
        manifests.put(id, s.stat(id).orElseThrow());
      }
    }
    Drive[] d = fileDrives(dirs);
    d[victim].close();
    d[victim] = null; // the drive failed
    Path fresh = Files.createDirectories(root.resolve("fresh"));
    try (ObjectStore s = ArrayFixtures.store(c, d, codec(c))) {
      s.attachDrive(victim, FileDrive.open(fresh, Drive.IoMode.BUFFERED));
      RebuildProgress p = new Rebuilder(s, victim, 2 * CELL).run();
      assertEquals(RebuildProgress.State.DONE, p.state(), p.toString());
      assertTrue(p.objectsRebuilt() > 0, p.toString());
      assertTagged(s, objects);
    }
    int rebuilt = 0;
    int tagged = 0;
    try (FileDrive f = FileDrive.open(fresh, Drive.IoMode.BUFFERED)) {
      for (ObjectManifest m : manifests.values()) {
        int shard = m.slots().indexOf(victim);
        if (shard < 0) {
          continue;
        }
        rebuilt++;
        tagged += m.tag().isNone() ? 0 : 1;
        assertEquals(m, ManifestFile.read(f, m.objectId(), m.version()), "the same manifest");
        try (ShardReader r =
            ShardReader.open(f, ObjectFiles.shard(m.objectId(), m.version(), shard))) {
          assertEquals(m.tag(), r.header().tag(), "rebuilt shard of " + m.objectId());
        }
      }
    }
    assertTrue(tagged > 0 && tagged < rebuilt, tagged + " of " + rebuilt + " tagged");

    // A store over the replaced drive, with another drive gone, finds the tags on the drives.
    List<Path> now = new ArrayList<>(dirs);
    now.set(victim, fresh);
    Drive[] again = fileDrives(now);
    int other = 5;
    again[other].close();
    again[other] = null;
    try (ObjectStore s = ArrayFixtures.store(c, again, codec(c))) {
      assertTagged(s, objects);
    }
  }

  @Test
  void aShardTheScrubReCreatesKeepsTheTag() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "s", 7);
    Map<Long, byte[]> objects;
    ObjectManifest m;
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      objects = writeObjects(s, 2);
      m = s.stat(1).orElseThrow();
    }
    assertEquals(tagOf(1), m.tag());
    Path gone = dirs.get(m.slotOf(3)).resolve(ObjectFiles.shard(1, m.version(), 3));
    Files.delete(gone);
    try (ObjectStore s = ArrayFixtures.store(c, fileDrives(dirs), codec(c))) {
      ScrubReport r = new Scrubber(s).run();
      assertEquals(1, r.shardsRecreated(), r.toString());
      assertTagged(s, objects);
    }
    try (FileDrive f = FileDrive.open(dirs.get(m.slotOf(3)), Drive.IoMode.BUFFERED);
        ShardReader r = ShardReader.open(f, ObjectFiles.shard(1, m.version(), 3))) {
      assertEquals(tagOf(1), r.header().tag(), "the re-created shard");
      assertEquals(m, ManifestFile.read(f, 1, m.version()));
    }
  }
}
