package io.parityfs.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.testing.SharedMiniCluster;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnresolvedLinkException;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Symbolic links through the Hadoop API: every call follows the links on its path (relative
 * and absolute targets, chains, links above the path), {@code getFileStatus} of a link is its
 * target's under the link's path, listings show links as links, {@code rename} and {@code
 * delete} act on the link itself; creating links needs {@code fs.pfs.symlinks}; loops and
 * {@code fs.client.resolve.remote.symlinks=false} fail with the link named.
 */
class PfsSymlinkTest {
  static FileSystem fs;
  static final Path D = new Path("/symlinks");

  @BeforeAll
  static void open() throws IOException {
    Configuration conf = new Configuration(SharedMiniCluster.configuration());
    conf.setBoolean(PfsFileSystem.SYMLINKS_KEY, true);
    fs = FileSystem.newInstance(URI.create("pfs://mini/"), conf);
    fs.mkdirs(new Path(D, "ckpt-1000"));
    write(new Path(D, "ckpt-1000/shard-0"), random(300_000, 1));
    write(new Path(D, "ckpt-1000/shard-1"), random(1000, 2));
  }

  @AfterAll
  static void close() throws IOException {
    if (fs != null) {
      fs.delete(D, true);
      fs.close();
    }
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static void write(Path p, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(p, true)) {
      out.write(data);
    }
  }

  static byte[] read(FileSystem f, Path p) throws IOException {
    try (FSDataInputStream in = f.open(p)) {
      return in.readAllBytes();
    }
  }

  @Test
  void callsFollowLinksAndStatusesKeepTheLinksPath() throws Exception {
    Path latest = new Path(D, "latest");
    fs.createSymlink(new Path("ckpt-1000"), latest, false);
    assertTrue(fs.hasPathCapability(D, CommonPathCapabilities.FS_SYMLINKS));
    assertTrue(fs.supportsSymlinks());
    // the link itself
    FileStatus link = fs.getFileLinkStatus(latest);
    assertTrue(link.isSymlink());
    assertEquals(new Path("ckpt-1000"), fs.getLinkTarget(latest));
    // followed: the target's status and path, as HDFS gives them; the link's own status
    // qualifies its target from the link's directory
    FileStatus st = fs.getFileStatus(latest);
    assertTrue(st.isDirectory());
    assertEquals(fs.makeQualified(new Path(D, "ckpt-1000")), st.getPath());
    assertEquals(fs.makeQualified(new Path(D, "ckpt-1000")), link.getSymlink());
    assertEquals(fs.makeQualified(latest), link.getPath());
    FileStatus[] inside = fs.listStatus(latest);
    assertEquals(List.of("shard-0", "shard-1"), Arrays.stream(inside)
        .map(s -> s.getPath().getName()).sorted().toList());
    assertEquals(fs.makeQualified(new Path(D, "ckpt-1000/shard-0")), Arrays.stream(inside)
        .filter(s -> s.getPath().getName().equals("shard-0")).findFirst().orElseThrow()
        .getPath());
    assertArrayEquals(random(300_000, 1), read(fs, new Path(latest, "shard-0")));
    assertEquals(300_000, fs.getFileStatus(new Path(latest, "shard-0")).getLen());
    // the parent's listing shows the link as a link
    FileStatus listed = Arrays.stream(fs.listStatus(D))
        .filter(s -> s.getPath().getName().equals("latest")).findFirst().orElseThrow();
    assertTrue(listed.isSymlink() && !listed.isFile() && !listed.isDirectory());
    // writes through a link land in the target
    write(new Path(latest, "shard-2"), random(5000, 3));
    assertEquals(5000, fs.getFileStatus(new Path(D, "ckpt-1000/shard-2")).getLen());
    try (FSDataOutputStream out = fs.append(new Path(latest, "shard-2"))) {
      out.write(random(10, 4));
    }
    assertEquals(5010, fs.getFileStatus(new Path(D, "ckpt-1000/shard-2")).getLen());
    fs.mkdirs(new Path(latest, "sub"));
    assertTrue(fs.getFileStatus(new Path(D, "ckpt-1000/sub")).isDirectory());
    // a link to a file: open, overwrite and truncate follow it; setPermission changes the file
    Path fileLink = new Path(D, "s2");
    fs.createSymlink(new Path("ckpt-1000/shard-2"), fileLink, false);
    assertEquals(5010, read(fs, fileLink).length);
    write(fileLink, random(100, 5));
    assertArrayEquals(random(100, 5), read(fs, new Path(D, "ckpt-1000/shard-2")));
    assertTrue(fs.getFileLinkStatus(fileLink).isSymlink(), "the link stays a link");
    assertTrue(fs.truncate(fileLink, 40));
    assertEquals(40, fs.getFileStatus(new Path(D, "ckpt-1000/shard-2")).getLen());
    fs.setPermission(fileLink, new FsPermission((short) 0600));
    assertEquals(0600, fs.getFileStatus(new Path(D, "ckpt-1000/shard-2")).getPermission()
        .toShort());
    // create without overwrite finds the name taken, as HDFS
    assertThrows(FileAlreadyExistsException.class, () -> fs.create(fileLink, false));
    // delete removes the link, never its target
    assertTrue(fs.delete(fileLink, false));
    assertFalse(fs.exists(fileLink));
    assertEquals(40, fs.getFileStatus(new Path(D, "ckpt-1000/shard-2")).getLen());
  }

