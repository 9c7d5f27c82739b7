package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsFileWriter;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.testing.SharedMiniCluster;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operations without a kernel: called as the binding would, on the shared cluster (256 KiB
 * chunks over two targets), as root (uid 0) unless a test says otherwise.
 */
class PfsFuseOperationsTest {
  static final String BASE = "/fuse-ops-" + Long.toHexString(System.nanoTime());
  static final Requester ROOT = new Requester(0, 0);
  static final Requester NOBODY = new Requester(65534, 65534);
  static ParityClient client;
  static PfsFuseOperations ops;

  @BeforeAll
  static void setUp() throws Exception {
    client = SharedMiniCluster.get().client(new Caller("root", List.of("root"), 0));
    ops = new PfsFuseOperations(client, IdentityMap.system());
    client.namespace().mkdirs(BASE);
  }

  @AfterAll
  static void tearDown() {
    if (ops != null) {
      ops.close();
    }
    if (client != null) {
      client.close();
    }
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static long create(String path) {
    long[] fh = new long[1];
    assertEquals(0, ops.create(ROOT, path, 0644, 01, fh), path);
    return fh[0];
  }

  static long open(String path, int flags) {
    long[] fh = new long[1];
    assertEquals(0, ops.open(ROOT, path, flags, fh), path);
    return fh[0];
  }

  static byte[] readAll(String path, long fh, int n) {
    ByteBuffer dst = ByteBuffer.allocate(n + 10);
    int got = ops.read(path, fh, 0, dst);
    assertTrue(got >= 0, "read " + path + ": " + got);
    return Arrays.copyOf(dst.array(), got);
  }

  static FileAttributes stat(String path) {
    FileAttributes[] a = new FileAttributes[1];
    assertEquals(0, ops.getattr(ROOT, path, a), path);
    return a[0];
  }

  @Test
  void writeRandomlyReadYourWritesTruncateAndReopen() {
    String p = BASE + "/rw.bin";
    byte[] expect = random(700_000, 1); // three chunks
    long fh = create(p);
    assertEquals(expect.length, ops.write(p, fh, 0, ByteBuffer.wrap(expect)));
    byte[] patch = random(300_000, 2); // across a chunk boundary
    assertEquals(patch.length, ops.write(p, fh, 200_000, ByteBuffer.wrap(patch)));
    System.arraycopy(patch, 0, expect, 200_000, patch.length);
    // a second handle reads through the writer, before any commit
    long reader = open(p, 0);
    assertEquals(expect.length, stat(p).size());
    assertArrayEquals(expect, readAll(p, reader, expect.length));
    // write past the end: a hole of zeros
    byte[] tail = random(1000, 3);
    assertEquals(1000, ops.write(p, fh, 900_000, ByteBuffer.wrap(tail)));
    byte[] grown = Arrays.copyOf(expect, 901_000);
    System.arraycopy(tail, 0, grown, 900_000, 1000);
    assertEquals(0, ops.ftruncate(ROOT, p, fh, 400_000));
    assertEquals(400_000, stat(p).size());
    assertEquals(0, ops.flush(p, fh));
    assertEquals(0, ops.release(p, reader));
    assertEquals(0, ops.release(p, fh));
    assertEquals(0, ops.openFiles());
    // closed: a fresh handle reads the committed bytes
    long again = open(p, 0);
    assertArrayEquals(Arrays.copyOf(grown, 400_000), readAll(p, again, 400_000));
    assertEquals(0, ops.release(p, again));
    // truncate a closed file up, then open for writing with O_TRUNC
    assertEquals(0, ops.truncate(ROOT, p, 500_000));
    assertEquals(500_000, stat(p).size());
    long w = open(p, 01 | 01000);
    assertEquals(0, stat(p).size());
    assertEquals(0, ops.release(p, w));
  }

  @Test
  void namespaceErrorsMapToErrno() {
    String d = BASE + "/errs";
    assertEquals(0, ops.mkdir(ROOT, d, 0755));
    assertEquals(-Errno.EEXIST, ops.mkdir(ROOT, d, 0755));
    assertEquals(-Errno.ENOENT, ops.getattr(ROOT, d + "/missing", new FileAttributes[1]));
    long fh = create(d + "/f");
    assertEquals(0, ops.release(d + "/f", fh));
    assertEquals(-Errno.ENOTEMPTY, ops.rmdir(ROOT, d));
    assertEquals(-Errno.ENOTDIR, ops.rmdir(ROOT, d + "/f"));
    assertEquals(-Errno.EISDIR, ops.unlink(ROOT, d));
    assertEquals(-Errno.EISDIR, ops.open(ROOT, d, 0, new long[1]));
    assertEquals(-Errno.EPERM, ops.symlink("/x", d + "/link"));
    assertEquals(-Errno.EPERM, ops.link(d + "/f", d + "/hard"));
    // permissions are the requester's: nobody cannot write a directory of root's (0755)
    assertEquals(-Errno.EACCES, ops.mkdir(NOBODY, d + "/theirs", 0755));
    assertEquals(-Errno.EACCES, ops.create(NOBODY, d + "/theirs", 0644, 01, new long[1]));
    assertEquals(-Errno.EPERM, ops.chmod(NOBODY, d + "/f", 0777));
    // a file written by another client: its lease makes opening it for writing EBUSY
    try (ParityClient other = SharedMiniCluster.get().client(Caller.of("root"));
        PfsFileWriter w = other.openWriter(d + "/f")) {
      assertEquals(-Errno.EBUSY, ops.open(ROOT, d + "/f", 01, new long[1]));
      assertEquals(-Errno.EBUSY, ops.truncate(ROOT, d + "/f", 0));
      w.write(0, new byte[] {1}, 0, 1);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    assertEquals(0, ops.unlink(ROOT, d + "/f"));
    assertEquals(-Errno.ENOENT, ops.unlink(ROOT, d + "/f"));
    assertEquals(0, ops.rmdir(ROOT, d));
  }

  @Test
  void renameReplacesLikePosixAndFollowsOpenFiles() throws Exception {
    String d = BASE + "/mv";
    assertEquals(0, ops.mkdir(ROOT, d, 0755));
    long a = create(d + "/a");
    ops.write(d + "/a", a, 0, ByteBuffer.wrap("aaaa".getBytes(StandardCharsets.UTF_8)));
    ops.release(d + "/a", a);
    long b = create(d + "/b");
    ops.write(d + "/b", b, 0, ByteBuffer.wrap("bb".getBytes(StandardCharsets.UTF_8)));
    // rename onto an existing file replaces it, while b is still open for writing
    assertEquals(0, ops.rename(ROOT, d + "/b", d + "/a"));
    assertEquals(-Errno.ENOENT, ops.getattr(ROOT, d + "/b", new FileAttributes[1]));
    ops.write(d + "/a", b, 2, ByteBuffer.wrap("BB".getBytes(StandardCharsets.UTF_8)));
    assertEquals(4, stat(d + "/a").size());
    assertEquals(0, ops.release(d + "/a", b)); // commits at the new path
    long r = open(d + "/a", 0);
    assertEquals("bbBB", new String(readAll(d + "/a", r, 4), StandardCharsets.UTF_8));
    ops.release(d + "/a", r);
    // directories: onto an empty one replaces it; onto a non-empty one, ENOTEMPTY
    assertEquals(0, ops.mkdir(ROOT, d + "/x", 0755));
    assertEquals(0, ops.mkdir(ROOT, d + "/y", 0755));
    assertEquals(0, ops.rename(ROOT, d + "/x", d + "/y"));
    assertEquals(-Errno.ENOENT, ops.getattr(ROOT, d + "/x", new FileAttributes[1]));
    assertEquals(0, ops.rename(ROOT, d + "/a", d + "/y/a"));
    assertEquals(0, ops.mkdir(ROOT, d + "/z", 0755));
    assertEquals(-Errno.ENOTEMPTY, ops.rename(ROOT, d + "/z", d + "/y"));
    assertEquals(-Errno.EISDIR, ops.rename(ROOT, d + "/y/a", d + "/z"));
    assertEquals(-Errno.ENOTDIR, ops.rename(ROOT, d + "/z", d + "/y/a"));
    assertEquals(-Errno.EINVAL, ops.rename(ROOT, d + "/y", d + "/y/sub"));
    FileStatus moved = client.namespace().getStatus(d + "/y/a");
    assertEquals(4, moved.length());
    assertFalse(moved.isOpenForWrite());
  }

  @Test
  void readdirStreamsPagesAndResumesFromCookies() throws Exception {
    String d = BASE + "/big";
    client.namespace().mkdirs(d);
    int n = 2300; // three pages of 1000
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = String.format("f%05d", i);
      names.add(name);
      client.namespace().create(d + "/" + name, CreateOptions.file().withLease(false));
    }
    long[] fh = new long[1];
    assertEquals(0, ops.opendir(ROOT, d, fh));
    List<String> seen = new ArrayList<>();
    long[] cookie = {0};
    while (true) { // a reply buffer of 97 entries, as the kernel's fills up
      int[] count = {0};
      assertEquals(0, ops.readdir(ROOT, d, fh[0], cookie[0], (name, attrs, next) -> {
        if (count[0] == 97) {
          return false;
        }
        count[0]++;
        seen.add(name);
        cookie[0] = next;
        if (attrs != null) {
          assertFalse(attrs.isDirectory());
        }
        return true;
      }));
      if (count[0] == 0) {
        break;
      }
    }
    assertEquals(0, ops.releasedir(fh[0]));
    List<String> expect = new ArrayList<>(List.of(".", ".."));
    expect.addAll(names);
    assertEquals(expect, seen);
  }

  @Test
  void attributesOwnersXattrsAndStatfs() {
    String p = BASE + "/attrs";
    long fh = create(p);
    ops.release(p, fh);
    FileAttributes a = stat(p);
    assertEquals(0100644, a.mode());
    assertEquals(0, a.uid());
    assertEquals(0, ops.chmod(ROOT, p, 0600));
    assertEquals(0100600, stat(p).mode());
    assertEquals(0, ops.chown(ROOT, p, 65534, -1));
    assertEquals(65534, stat(p).uid());
    assertEquals(0, ops.utimens(ROOT, p, 1_000_000, 2_000_000));
    assertEquals(2_000_000, stat(p).modificationMillis());
    assertEquals(1_000_000, stat(p).accessMillis());

    byte[] v = "hello".getBytes(StandardCharsets.UTF_8);
    assertEquals(0, ops.setxattr(ROOT, p, "user.greeting", v, 0));
    assertEquals(-Errno.EEXIST, ops.setxattr(ROOT, p, "user.greeting", v, 1));
    assertEquals(-Errno.ENODATA, ops.setxattr(ROOT, p, "user.other", v, 2));
    assertEquals(5, ops.getxattr(ROOT, p, "user.greeting", ByteBuffer.allocate(0)));
    assertEquals(-Errno.ERANGE, ops.getxattr(ROOT, p, "user.greeting", ByteBuffer.allocate(2)));
    ByteBuffer got = ByteBuffer.allocate(64);
    assertEquals(5, ops.getxattr(ROOT, p, "user.greeting", got));
    assertEquals("hello", new String(got.array(), 0, 5, StandardCharsets.UTF_8));
    ByteBuffer list = ByteBuffer.allocate(64);
    int n = ops.listxattr(ROOT, p, list);
    assertEquals("user.greeting\0", new String(list.array(), 0, n, StandardCharsets.UTF_8));
    assertEquals(-Errno.ENODATA, ops.getxattr(ROOT, p, "user.none", ByteBuffer.allocate(8)));
    assertEquals(0, ops.removexattr(ROOT, p, "user.greeting"));
    assertEquals(-Errno.ENODATA, ops.removexattr(ROOT, p, "user.greeting"));
    assertEquals(-Errno.EOPNOTSUPP, ops.setxattr(ROOT, p, "system.posix_acl_access", v, 0));

    ByteBuffer layout = ByteBuffer.allocate(512);
    n = ops.getxattr(ROOT, p, PfsFuseOperations.LAYOUT_XATTR, layout);
    String text = new String(layout.array(), 0, n, StandardCharsets.UTF_8);
    assertTrue(text.startsWith("chunk_size=262144 stripe_count=2 protection=raid6:4+2"), text);
    assertEquals(-Errno.EPERM, ops.setxattr(ROOT, p, PfsFuseOperations.LAYOUT_XATTR, v, 0));

    FsStats[] s = new FsStats[1];
    assertEquals(0, ops.statfs("/", s));
    assertTrue(s[0].blocks() > 0 && s[0].freeBlocks() > 0, s[0].toString());
  }
}
