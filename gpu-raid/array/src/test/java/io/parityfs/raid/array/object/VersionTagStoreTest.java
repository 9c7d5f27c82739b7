package io.parityfs.raid.array.object;

import static io.parityfs.raid.array.object.ArrayFixtures.codec;
import static io.parityfs.raid.array.object.ArrayFixtures.config;
import static io.parityfs.raid.array.object.ArrayFixtures.fileDrives;
import static io.parityfs.raid.array.object.ArrayFixtures.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.VersionTag;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link VersionTag} of an object version through the store: committed by the writer, given
 * back by {@code stat} from the cache and after a reopen, in every manifest copy and shard header,
 * kept by the roll-forward of a lost manifest and by a manifest rebuilt from shard headers, and
 * not carried over to a rewrite's new version.
 */
class VersionTagStoreTest {
  private static final int CELL = 4096;
  private static final long ID = 0x7a90_0000_0000_0001L;
  private static final VersionTag TAG = new VersionTag(3, 41);

  @TempDir Path root;

  private static ObjectStore store(ArrayConfig c, Drive[] drives) {
    return new ObjectStore(c, drives, codec(c));
  }

  /** Writes {@code data} as a new version of {@code id} tagged {@code tag}; its manifest. */
  private static ObjectManifest writeTagged(ObjectStore s, long id, byte[] data, VersionTag tag)
      throws IOException {
    try (ObjectWriter w = s.openWriter(id)) {
      w.write(ByteBuffer.wrap(data));
      w.tag(tag);
      return w.commit();
    }
  }

