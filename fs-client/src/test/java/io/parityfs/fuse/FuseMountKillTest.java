package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsFileWriter;
import io.parityfs.client.PfsInputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.FileStatus;
import io.parityfs.testing.SharedMiniCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mount process ({@code parityfs mount} in a child JVM) killed with SIGKILL in the middle of
 * a write: the file keeps what was fsynced, exactly, and its lease can be recovered; stopped
 * with SIGTERM: unmounted and its open file committed; and two mounts in two processes.
 */
class FuseMountKillTest {
  @TempDir
  Path dir;

  @Test
  void killedMountKeepsWhatWasFsyncedAndTheLeaseIsRecoverable() throws Exception {
    FuseAvailable.assume();
    String base = "/fuse-kill-" + Long.toHexString(System.nanoTime());
    Path mnt = Files.createDirectories(dir.resolve("mnt"));
    Path log = dir.resolve("mount.log");
    Process child = startMount(mnt, log);
    try (ParityClient client = SharedMiniCluster.secure().client(Caller.of("root"))) {
      client.namespace().mkdirs(base);
      awaitMount(child, mnt, log);
      byte[] synced = new byte[1 << 20]; // four 256 KiB chunks
      new Random(7).nextBytes(synced);
      Path file = mnt.resolve(base.substring(1)).resolve("ckpt.bin");
      FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE);
      try {
        ch.write(ByteBuffer.wrap(synced));
        ch.force(true); // fsync: committed
        byte[] more = new byte[600_000];
        new Random(8).nextBytes(more);
        ch.write(ByteBuffer.wrap(more)); // in the mount's buffers only
        child.destroyForcibly(); // SIGKILL
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      } finally {
        try {
          ch.close();
        } catch (IOException e) {
          // the mount is dead: ENOTCONN
        }
      }
      PfsMount.unmount(mnt); // the dead mount point ("Transport endpoint is not connected")
      assertFalse(PfsMount.isMounted(mnt));

      String path = base + "/ckpt.bin";
      FileStatus open = client.namespace().getStatus(path);
      assertTrue(open.isOpenForWrite(), "the dead mount's lease is still on the file");
      assertEquals(synced.length, open.length());
      assertTrue(client.recoverLease(path));
      FileStatus closed = client.namespace().getStatus(path);
      assertFalse(closed.isOpenForWrite());
      assertEquals(synced.length, closed.length(), "the length is what was fsynced");
      byte[] got = new byte[synced.length];
      try (PfsInputStream in = client.open(path)) {
        in.readFully(0, ByteBuffer.wrap(got));
      }
      assertArrayEquals(synced, got);
      try (PfsFileWriter w = client.openWriter(path)) { // writable again
        w.write(w.length(), "tail".getBytes(StandardCharsets.UTF_8), 0, 4);
      }
      assertEquals(synced.length + 4, client.namespace().getStatus(path).length());
    } finally {
      child.destroyForcibly();
      if (PfsMount.isMounted(mnt)) {
        PfsMount.unmount(mnt);
      }
    }
  }

  @Test
  void sigtermUnmountsAndCommitsOpenFiles() throws Exception {
    FuseAvailable.assume();
    String base = "/fuse-term-" + Long.toHexString(System.nanoTime());
    Path mnt = Files.createDirectories(dir.resolve("mnt2"));
    Path log = dir.resolve("mount2.log");
    Process child = startMount(mnt, log);
    try (ParityClient client = SharedMiniCluster.secure().client(Caller.of("root"))) {
      client.namespace().mkdirs(base);
      awaitMount(child, mnt, log);
      Path file = mnt.resolve(base.substring(1)).resolve("open.bin");
      FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE);
      try {
        ch.write(ByteBuffer.wrap(new byte[100_000]));
        child.destroy(); // SIGTERM while the file is open: unmounted lazily, the file committed
        Thread.sleep(1000);
      } finally {
        try {
          ch.close();
        } catch (IOException e) {
          // ENOTCONN if the mount went first
        }
      }
      assertTrue(child.waitFor(30, TimeUnit.SECONDS), Files.readString(log));
      assertFalse(PfsMount.isMounted(mnt));
      FileStatus st = client.namespace().getStatus(base + "/open.bin");
      assertFalse(st.isOpenForWrite(), st.toString());
      assertEquals(100_000, st.length());
    } finally {
      child.destroyForcibly();
      if (PfsMount.isMounted(mnt)) {
        PfsMount.unmount(mnt);
      }
    }
  }

  /**
   * Two mounts in two processes (a child JVM's `parityfs mount` and this JVM's): what one
   * closes or fsyncs, the other reads (close-to-open consistency, docs/fuse.md).
   */
  @Test
  void mountsInTwoProcessesSeeEachOthersClosedAndFsyncedWrites() throws Exception {
    FuseAvailable.assume();
    String base = "/fuse-two-" + Long.toHexString(System.nanoTime());
    Path theirs = Files.createDirectories(dir.resolve("child-mnt"));
    Path mine = Files.createDirectories(dir.resolve("my-mnt"));
    Path log = dir.resolve("mount3.log");
    Process child = startMount(theirs, log);
    try (ParityClient client = SharedMiniCluster.secure().client(
        new Caller("root", List.of("root"), 0));
        PfsMount mount = PfsMount.start(client, MountOptions.of(mine))) {
      client.namespace().mkdirs(base);
      awaitMount(child, theirs, log);
      Path there = theirs.resolve(base.substring(1)).resolve("shared.txt");
      Path here = mine.resolve(base.substring(1)).resolve("shared.txt");
      Files.writeString(there, "written by the child process");
      assertEquals("written by the child process", Files.readString(here));
      try (FileChannel ch = FileChannel.open(here, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.wrap("WRITTEN".getBytes(StandardCharsets.UTF_8)), 0);
        ch.force(true); // fsync: visible to the other process before the close
        assertEquals("WRITTEN by the child process", Files.readString(there));
      }
      Files.delete(there);
      assertFalse(Files.exists(here));
    } finally {
      child.destroy();
      child.waitFor(30, TimeUnit.SECONDS);
      child.destroyForcibly();
      if (PfsMount.isMounted(theirs)) {
        PfsMount.unmount(theirs);
      }
    }
  }

  static Process startMount(Path mnt, Path log) throws IOException {
    return startMount(mnt, log, true);
  }

  /**
   * {@code parityfs mount} in a child JVM. {@code pinEncoding}: with {@code -Dfile.encoding=UTF-8
   * -Dsun.jnu.encoding=UTF-8}, as {@code bin/parityfs} runs it (defence in depth); without, and
   * under the POSIX locale, the JVM's default charset is ASCII on JDK 17 (the mount must not
   * depend on it).
   */
  static Process startMount(Path mnt, Path log, boolean pinEncoding) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m"));
    if (pinEncoding) {
      cmd.addAll(List.of("-Dfile.encoding=UTF-8", "-Dsun.jnu.encoding=UTF-8"));
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.parityfs.cli.Main",
        "--zookeeper", SharedMiniCluster.secure().connectString(), "--user", "root", "--groups",
        "root"));
    cmd.addAll(SharedMiniCluster.secure().tlsOptions("client")); // as `local env` exports them
    cmd.addAll(List.of("mount", mnt.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    if (!pinEncoding) {
      pb.environment().put("LC_ALL", "C");
      pb.environment().put("LANG", "C");
    }
    return pb.start();
  }

  /**
   * D15: a mount whose JVM runs under LANG=C with no encoding flags (JDK 17: default charset
   * ASCII, where jnr-fuse's String paths turned every non-ASCII name into '?') keeps names as
   * bytes: {@code é} and {@code è} two entries, {@code \xff} and {@code \xfe} EINVAL.
   */
  @Test
  void aMountUnderThePosixLocaleKeepsNamesAsBytes() throws Exception {
    FuseAvailable.assume();
    String base = "/fuse-names-" + Long.toHexString(System.nanoTime());
    Path mnt = Files.createDirectories(dir.resolve("mnt-c"));
    Path log = dir.resolve("mount-c.log");
    Process child = startMount(mnt, log, false);
    try (ParityClient client = SharedMiniCluster.secure().client(Caller.of("root"))) {
      client.namespace().mkdirs(base);
      awaitMount(child, mnt, log);
      FuseMountTest.checkNamesAreBytes(mnt.resolve(base.substring(1)).resolve("n"), base + "/n",
          client.namespace());
    } finally {
      child.destroy();
      child.waitFor(30, TimeUnit.SECONDS);
      child.destroyForcibly();
      if (PfsMount.isMounted(mnt)) {
        PfsMount.unmount(mnt);
      }
    }
  }

  static void awaitMount(Process child, Path mnt, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!PfsMount.isMounted(mnt)) {
      assertTrue(child.isAlive(), "the mount exited: " + Files.readString(log));
      assertTrue(System.nanoTime() < deadline, "no mount in 60 s: " + Files.readString(log));
      Thread.sleep(50);
    }
  }
}