  @Test
  void absoluteChainedAndDanglingLinksAndTheLatestSwitch() throws Exception {
    Path abs = new Path(D, "abs");
    fs.createSymlink(new Path("/symlinks/ckpt-1000"), abs, false);
    Path chain = new Path(D, "deep/er/chain");
    fs.createSymlink(new Path("../../abs/../ckpt-1000/./shard-1"), chain, true);
    assertArrayEquals(random(1000, 2), read(fs, chain));
    assertArrayEquals(random(1000, 2), read(fs, new Path(abs, "shard-1")));
    // a link whose target is missing: FileNotFoundException naming both
    Path dangling = new Path(D, "dangling");
    fs.createSymlink(new Path("nowhere"), dangling, false);
    FileNotFoundException nf = assertThrows(FileNotFoundException.class,
        () -> fs.getFileStatus(dangling));
    assertTrue(nf.getMessage().contains("nowhere"), nf.getMessage());
    assertThrows(FileNotFoundException.class, () -> fs.open(dangling));
    assertFalse(fs.exists(dangling));
    assertTrue(fs.getFileLinkStatus(dangling).isSymlink());
    // POSIX create through a dangling link makes the target
    write(dangling, random(7, 6));
    assertEquals(7, fs.getFileStatus(new Path(D, "nowhere")).getLen());
    // the "latest" switch: a new link renamed over the old one (rename acts on links)
    fs.mkdirs(new Path(D, "ckpt-2000"));
    write(new Path(D, "ckpt-2000/shard-0"), random(10, 7));
    Path latest = new Path(D, "current");
    fs.createSymlink(new Path("ckpt-1000"), latest, false);
    fs.createSymlink(new Path("ckpt-2000"), new Path(D, "current.tmp"), false);
    assertTrue(fs.delete(latest, false));
    assertTrue(fs.rename(new Path(D, "current.tmp"), latest));
    assertArrayEquals(random(10, 7), read(fs, new Path(latest, "shard-0")));
    assertTrue(fs.getFileStatus(new Path(D, "ckpt-1000")).isDirectory());
    // a link to another file system is kept as given but not followed; one qualified with this
    // file system's URI is
    fs.createSymlink(new Path("file:///etc/hostname"), new Path(D, "foreign"), false);
    assertEquals(new Path("file:///etc/hostname"), fs.getLinkTarget(new Path(D, "foreign")));
    UnresolvedLinkException foreign = assertThrows(UnresolvedLinkException.class,
        () -> fs.open(new Path(D, "foreign")));
    assertTrue(foreign.getMessage().contains("not in this file system"), foreign.getMessage());
    fs.createSymlink(fs.makeQualified(new Path(D, "ckpt-2000")), new Path(D, "qualified"),
        false);
    assertArrayEquals(random(10, 7), read(fs, new Path(D, "qualified/shard-0")));
    // parents are not made past a link: a file under a dangling link's missing directory
    fs.createSymlink(new Path("no-dir"), new Path(D, "dangling-dir"), false);
    assertThrows(FileNotFoundException.class, () -> fs.create(new Path(D, "dangling-dir/f")));
    assertFalse(fs.exists(new Path(D, "no-dir")));
  }

  @Test
  void loopsAndResolutionTurnedOffFailNamingTheLink() throws Exception {
    fs.createSymlink(new Path("loop-b"), new Path(D, "loop-a"), false);
    fs.createSymlink(new Path("loop-a"), new Path(D, "loop-b"), false);
    IOException loop = assertThrows(IOException.class,
        () -> fs.getFileStatus(new Path(D, "loop-a")));
    assertEquals("Possible cyclic loop while following symbolic link /symlinks/loop-a",
        loop.getMessage());
    assertThrows(IOException.class, () -> fs.open(new Path(D, "loop-a/x")));
    fs.createSymlink(new Path("ckpt-1000"), new Path(D, "no-follow"), false);
    Configuration conf = new Configuration(SharedMiniCluster.configuration());
    conf.setBoolean(CommonConfigurationKeysPublic.FS_CLIENT_RESOLVE_REMOTE_SYMLINKS_KEY, false);
    try (FileSystem strict = FileSystem.newInstance(URI.create("pfs://mini/"), conf)) {
      UnresolvedLinkException e = assertThrows(UnresolvedLinkException.class,
          () -> strict.open(new Path(D, "no-follow/shard-1")));
      assertTrue(e.getMessage().contains("/symlinks/no-follow"), e.getMessage());
      assertTrue(strict.getFileLinkStatus(new Path(D, "no-follow")).isSymlink());
      // creating links is off by default
      assertFalse(strict.supportsSymlinks());
      UnsupportedOperationException off = assertThrows(UnsupportedOperationException.class,
          () -> strict.createSymlink(new Path("x"), new Path(D, "y"), false));
      assertTrue(off.getMessage().contains(PfsFileSystem.SYMLINKS_KEY), off.getMessage());
    }
  }
}