  private static byte[] readAll(ObjectStore s, long id) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate((int) s.length(id));
    s.read(id, 0, buf);
    return buf.array();
  }

  /** Checks the tag of every manifest copy and shard header of {@code m} on {@code dirs}. */
  private static void assertTagOnDisk(List<Path> dirs, ObjectManifest m, VersionTag tag)
      throws IOException {
    for (int i = 0; i < m.slots().size(); i++) {
      Path dir = dirs.get(m.slotOf(i));
      try (FileDrive d = FileDrive.open(dir, Drive.IoMode.BUFFERED)) {
        assertEquals(tag, ManifestFile.read(d, m.objectId(), m.version()).tag(), "manifest " + i);
        try (ShardReader r = ShardReader.open(d, ObjectFiles.shard(m.objectId(), m.version(), i))) {
          assertEquals(tag, r.header().tag(), "shard " + i);
        }
      }
      long manifestBytes = Files.size(dir.resolve(ObjectFiles.manifest(m.objectId(), m.version())));
      assertEquals((tag.isNone() ? 60 : 76) + m.slots().size(), manifestBytes, "format 1 or 2");
    }
  }

  @Test
  void aTagIsCommittedWithTheVersionAndStatGivesItBackBeforeAndAfterAReopen() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "t", 7);
    byte[] data = random(5 * 4 * CELL + 17, 1);
    ObjectManifest committed;
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      committed = writeTagged(s, ID, data, TAG);
      assertEquals(TAG, committed.tag());
      assertEquals(committed, s.stat(ID).orElseThrow(), "from the cache");
      s.write(ID + 1, new ByteArrayInputStream(data), data.length);
      assertEquals(VersionTag.NONE, s.stat(ID + 1).orElseThrow().tag(), "written without one");
    }
    assertTagOnDisk(dirs, committed, TAG);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertEquals(committed, s.stat(ID).orElseThrow(), "read back from the drives");
      assertEquals(TAG, s.stat(ID).orElseThrow().tag());
      assertEquals(VersionTag.NONE, s.stat(ID + 1).orElseThrow().tag());
      assertArrayEquals(data, readAll(s, ID));
      assertEquals(0, s.collectGarbage());
    }
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertTagOnDisk(dirs, s.stat(ID + 1).orElseThrow(), VersionTag.NONE);
    }
  }

  @Test
  void theLastTagSetBeforeTheCommitCountsAndNoneCanBeSetAfter() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    try (ObjectStore s = store(c, fileDrives(ArrayFixtures.dirs(root, "l", 4)))) {
      ObjectWriter w = s.openWriter(ID);
      w.tag(new VersionTag(1, 1));
      w.write(ByteBuffer.wrap(random(CELL, 2)));
      w.tag(TAG);
      assertThrows(IllegalArgumentException.class, () -> w.tag(null));
      assertEquals(TAG, w.commit().tag());
      assertThrows(IllegalStateException.class, () -> w.tag(TAG), "committed");
      ObjectWriter aborted = s.openWriter(ID);
      aborted.tag(new VersionTag(9, 9));
      aborted.abort();
      assertThrows(IllegalStateException.class, () -> aborted.tag(TAG), "aborted");
      assertEquals(TAG, s.stat(ID).orElseThrow().tag(), "the abort changed nothing");
      ObjectWriter untagged = s.openWriter(ID);
      untagged.tag(TAG);
      untagged.tag(VersionTag.NONE);
      assertEquals(VersionTag.NONE, untagged.commit().tag(), "NONE set back");
    }
  }

  @Test
  void aRewriteCommitsTheTagSetOnItNotTheOldVersionsTag() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "rw", 7);
    byte[] data = random(3 * 4 * CELL, 3);
    VersionTag next = new VersionTag(4, 0);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      writeTagged(s, ID, data, TAG);
      try (ObjectWriter w = s.openRewrite(ID, CELL)) {
        w.write(ByteBuffer.wrap(random(100, 4)));
        assertEquals(VersionTag.NONE, w.commit().tag(), "an untagged rewrite has no tag");
      }
      try (ObjectWriter w = s.openRewrite(ID, -1)) {
        w.tag(next);
        w.write(ByteBuffer.wrap(random(100, 5)));
        assertEquals(next, w.commit().tag(), "an append tagged with its own");
      }
      assertEquals(next, s.stat(ID).orElseThrow().tag());
      assertEquals(data.length + 100, s.length(ID));
    }
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      ObjectManifest m = s.stat(ID).orElseThrow();
      assertEquals(next, m.tag());
      assertEquals(2, m.version());
      s.overwrite(ID, 0, Channels.newChannel(new ByteArrayInputStream(new byte[10])), 10);
      assertEquals(VersionTag.NONE, s.stat(ID).orElseThrow().tag(), "overwrite() tags nothing");
    }
  }

  @Test
  void aManifestRolledForwardOntoADriveThatLostItKeepsTheTag() throws IOException {
    ArrayConfig c = config("raid5:3+1");
    List<Path> dirs = ArrayFixtures.dirs(root, "rf", 4);
    ObjectManifest m;
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      m = writeTagged(s, ID, random(CELL * 5, 6), TAG);
    }
    Path lost = dirs.get(m.slotOf(0)).resolve(ObjectFiles.manifest(ID, 0));
    Path rotten = dirs.get(m.slotOf(1)).resolve(ObjectFiles.manifest(ID, 0));
    Files.delete(lost);
    byte[] b = Files.readAllBytes(rotten);
    b[20] ^= 1;
    Files.write(rotten, b);
    try (ObjectStore s = store(c, fileDrives(dirs))) {
      assertEquals(TAG, s.stat(ID).orElseThrow().tag());
      assertEquals(0, s.collectGarbage());
    }
    assertTagOnDisk(dirs, m, TAG);
  }

  /** Flips one byte in the middle of {@code file}: the manifest no longer reads back. */
  private static void rot(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int x = f.read();
      f.seek(at);
      f.write(x ^ 0x5a);
    }
  }

  private static FaultyDrive[] faulty(List<Path> dirs) throws IOException {
    Drive[] inner = fileDrives(dirs, Drive.IoMode.BUFFERED);
    FaultyDrive[] d = new FaultyDrive[inner.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = new FaultyDrive(inner[i], 11 + i);
    }
    return d;
  }

  /**
   * As {@code ManifestRecoveryTest.aVersionWhoseManifestsAreAllLostIsRebuiltFromItsShardHeaders},
   * tagged: the manifest rebuilt from the shard headers has the tag the writer committed.
   */
  @Test
  void aManifestRebuiltFromTheShardHeadersKeepsTheTag() throws IOException {
    ArrayConfig c = config("raid6:4+2");
    List<Path> dirs = ArrayFixtures.dirs(root, "rec", 6);
    byte[] data = random(7 * 4 * CELL + 999, 7);
    FaultyDrive[] d = faulty(dirs);
    String temp = ObjectFiles.temp(ObjectFiles.manifest(ID, 0)).replace(".", "\\.");
    for (int i = 3; i < 6; i++) {
      d[i].inject(Fault.full(Op.CREATE).matching(temp));
    }
    try (ObjectStore s = store(c, d)) {
      writeTagged(s, ID, data, TAG);
    }
    for (int i = 0; i < 3; i++) {
      assertEquals(true, Files.exists(dirs.get(i).resolve(ObjectFiles.manifest(ID, 0))), "" + i);
    }
    rot(dirs.get(1).resolve(ObjectFiles.manifest(ID, 0)));
    rot(dirs.get(2).resolve(ObjectFiles.manifest(ID, 0)));
    FaultyDrive[] after = faulty(dirs);
    after[0].disappear();
    try (ObjectStore s = store(c, after)) {
      assertEquals(TAG, s.stat(ID).orElseThrow().tag(), "rebuilt from the shard headers");
      assertArrayEquals(data, readAll(s, ID));
    }
    for (int i = 1; i < 6; i++) {
      try (FileDrive f = FileDrive.open(dirs.get(i), Drive.IoMode.BUFFERED)) {
        assertEquals(TAG, ManifestFile.read(f, ID, 0).tag(), "drive " + i);
      }
    }
  }
}
