package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.testing.SharedMiniCluster;
import io.parityfs.testing.SystemDeps;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real mount (jnr-fuse, in this JVM) of the shared cluster, used through the kernel by shell
 * tools and by Java I/O. Skipped, with the reason, where /dev/fuse or libfuse 2 is absent.
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
    client = SharedMiniCluster.get().client(new Caller("root", List.of("root"), 0));
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
    try (ParityClient c2 = SharedMiniCluster.get().client(new Caller("root", List.of("root"), 0));
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
    System.out.printf("dd %d MiB through the mount: write %.0f MiB/s, read %.0f MiB/s%n", mib,
        mib / ((t1 - t0) / 1e9), mib / ((t2 - t1) / 1e9));
    assertEquals((long) mib << 20, Files.size(f));
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
