package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.testing.SharedMiniCluster;
import io.parityfs.testkit.SystemDeps;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real mount (in this JVM: libfuse 3 through jfuse on JDK 22+, else libfuse 2 through
 * jnr-fuse) of the shared cluster, used through the kernel by shell tools and by Java I/O.
 * Skipped, with the reason, where /dev/fuse or the binding's libfuse is absent.
 */
class FuseMountTest {
  static final String BASE = "/fuse-mnt-" + Long.toHexString(System.nanoTime());
  static ParityClient client;
  static PfsMount mount;
  static Path mnt;
  static Path root;
  /** Why every test skips (no FUSE here), or null. */
  static String skipped;

  @TempDir
  static Path local;

  @BeforeAll
  static void mount() throws Exception {
    skipped = FuseAvailable.missing();
    if (skipped != null) {
      return;
    }
    client = SharedMiniCluster.secure().client(new Caller("root", List.of("root"), 0));
    client.namespace().mkdirs(BASE);
    mnt = Files.createTempDirectory("pfs-mnt");
    long t0 = System.nanoTime();
    mount = PfsMount.start(client, MountOptions.of(mnt));
    System.out.printf("mounted in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    root = mnt.resolve(BASE.substring(1));
  }

  @BeforeEach
  void skipWithoutFuse() {
    SystemDeps.skipIf(skipped);
  }

  @AfterAll
  static void unmount() throws IOException {
    try {
      if (mount != null) {
        mount.close();
        assertFalse(PfsMount.isMounted(mnt));
      }
    } finally {
      if (client != null) {
        client.close();
      }
      if (mnt != null) {
        Files.deleteIfExists(mnt);
      }
    }
  }

  /** Runs a command; fails the test with its output unless it exits 0. Returns its output. */
  static String sh(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int rc = p.waitFor();
    assertEquals(0, rc, String.join(" ", cmd) + " -> " + out);
    return out;
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void shellToolsCopyPatchTruncateMoveList() throws Exception {
    Path dir = root.resolve("shell");
    sh("mkdir", "-p", dir.resolve("t/u/v").toString());
    Path src = local.resolve("src.bin");
    Files.write(src, random(1_000_000, 1));
    Path a = dir.resolve("a.bin");
    sh("cp", src.toString(), a.toString());
    sh("cmp", src.toString(), a.toString());
    Path patch = local.resolve("patch.bin");
    Files.write(patch, random(300_000, 2)); // crosses chunk boundaries at 256 KiB
    for (Path p : List.of(src, a)) {
      sh("dd", "if=" + patch, "of=" + p, "bs=1000", "seek=500", "conv=notrunc", "status=none");
    }
    sh("cmp", src.toString(), a.toString());
    for (String size : List.of("123457", "2000000", "300000")) {
      sh("truncate", "-s", size, src.toString());
      sh("truncate", "-s", size, a.toString());
      sh("cmp", src.toString(), a.toString());
    }
    assertEquals(300_000, client.namespace().getStatus(BASE + "/shell/a.bin").length());
    sh("cp", a.toString(), dir.resolve("t/u/v/c.bin").toString());
    sh("mv", a.toString(), dir.resolve("t/u/b.bin").toString());
    sh("mv", dir.resolve("t/u/b.bin").toString(), dir.resolve("t/u/v/c.bin").toString());
    String ls = sh("ls", "-R", dir.toString());
    assertTrue(ls.contains("c.bin") && !ls.contains("a.bin") && !ls.contains("b.bin"), ls);
    sh("cmp", src.toString(), dir.resolve("t/u/v/c.bin").toString());
    assertEquals("644\n", sh("stat", "-c", "%a", dir.resolve("t/u/v/c.bin").toString()));
    sh("chmod", "600", dir.resolve("t/u/v/c.bin").toString());
    assertEquals("600\n", sh("stat", "-c", "%a", dir.resolve("t/u/v/c.bin").toString()));
    assertTrue(sh("df", "-k", dir.toString()).contains("parityfs"));
    sh("rm", "-r", dir.resolve("t").toString());
    assertFalse(client.namespace().exists(BASE + "/shell/t"));
    assertEquals(0, mount.operations().openFiles());
  }

  @Test
  void symbolicLinksThroughTheKernel() throws Exception {
    Path dir = root.resolve("links");
    sh("mkdir", "-p", dir.resolve("ckpt-1000").toString(), dir.resolve("ckpt-2000").toString());
    Files.write(dir.resolve("ckpt-1000/shard-0"), random(300_000, 11));
    Files.write(dir.resolve("ckpt-2000/shard-0"), random(300_000, 12));
    // ln -s: a relative link to a directory, read through, listed, and shown by ls -l
    sh("ln", "-s", "ckpt-1000", dir.resolve("latest").toString());
    assertEquals("ckpt-1000\n", sh("readlink", dir.resolve("latest").toString()));
    assertTrue(Files.isSymbolicLink(dir.resolve("latest")));
    assertTrue(Files.isDirectory(dir.resolve("latest")), "followed by the kernel");
    assertArrayEquals(random(300_000, 11), Files.readAllBytes(dir.resolve("latest/shard-0")));
    String ls = sh("ls", "-l", dir.toString());
    assertTrue(ls.contains("latest -> ckpt-1000"), ls);
    assertTrue(ls.lines().anyMatch(l -> l.startsWith("lrwxrwxrwx") && l.contains("latest")), ls);
    assertEquals("symbolic link 9\n", sh("stat", "-c", "%F %s", dir.resolve("latest")
        .toString()));
    FileStatus st = client.namespace().getStatus(BASE + "/links/latest");
    assertEquals("ckpt-1000", st.linkTarget());
    // writing through the link writes the target
    Files.write(dir.resolve("latest/shard-1"), random(1000, 13));
    assertEquals(1000, client.namespace().getStatus(BASE + "/links/ckpt-1000/shard-1").length());
    // the atomic switch of a "latest" link (ln -sfn makes a new link and renames it over)
    sh("ln", "-sfn", "ckpt-2000", dir.resolve("latest").toString());
    assertEquals("ckpt-2000\n", sh("readlink", dir.resolve("latest").toString()));
    assertArrayEquals(random(300_000, 12), Files.readAllBytes(dir.resolve("latest/shard-0")));
    // an absolute link, a link to a file, and a dangling one
    sh("ln", "-s", dir.resolve("ckpt-1000/shard-0").toString(), dir.resolve("abs").toString());
    sh("cmp", dir.resolve("abs").toString(), dir.resolve("ckpt-1000/shard-0").toString());
    sh("ln", "-s", "nowhere", dir.resolve("dangling").toString());
    assertFalse(Files.exists(dir.resolve("dangling")));
    assertTrue(Files.exists(dir.resolve("dangling"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
    // a loop is the kernel's ELOOP
    sh("ln", "-s", "loop-b", dir.resolve("loop-a").toString());
    sh("ln", "-s", "loop-a", dir.resolve("loop-b").toString());
    Process cat = new ProcessBuilder("cat", dir.resolve("loop-a").toString())
        .redirectErrorStream(true).start();
    String err = new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(cat.waitFor() != 0 && err.contains("symbolic links"), err);
    // mv moves the link (relative to nothing: this one is absolute); rm removes the link only
    sh("mv", dir.resolve("abs").toString(), dir.resolve("ckpt-2000/abs").toString());
    sh("cmp", dir.resolve("ckpt-2000/abs").toString(), dir.resolve("ckpt-1000/shard-0")
        .toString());
    sh("rm", dir.resolve("latest").toString(), dir.resolve("dangling").toString());
    assertFalse(Files.exists(dir.resolve("latest"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
    assertTrue(Files.isDirectory(dir.resolve("ckpt-2000")));
    sh("rm", "-r", dir.toString());
    assertFalse(client.namespace().exists(BASE + "/links"));
  }

  @Test
  void extendedAttributesAndTheLayout() throws Exception {
    Path f = root.resolve("xattr.txt");
    Files.writeString(f, "x");
    UserDefinedFileAttributeView view =
        Files.getFileAttributeView(f, UserDefinedFileAttributeView.class);
    view.write("color", StandardCharsets.UTF_8.encode("blue"));
    assertEquals(List.of("color"), view.list());
    assertArrayEquals("blue".getBytes(StandardCharsets.UTF_8),
        client.namespace().getXAttr(BASE + "/xattr.txt", "user.color"));
    String layout = sh("python3", "-c", "import os,sys; sys.stdout.write(os.getxattr(sys.argv[1],"
        + " 'parityfs.layout').decode())", f.toString());
    assertTrue(layout.startsWith("chunk_size=262144 stripe_count=2"), layout);
  }

  @Test
  void twoMountsSeeEachOthersWritesAfterClose() throws Exception {
    Path other = Files.createTempDirectory("pfs-mnt2");
    try (ParityClient c2 = SharedMiniCluster.secure().client(new Caller("root", List.of("root"),
            0));
        PfsMount m2 = PfsMount.start(c2, MountOptions.of(other))) {
      Path there = other.resolve(BASE.substring(1)).resolve("shared.txt");
      Path here = root.resolve("shared.txt");
      Files.writeString(here, "first");
      assertEquals("first", Files.readString(there));
      Files.writeString(there, "second, longer");
      assertEquals("second, longer", Files.readString(here));
      try (RandomAccessFile w = new RandomAccessFile(here.toFile(), "rw")) {
        w.seek(8);
        w.write("LONGER".getBytes(StandardCharsets.UTF_8));
        w.getFD().sync(); // fsync: the other mount sees it before the close
        assertEquals("second, LONGER", Files.readString(there));
      }
    } finally {
      Files.deleteIfExists(other);
    }
  }

  @Test
  void randomOperationsMatchALocalDirectory() throws Exception {
    Path mine = root.resolve("random");
    Path theirs = local.resolve("random");
    Files.createDirectories(mine);
    Files.createDirectories(theirs);
    Random rnd = new Random(42);
    List<String> dirs = new ArrayList<>(List.of(""));
    int opsDone = 0;
    long t0 = System.nanoTime();
    while (opsDone < 80) {
      List<String> fileList = files(theirs);
      int op = rnd.nextInt(10);
      String d = dirs.get(rnd.nextInt(dirs.size()));
      String newName = (d.isEmpty() ? "" : d + "/") + "n" + rnd.nextInt(1000);
      if (Files.exists(theirs.resolve(newName))) {
        continue;
      }
      if (op <= 3 || fileList.isEmpty()) { // write at an offset (a new file or an old one)
        String f = op <= 1 || fileList.isEmpty() ? newName
            : fileList.get(rnd.nextInt(fileList.size()));
        long size = Files.exists(theirs.resolve(f)) ? Files.size(theirs.resolve(f)) : 0;
        long at = (long) (rnd.nextDouble() * (size + 300_000));
        byte[] data = random(1 + rnd.nextInt(400_000), rnd.nextLong());
        for (Path r : List.of(theirs, mine)) {
          try (RandomAccessFile w = new RandomAccessFile(r.resolve(f).toFile(), "rw")) {
            w.seek(at);
            w.write(data);
          }
        }
      } else if (op == 4) { // truncate, up or down
        String f = fileList.get(rnd.nextInt(fileList.size()));
        long len = rnd.nextInt(900_000);
        for (Path r : List.of(theirs, mine)) {
          try (RandomAccessFile w = new RandomAccessFile(r.resolve(f).toFile(), "rw")) {
            w.setLength(len);
          }
        }
      } else if (op == 5 || op == 6) { // rename a file, onto an existing one half the time
        String f = fileList.get(rnd.nextInt(fileList.size()));
        String to = rnd.nextBoolean() ? fileList.get(rnd.nextInt(fileList.size())) : newName;
        for (Path r : List.of(theirs, mine)) {
          Files.move(r.resolve(f), r.resolve(to), StandardCopyOption.REPLACE_EXISTING,
              StandardCopyOption.ATOMIC_MOVE);
        }
      } else if (op == 7) { // unlink
        String f = fileList.get(rnd.nextInt(fileList.size()));
        for (Path r : List.of(theirs, mine)) {
          Files.delete(r.resolve(f));
        }
      } else if (op == 8) { // mkdir
        for (Path r : List.of(theirs, mine)) {
          Files.createDirectory(r.resolve(newName));
        }
        dirs.add(newName);
      } else { // rename a directory (not the top) to a new name at the top
        if (dirs.size() < 2) {
          continue;
        }
        String from = dirs.get(1 + rnd.nextInt(dirs.size() - 1));
        String to = "d" + rnd.nextInt(1000);
        if (Files.exists(theirs.resolve(to)) || to.startsWith(from)) {
          continue;
        }
        for (Path r : List.of(theirs, mine)) {
          Files.move(r.resolve(from), r.resolve(to), StandardCopyOption.ATOMIC_MOVE);
        }
        List<String> renamed = new ArrayList<>();
        for (String x : dirs) {
          renamed.add(x.equals(from) || x.startsWith(from + "/")
              ? to + x.substring(from.length()) : x);
        }
        dirs.clear();
        dirs.addAll(renamed);
      }
      opsDone++;
    }
    System.out.printf("80 random operations in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    assertEquals(tree(theirs).keySet(), tree(mine).keySet());
    for (var e : tree(theirs).entrySet()) {
      if (e.getValue()) {
        assertEquals(-1, Files.mismatch(theirs.resolve(e.getKey()), mine.resolve(e.getKey())),
            e.getKey());
      }
    }
    sh("diff", "-r", theirs.toString(), mine.toString());
  }

  @Test
  void sequentialThroughput() throws Exception {
    Path f = root.resolve("seq.bin");
    int mib = 32;
    long t0 = System.nanoTime();
    sh("dd", "if=/dev/zero", "of=" + f, "bs=1M", "count=" + mib, "status=none");
    long t1 = System.nanoTime();
    sh("dd", "if=" + f, "of=/dev/null", "bs=1M", "status=none");
    long t2 = System.nanoTime();
    System.out.printf("dd %d MiB through the mount (%s): write %.0f MiB/s, read %.0f MiB/s;"
        + " largest requests: write %d KiB, read %d KiB%n", mib, mount.binding(),
        mib / ((t1 - t0) / 1e9), mib / ((t2 - t1) / 1e9),
        mount.operations().largestWrite() >> 10, mount.operations().largestRead() >> 10);
    assertEquals((long) mib << 20, Files.size(f));
    // libfuse 3 wherever it can load (JDK 22+, fuse3 installed), with the 1 MiB requests it
    // asks for; else libfuse 2's 128 KiB
    boolean libfuse3 = FuseBindings.libfuse3Unavailable() == null;
    assertEquals(libfuse3 ? "libfuse 3 (jfuse), 1024 KiB requests"
        : "libfuse 2 (jnr-fuse), 128 KiB requests", mount.binding());
    assertEquals(libfuse3 ? 1 << 20 : 128 << 10, mount.operations().largestWrite());
    if (libfuse3 && Files.isWritable(Path.of("/sys/class/bdi"))) {
      // root raised the mount's read-ahead: reads come in requests larger than 128 KiB too
      assertTrue(mount.operations().largestRead() > 128 << 10,
          "largest read " + mount.operations().largestRead());
    } else {
      assertTrue(mount.operations().largestRead() <= 128 << 10);
    }
  }

  /**
   * What each binding fills in: st_ino is the namespace's inode id, st_blocks is the
   * operations', st_blksize the request size, statfs's inode and block counts (df -i, df) too;
   * an open file's unlink leaves no .fuse_hidden file (hard_remove)
   * and its descriptor answers errors, the mount carrying on; and {@code mv -n}
   * (renameat2's RENAME_NOREPLACE where the binding has it) keeps an existing destination.
   */
  @Test
  void inodesBlocksHardRemoveAndNoReplaceThroughTheBinding() throws Exception {
    Path dir = root.resolve("binding");
    Files.createDirectories(dir);
    Path f = dir.resolve("f.bin");
    Files.write(f, random(300_000, 9));
    FileAttributes[] a = new FileAttributes[1];
    assertEquals(0, mount.operations().getattr(new Requester(0, 0), BASE + "/binding/f.bin", a));
    assertEquals(client.namespace().getStatus(BASE + "/binding/f.bin").id(), a[0].inode());
    int ioSize = FuseBindings.libfuse3Unavailable() == null ? 1 << 20 : a[0].blockSize();
    assertEquals(a[0].inode() + " " + a[0].blocks() + " " + ioSize,
        sh("stat", "-c", "%i %b %o", f.toString()).trim()); // st_blksize: the request size
    FsStats[] fs = new FsStats[1];
    assertEquals(0, mount.operations().statfs("/", fs));
    assertEquals(fs[0].files() + " " + fs[0].blocks(),
        sh("stat", "-f", "-c", "%c %b", mnt.toString()).trim()); // df -i, df

    Path open = dir.resolve("open.bin");
    Files.write(open, random(1000, 10));
    try (RandomAccessFile r = new RandomAccessFile(open.toFile(), "r")) {
      Files.delete(open);
      try (Stream<Path> list = Files.list(dir)) {
        assertEquals(List.of("f.bin"), list.map(p -> p.getFileName().toString()).toList());
      }
      // fstat, read and close of the unlinked file, for which libfuse passes no path: an
      // error (the file is gone at once, docs/fuse.md "Not supported"), not a dead mount
      assertThrows(IOException.class, () -> r.readFully(new byte[1000], 0, r.length() > 0
          ? 1000 : 1));
    }
    assertEquals(300_000, Files.size(f));

    Path g = dir.resolve("g.bin");
    Files.write(g, random(10, 11));
    sh("mv", "-n", f.toString(), g.toString());
    assertArrayEquals(random(10, 11), Files.readAllBytes(g));
    assertEquals(300_000, Files.size(f));
  }

  /** A command's exit status and output (stdout and stderr). */
  record Result(int rc, String out) {}

  /**
   * Runs a bash script under the POSIX locale (LC_ALL=C: names are bytes to the shell and its
   * tools), optionally as another user through {@code setpriv} (e.g. {@code "--reuid=65534",
   * "--regid=65534", "--groups=65533"}).
   */
  static Result bash(String script, String... setpriv) throws Exception {
    List<String> cmd = new ArrayList<>();
    if (setpriv.length > 0) {
      cmd.add("setpriv");
      cmd.addAll(List.of(setpriv));
      cmd.add("--");
    }
    cmd.addAll(List.of("bash", "-c", script));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(Map.of("LC_ALL", "C", "LANG", "C"));
    pb.environment().remove("LANGUAGE");
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    return new Result(p.waitFor(), out);
  }

  /**
   * Names are bytes (D15), whatever the mount's JVM charset: under LANG=C, {@code é} and
   * {@code è} are two entries, listed back as their UTF-8 bytes; {@code \xff} and {@code \xfe}
   * (not UTF-8) are refused with EINVAL rather than both becoming U+FFFD; and a name of 256
   * bytes is ENAMETOOLONG.
   */
  static void checkNamesAreBytes(Path dir, String nsDir, Namespace ns) throws Exception {
    Files.createDirectories(dir);
    String cd = "cd '" + dir + "' && ";
    Result made = bash(cd + "touch $'\\xc3\\xa9' $'\\xc3\\xa8' && ls | od -An -tx1");
    assertEquals(0, made.rc(), made.out());
    assertTrue(made.out().contains("c3 a8 0a c3 a9 0a"), made.out()); // è then é, as bytes
    List<String> names = new ArrayList<>();
    for (FileStatus st : ns.listAll(nsDir)) {
      names.add(st.path().substring(nsDir.length() + 1));
    }
    assertEquals(List.of("\u00e8", "\u00e9"), names);
    for (String bad : List.of("\\xff", "\\xfe")) {
      Result r = bash(cd + "touch $'" + bad + "'");
      assertNotEquals(0, r.rc(), r.out());
      assertTrue(r.out().contains("Invalid argument"), r.out());
    }
    Result r = bash(cd + "touch $(printf 'n%.0s' $(seq 256))");
    assertTrue(r.rc() != 0 && r.out().contains("File name too long"), r.out());
    assertEquals(0, bash(cd + "touch $(printf 'n%.0s' $(seq 255))").rc());
    assertEquals(3, ns.listAll(nsDir).size());
  }

  @Test
  void namesAreBytesNotTheJvmsCharset() throws Exception {
    checkNamesAreBytes(root.resolve("names"), BASE + "/names", client.namespace());
  }

  /**
   * {@code touch -m -d}, {@code cp -p} and {@code tar xf} leave the times they set: one time
   * set with the other omitted, and times set on a file open for writing (cp's futimens before
   * its close, tar's) surviving the close's commit.
   */
  @Test
  void touchCpPreserveAndTarKeepTheirModificationTimes() throws Exception {
    Path dir = root.resolve("times");
    Files.createDirectories(dir);
    Path f = dir.resolve("f");
    Files.writeString(f, "x");
    Result r = bash("touch -a -d '1999-12-31 23:59:59 UTC' '" + f + "' && touch -m -d"
        + " '2001-02-03 04:05:06 UTC' '" + f + "' && stat -c '%X %Y' '" + f + "'");
    assertEquals(new Result(0, "946684799 981173106\n"), r);

    Path src = local.resolve("old.bin");
    Files.write(src, random(300_000, 5)); // more than one chunk
    Path tree = local.resolve("tree");
    Files.createDirectories(tree.resolve("sub"));
    Files.write(tree.resolve("a"), random(1000, 6));
    Files.write(tree.resolve("sub/b"), random(600_000, 7));
    String prepare = "touch -d '2002-03-04 05:06:07 UTC' '" + src + "' && cd '" + local
        + "' && touch -d '2003-01-01 00:00:01 UTC' tree/a && touch -d '2004-01-01 00:00:02 UTC'"
        + " tree/sub/b && touch -d '2005-01-01 00:00:03 UTC' tree/sub tree && tar cf t.tar tree";
    assertEquals(0, bash(prepare).rc());
    assertEquals(0, bash("cp -p '" + src + "' '" + dir + "/copy' && tar xf '" + local
        + "/t.tar' -C '" + dir + "'").rc());
    String stat = "stat -c '%n %Y' ";
    assertEquals(bash("cd '" + local + "' && " + stat + "old.bin tree tree/a tree/sub"
        + " tree/sub/b").out().replace("old.bin", "copy"),
        bash("cd '" + dir + "' && " + stat + "copy tree tree/a tree/sub tree/sub/b").out());
    sh("cmp", src.toString(), dir.resolve("copy").toString());
    sh("diff", "-r", tree.toString(), dir.resolve("tree").toString());
  }

  /**
   * The POSIX rules that depend on who asks, through the kernel, as nobody (65534, with the
   * supplementary group 65533) in a mount that lets other users in: a new file's group is its
   * creator's (a setgid directory's inside one, and a new directory there is setgid); the owner
   * of a read-only file sets its times; an owner chgrps to a supplementary group, which clears
   * setuid/setgid; a write by a non-owner clears setuid/setgid instead of failing.
   */
  @Test
  void posixRulesThatDependOnTheCallerThroughTheKernel() throws Exception {
    Path other = Files.createTempDirectory("pfs-mnt-all");
    try (PfsMount all = PfsMount.start(client, MountOptions.of(other).withAllowOther(true))) {
      Path dir = other.resolve(BASE.substring(1)).resolve("posix");
      String q = "'" + dir + "'";
      assertEquals(0, bash("mkdir " + q + " && chgrp 0 " + q + " && chmod 0777 " + q
          + " && mkdir " + q + "/sg && chgrp 0 " + q + "/sg && chmod 2777 " + q + "/sg"
          + " && echo root > " + q + "/theirs && chmod 6777 " + q + "/theirs").rc());
      String script = "set -e; cd " + q + "\n"
          + "echo hello > mine; stat -c 'group %g' mine\n"
          + "mkdir sg/sub; echo x > sg/f; stat -c 'setgid dir %g %a' sg/sub; stat -c"
          + " 'in setgid %g %a' sg/f\n"
          + "chmod 0444 mine; touch -m -d '2001-02-03 04:05:06 UTC' mine; stat -c 'times %Y' mine\n"
          + "chmod 6755 mine; chgrp 65533 mine; stat -c 'chgrp %g %a' mine\n"
          + "echo more >> theirs; stat -c 'written %a %s' theirs\n";
      Result r = bash(script, "--reuid=65534", "--regid=65534", "--groups=65533");
      assertEquals(new Result(0, "group 65534\nsetgid dir 0 2755\nin setgid 0 644\n"
          + "times 981173106\nchgrp 65533 755\nwritten 777 10\n"), r);
    } finally {
      Files.deleteIfExists(other);
    }
  }

  /** Relative path → whether it is a file, for every entry under {@code top}. */
  static TreeMap<String, Boolean> tree(Path top) throws IOException {
    TreeMap<String, Boolean> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(top)) {
      s.filter(p -> !p.equals(top))
          .forEach(p -> out.put(top.relativize(p).toString(), Files.isRegularFile(p)));
    }
    return out;
  }

  static List<String> files(Path top) throws IOException {
    List<String> out = new ArrayList<>();
    tree(top).forEach((k, v) -> {
      if (v) {
        out.add(k);
      }
    });
    return out;
  }
}
