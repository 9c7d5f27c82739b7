package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsFileWriter;
import io.parityfs.client.PfsInputStream;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.testing.HeldEventThread;
import io.parityfs.testing.SharedMiniCluster;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
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
  /** nobody, with the supplementary group 65533 (a gid with no name here: "65533"). */
  static final Requester NOBODY_IN_65533 = new Requester(65534, 65534, List.of(65534L, 65533L));
  static final Requester OTHER = new Requester(65533, 65533);
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
  void symlinkAndReadlinkAsTheBindingCallsThem() {
    String dir = BASE + "/links";
    assertEquals(0, ops.mkdir(ROOT, dir, 0777));
    assertEquals(0, ops.symlink(NOBODY_IN_65533, "../target dir/é", dir + "/l"));
    FileAttributes a = stat(dir + "/l");
    assertEquals(FileAttributes.S_IFLNK | 0777, a.mode());
    assertEquals("../target dir/é".getBytes(StandardCharsets.UTF_8).length, a.size());
    assertEquals(65534, a.uid(), "owned by the requester");
    byte[][] target = new byte[1][];
    assertEquals(0, ops.readlink(ROOT, dir + "/l", target));
    assertArrayEquals("../target dir/é".getBytes(StandardCharsets.UTF_8), target[0]);
    // libfuse's buffer: the target cut to fit, always ending in a NUL
    assertArrayEquals(new byte[] {'a', 'b', 'c', 0}, PfsFuseOperations.linkBytes(
        "abc".getBytes(StandardCharsets.UTF_8), 4096));
    assertArrayEquals(new byte[] {'a', 'b', 0}, PfsFuseOperations.linkBytes(
        "abc".getBytes(StandardCharsets.UTF_8), 3));
    assertArrayEquals(new byte[] {0}, PfsFuseOperations.linkBytes(
        "abc".getBytes(StandardCharsets.UTF_8), 1));
    // readlink of a file is EINVAL; a name taken is EEXIST; a missing parent ENOENT
    assertEquals(0, ops.release(dir + "/f", create(dir + "/f")));
    assertEquals(-Errno.EINVAL, ops.readlink(ROOT, dir + "/f", target));
    assertEquals(-Errno.EEXIST, ops.symlink(ROOT, "x", dir + "/f"));
    assertEquals(-Errno.EEXIST, ops.symlink(ROOT, "x", dir + "/l"));
    assertEquals(-Errno.ENOENT, ops.symlink(ROOT, "x", dir + "/none/l"));
    assertEquals(-Errno.ENOENT, ops.readlink(ROOT, dir + "/none", target));
    // readdir shows the link as a link
    List<String> links = new ArrayList<>();
    long[] fh = new long[1];
    assertEquals(0, ops.opendir(ROOT, dir, fh));
    assertEquals(0, ops.readdir(ROOT, dir, fh[0], 0, (name, attrs, next) -> {
      if (attrs != null && (attrs.mode() & 0170000) == FileAttributes.S_IFLNK) {
        links.add(name);
      }
      return true;
    }));
    ops.releasedir(fh[0]);
    assertEquals(List.of("l"), links);
    // unlink removes the link, rename moves it
    assertEquals(0, ops.rename(ROOT, dir + "/l", dir + "/m"));
    assertEquals(0, ops.readlink(ROOT, dir + "/m", target));
    assertEquals(0, ops.unlink(ROOT, dir + "/m"));
    assertEquals(-Errno.ENOENT, ops.readlink(ROOT, dir + "/m", target));
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
    // a length whose zeros no target could hold is EFBIG, and nothing changes
    assertEquals(-Errno.EFBIG, ops.ftruncate(ROOT, p, fh, 999_999_999_999_999L));
    assertEquals(-Errno.EFBIG, ops.truncate(ROOT, p, 999_999_999_999_999L));
    assertEquals(901_000, stat(p).size());
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
    assertEquals(-Errno.EACCES, ops.symlink(NOBODY, "/x", d + "/link"));
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

  /**
   * Under a directory with erasure coding across nodes (ec:1+1 on the two nodes: a parity chunk
   * per data chunk), the mount writes randomly, truncates and reads back like anywhere else, for
   * the mount's user and another; the layout xattr names the policy.
   */
  @Test
  void randomWritesUnderErasureCodingAcrossNodes() throws Exception {
    String d = BASE + "/across";
    client.namespace().mkdirs(d, CreateOptions.directory().withLayout(
        SharedMiniCluster.ROOT_LAYOUT.withAcross(Across.ec(1, 1))));
    String p = d + "/f";
    byte[] expect = random(700_000, 11); // three 256 KiB chunks: three groups
    long fh = create(p);
    assertEquals(expect.length, ops.write(p, fh, 0, ByteBuffer.wrap(expect)));
    assertEquals(0, ops.flush(p, fh));
    byte[] patch = random(300_000, 12); // over chunks 0 and 1, both stored already
    assertEquals(patch.length, ops.write(p, fh, 200_000, ByteBuffer.wrap(patch)));
    System.arraycopy(patch, 0, expect, 200_000, patch.length);
    assertEquals(0, ops.ftruncate(ROOT, p, fh, 600_000)); // inside chunk 2
    assertEquals(0, ops.release(p, fh));
    byte[] want = Arrays.copyOf(expect, 600_000);
    long reader = open(p, 0);
    assertArrayEquals(want, readAll(p, reader, want.length));
    assertEquals(0, ops.release(p, reader));
    try (PfsInputStream in = client.open(p)) {
      assertArrayEquals(want, in.readAllBytes(), "through the client too");
    }
    // another user's create: the entry made for them first, then written as for anyone
    assertEquals(0, ops.chmod(ROOT, d, 0777));
    long other = createAs(OTHER, d + "/g");
    assertEquals(5, ops.write(d + "/g", other, 0, ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5})));
    assertEquals(0, ops.release(d + "/g", other));
    assertEquals(5, stat(d + "/g").size());
    ByteBuffer layout = ByteBuffer.allocate(512);
    int n = ops.getxattr(ROOT, p, PfsFuseOperations.LAYOUT_XATTR, layout);
    String text = new String(layout.array(), 0, n, StandardCharsets.UTF_8);
    assertTrue(text.contains(" across=ec:1+1 "), text);
  }

  static long createAs(Requester who, String path) {
    long[] fh = new long[1];
    assertEquals(0, ops.create(who, path, 0644, 01, fh), path);
    return fh[0];
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
    // file capabilities: never stored, so the kernel's check before each write costs nothing
    assertEquals(-Errno.EOPNOTSUPP, ops.setxattr(ROOT, p, "security.capability", v, 0));
    assertEquals(-Errno.ENODATA, ops.getxattr(() -> {
      throw new AssertionError("the requester is not needed");
    }, p, "security.capability", ByteBuffer.allocate(8)));
    assertEquals(0, ops.setxattr(ROOT, p, "security.selinux", v, 0)); // other security.* kept
    assertEquals(v.length, ops.getxattr(ROOT, p, "security.selinux", ByteBuffer.allocate(64)));
    assertEquals(0, ops.removexattr(ROOT, p, "security.selinux"));

    ByteBuffer layout = ByteBuffer.allocate(512);
    n = ops.getxattr(ROOT, p, PfsFuseOperations.LAYOUT_XATTR, layout);
    String text = new String(layout.array(), 0, n, StandardCharsets.UTF_8);
    assertTrue(text.startsWith("chunk_size=262144 stripe_count=2 protection=raid6:4+2"), text);
    assertEquals(-Errno.EPERM, ops.setxattr(ROOT, p, PfsFuseOperations.LAYOUT_XATTR, v, 0));

    FsStats[] s = new FsStats[1];
    assertEquals(0, ops.statfs("/", s));
    assertTrue(s[0].blocks() > 0 && s[0].freeBlocks() > 0, s[0].toString());
  }

  static FileAttributes stat(Requester who, String path) {
    FileAttributes[] a = new FileAttributes[1];
    assertEquals(0, ops.getattr(who, path, a), path);
    return a[0];
  }

  /** A file made by {@code who} in {@code dir}, closed. */
  static void touch(Requester who, String path, int mode) {
    long[] fh = new long[1];
    assertEquals(0, ops.create(who, path, mode, 01, fh), path);
    assertEquals(0, ops.release(path, fh[0]));
  }

  @Test
  void namesOver255BytesAndPathsOverTheLimitAreEnametoolong() {
    String d = BASE + "/long";
    assertEquals(0, ops.mkdir(ROOT, d, 0755));
    String max = "n".repeat(255);
    String over = "n".repeat(256);
    touch(ROOT, d + "/" + max, 0644);
    assertEquals(-Errno.ENAMETOOLONG, ops.create(ROOT, d + "/" + over, 0644, 01, new long[1]));
    assertEquals(-Errno.ENAMETOOLONG, ops.getattr(ROOT, d + "/" + over, new FileAttributes[1]));
    assertEquals(-Errno.ENAMETOOLONG, ops.mkdir(ROOT, d + "/" + over, 0755));
    // a component in the middle, and bytes rather than characters: 128 × "é" is 256 bytes
    assertEquals(-Errno.ENAMETOOLONG, ops.getattr(ROOT, d + "/" + over + "/x",
        new FileAttributes[1]));
    assertEquals(-Errno.ENAMETOOLONG, ops.mkdir(ROOT, d + "/" + "é".repeat(128), 0755));
    assertEquals(0, ops.mkdir(ROOT, d + "/" + "é".repeat(127), 0755));
    assertEquals(-Errno.ENAMETOOLONG, ops.rename(ROOT, d + "/" + max, d + "/" + over));
    assertEquals(-Errno.ENAMETOOLONG, ops.unlink(ROOT, d + "/" + over));
    // the whole path: over the namespace's 8000 bytes (32 names of 250)
    String deep = d + ("/" + "p".repeat(250)).repeat(32);
    assertEquals(-Errno.ENAMETOOLONG, ops.getattr(ROOT, deep, new FileAttributes[1]));
    assertEquals(-Errno.ENOENT, ops.getattr(ROOT, d + "/" + "n".repeat(254),
        new FileAttributes[1]));
  }

  @Test
  void aNewFileTakesItsCreatorsGroupUnlessTheDirectoryIsSetgid() throws Exception {
    String d = BASE + "/groups";
    assertEquals(0, ops.mkdir(ROOT, d, 0777));
    assertEquals(0, ops.chown(ROOT, d, -1, 0)); // root:root, not the 65534 of the base
    touch(NOBODY, d + "/mine", 0644);
    assertEquals(65534, stat(d + "/mine").gid(), "the creator's group, not the parent's");
    assertEquals(0, ops.mkdir(NOBODY, d + "/sub", 0755));
    assertEquals(65534, stat(d + "/sub").gid());
    assertEquals(040755, stat(d + "/sub").mode());
    // a setgid directory: its group, and a new directory inherits the setgid bit
    String sg = d + "/setgid";
    assertEquals(0, ops.mkdir(ROOT, sg, 0777));
    assertEquals(0, ops.chmod(ROOT, sg, 02777));
    touch(NOBODY, sg + "/f", 0644);
    assertEquals(0, stat(sg + "/f").gid());
    assertEquals(0100644, stat(sg + "/f").mode());
    assertEquals(0, ops.mkdir(NOBODY, sg + "/dir", 0755));
    assertEquals(0, stat(sg + "/dir").gid());
    assertEquals(042755, stat(sg + "/dir").mode());
    // a file asking for setgid in a group its creator is not in loses the bit (Linux)
    touch(NOBODY, sg + "/g", 02755);
    assertEquals(0100755, stat(sg + "/g").mode());
    // the Hadoop API keeps HDFS's rule: the parent's group
    client.namespace().as(new Caller("nobody", List.of("nogroup"), 0))
        .create(d + "/hadoop", CreateOptions.file().withLease(false));
    assertEquals("root", client.namespace().getStatus(d + "/hadoop").group());
  }

  @Test
  void anOwnerMayChownToOneOfItsSupplementaryGroups() {
    String d = BASE + "/chown";
    assertEquals(0, ops.mkdir(ROOT, d, 0777));
    String f = d + "/f";
    touch(NOBODY_IN_65533, f, 0644);
    assertEquals(0, ops.chown(NOBODY_IN_65533, f, -1, 65533));
    assertEquals(65533, stat(f).gid());
    assertEquals(-Errno.EPERM, ops.chown(NOBODY_IN_65533, f, -1, 65532), "not its group");
    assertEquals(-Errno.EPERM, ops.chown(NOBODY, f, -1, 65533), "not in it without the group");
    assertEquals(-Errno.EPERM, ops.chown(OTHER, f, -1, 65533), "not the owner");
    assertEquals(-Errno.EPERM, ops.chown(NOBODY_IN_65533, f, 65533, -1), "giving it away");
    assertEquals(0, ops.chown(NOBODY_IN_65533, f, 65534, 65534), "itself and its own group");
    assertEquals(65534, stat(f).gid());
  }

  @Test
  void aWriterWhoIsNotTheOwnerClearsSetuidAndSetgid() {
    String d = BASE + "/setid";
    assertEquals(0, ops.mkdir(ROOT, d, 0755));
    String f = d + "/f";
    touch(ROOT, f, 0644);
    assertEquals(0, ops.chmod(ROOT, f, 06777));
    // what the kernel asks of the mount on nobody's write or truncate: clear the set-id bits
    assertEquals(0, ops.chmod(NOBODY, f, 02777), "clear setuid");
    assertEquals(0102777, stat(f).mode());
    assertEquals(0, ops.chmod(NOBODY, f, 0777), "clear setgid");
    assertEquals(0100777, stat(f).mode());
    // anything else is still the owner's
    assertEquals(-Errno.EPERM, ops.chmod(NOBODY, f, 0666));
    assertEquals(-Errno.EPERM, ops.chmod(NOBODY, f, 04777));
    // and clearing needs write permission
    assertEquals(0, ops.chmod(ROOT, f, 06755));
    assertEquals(-Errno.EPERM, ops.chmod(NOBODY, f, 0755));
    assertEquals(0106755, stat(f).mode());
  }

  @Test
  void utimensOmitsAndNowsEachTimeOnItsOwn() {
    String p = BASE + "/times";
    touch(ROOT, p, 0644);
    long omit = PfsFuseOperations.UTIME_OMIT;
    long now = PfsFuseOperations.UTIME_NOW;
    assertEquals(0, ops.utimens(ROOT, p, 1_000_000, 2_000_000));
    assertEquals(0, ops.utimens(ROOT, p, omit, 5_000_000)); // touch -m -d
    assertEquals(1_000_000, stat(p).accessMillis());
    assertEquals(5_000_000, stat(p).modificationMillis());
    assertEquals(0, ops.utimens(ROOT, p, 7_000_000, omit)); // touch -a -d
    assertEquals(7_000_000, stat(p).accessMillis());
    assertEquals(5_000_000, stat(p).modificationMillis());
    long before = System.currentTimeMillis();
    assertEquals(0, ops.utimens(ROOT, p, omit, now)); // touch -m
    assertTrue(stat(p).modificationMillis() >= before);
    assertEquals(7_000_000, stat(p).accessMillis());
    assertEquals(0, ops.utimens(ROOT, p, omit, omit));
    assertEquals(7_000_000, stat(p).accessMillis());
  }

  @Test
  void timesSetOnAFileOpenForWritingSurviveItsCommitsAndClose() {
    String p = BASE + "/kept-times";
    long fh = create(p);
    ops.write(p, fh, 0, ByteBuffer.wrap("generation 1".getBytes(StandardCharsets.UTF_8)));
    assertEquals(0, ops.utimens(ROOT, p, 1_000_000, 3_000_000)); // cp -p: futimens, then close
    assertEquals(0, ops.flush(p, fh));
    assertEquals(3_000_000, stat(p).modificationMillis(), "after the flush's commit");
    assertEquals(0, ops.release(p, fh));
    assertEquals(3_000_000, stat(p).modificationMillis(), "after the close");
    assertEquals(1_000_000, stat(p).accessMillis());
    assertEquals(12, stat(p).size());
    // a write after the times were set moves the modification time on, as POSIX says
    long w = open(p, 01);
    assertEquals(0, ops.utimens(ROOT, p, 1_000_000, 3_000_000));
    ops.write(p, w, 0, ByteBuffer.wrap("generation 2".getBytes(StandardCharsets.UTF_8)));
    assertEquals(0, ops.release(p, w));
    assertTrue(stat(p).modificationMillis() > 3_000_000);
  }

  /**
   * The kept time travels with the writer's commit: before, the commit stamped "now" and the
   * mount then set the time again as whoever had set it, so a reader in between saw "now" and
   * a re-set that was refused (here: the file given away meanwhile) lost the time for good.
   */
  @Test
  void aTimeSetOnAnOpenFileIsCommittedWithItsLength() {
    String d = BASE + "/kept-in-commit";
    assertEquals(0, ops.mkdir(ROOT, d, 0777));
    String p = d + "/f";
    long[] fh = new long[1];
    assertEquals(0, ops.create(NOBODY, p, 0644, 01, fh));
    ops.write(p, fh[0], 0, ByteBuffer.wrap("written by nobody".getBytes(StandardCharsets.UTF_8)));
    assertEquals(0, ops.utimens(NOBODY, p, 1_000_000, 3_000_000), "the owner sets the times");
    assertEquals(0, ops.chown(ROOT, p, OTHER.uid(), OTHER.gid()), "then gives the file away");
    assertEquals(0, ops.release(p, fh[0]));
    FileAttributes st = stat(p);
    assertEquals(17, st.size());
    assertEquals(3_000_000, st.modificationMillis(), "the time set before the close");
    assertEquals(1_000_000, st.accessMillis());
  }

  @Test
  void theOwnerOfAReadOnlyFileMaySetItsTimes() {
    String d = BASE + "/ro-times";
    assertEquals(0, ops.mkdir(ROOT, d, 0777));
    String f = d + "/f";
    touch(NOBODY, f, 0444);
    long now = PfsFuseOperations.UTIME_NOW;
    assertEquals(0, ops.utimens(NOBODY, f, 1_000_000, 2_000_000), "explicit: the owner");
    assertEquals(2_000_000, stat(f).modificationMillis());
    assertEquals(0, ops.utimens(NOBODY, f, now, now), "now: the owner");
    assertEquals(-Errno.EPERM, ops.utimens(OTHER, f, 1_000_000, 2_000_000), "explicit: others");
    assertEquals(-Errno.EACCES, ops.utimens(OTHER, f, now, now), "now: needs write permission");
    // a writable file: anyone who may write may touch it to now, only its owner set a time
    String g = d + "/g";
    touch(NOBODY, g, 0666);
    assertEquals(0, ops.utimens(OTHER, g, now, now));
    assertEquals(-Errno.EPERM, ops.utimens(OTHER, g, 1_000_000, 2_000_000));
    assertEquals(-Errno.EPERM, ops.utimens(OTHER, g, PfsFuseOperations.UTIME_OMIT, now));
  }

  /**
   * Close-to-open across clients (D12): another client closes a longer file while this
   * client's entry cache still holds the old entry (its ZooKeeper event thread, which delivers
   * the invalidating watch, is held); an open must not be served that stale length.
   */
  @Test
  void openSeesWhatAnotherClientClosedEvenWithAStaleEntryCache() throws Exception {
    String p = BASE + "/c2o.txt";
    byte[] first = "written by the other client, generation 1".getBytes(StandardCharsets.UTF_8);
    byte[] second = "written by the other client, generation 2 (longer)"
        .getBytes(StandardCharsets.UTF_8);
    try (ParityClient other = SharedMiniCluster.get().client(Caller.of("root"))) {
      try (PfsFileWriter w = other.createWriter(p, CreateOptions.file())) {
        w.write(0, first, 0, first.length);
      }
      assertEquals(first.length, stat(p).size()); // now in this client's entry cache
      try (HeldEventThread held = HeldEventThread.hold(client.curator())) {
        try (PfsFileWriter w = other.openWriter(p)) {
          w.truncate(0);
          w.write(0, second, 0, second.length);
        }
        assertEquals(first.length, stat(p).size(), "the cache is stale, as intended");
        AtomicReference<Object> got = new AtomicReference<>();
        Thread reader = new Thread(() -> {
          long[] fh = new long[1];
          int rc = ops.open(ROOT, p, 0, fh);
          if (rc != 0) {
            got.set(rc);
            return;
          }
          got.set(new String(readAll(p, fh[0], 200), StandardCharsets.UTF_8));
          ops.release(p, fh[0]);
        });
        reader.start();
        HeldEventThread.awaitEndedOrWaiting(reader);
        held.close();
        reader.join();
        assertEquals(new String(second, StandardCharsets.UTF_8), got.get());
      }
    }
  }
}
