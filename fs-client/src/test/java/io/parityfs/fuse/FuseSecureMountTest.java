package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.cli.Main;
import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.FileStatus;
import io.parityfs.testing.MiniCluster;
import io.parityfs.testing.SharedMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mount on a cluster whose nodes speak TLS only (the local cluster's default): without the
 * cluster's certificates {@code parityfs mount} refuses to mount and says why, and a mount
 * whose client the nodes refuse fails the program's writes (fsync, close) instead of leaving an
 * empty file behind a zero exit. Issue 39, item 1.
 */
class FuseSecureMountTest {
  @TempDir
  Path dir;

  /** {@code parityfs} in this JVM: its exit code and what it printed on stderr. */
  private static String[] cli(List<String> args, int[] rc) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      rc[0] = Main.commandLine(System.in, o, e, false).execute(args.toArray(String[]::new));
    }
    return new String[] {out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8)};
  }

  @Test
  void aMountWithoutTheClusterCertificatesFailsAtMountTimeSayingWhy() throws Exception {
    FuseAvailable.assume();
    MiniCluster c = SharedMiniCluster.secure();
    Path mnt = Files.createDirectories(dir.resolve("plain"));
    List<String> args = new ArrayList<>(List.of("--zookeeper", c.connectString(), "--user",
        "root", "--groups", "root"));
    args.addAll(List.of("mount", mnt.toString()));
    int[] rc = new int[1];
    String[] printed = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> cli(args, rc),
        "the mount started serving instead of failing");
    assertEquals(6, rc[0], printed[1]);
    assertTrue(printed[1].contains("no storage node accepted this client"), printed[1]);
    assertTrue(printed[1].contains("plaintext") && printed[1].contains("PARITYFS_TLS_"),
        printed[1]);
    assertFalse(PfsMount.isMounted(mnt));
  }

  @Test
  void writesTheNodesRefuseFailTheProgramNotVanish() throws Exception {
    FuseAvailable.assume();
    MiniCluster c = SharedMiniCluster.secure();
    String base = "/fuse-refused-" + Long.toHexString(System.nanoTime());
    try (ParityClient admin = c.client(Caller.of("root"))) {
      admin.namespace().mkdirs(base);
    }
    Path mnt = Files.createDirectories(dir.resolve("mnt"));
    // a plaintext client, mounted directly (the CLI would refuse it): every chunk write fails
    try (ParityClient plain = ParityClient.connect(ClientConfig.builder(c.zooKeeper()).build(),
            new Caller("root", List.of("root"), 0));
        PfsMount mount = PfsMount.start(plain, MountOptions.of(mnt))) {
      Path dirInMount = mnt.resolve(base.substring(1));
      Path small = dirInMount.resolve("hello");
      // echo hello > f: the write is buffered, the close (FUSE flush) must report the failure
      assertThrows(IOException.class,
          () -> Files.write(small, "hello\n".getBytes(StandardCharsets.UTF_8)));
      Path big = dirInMount.resolve("big");
      try (FileChannel ch = FileChannel.open(big, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE)) {
        IOException failed = assertThrows(IOException.class, () -> {
          ch.write(ByteBuffer.wrap(new byte[3 << 20]));
          ch.force(true);
        });
        assertTrue(failed.getMessage() != null, failed.toString());
      } catch (IOException closeFailed) {
        // close reports it again: fine
      }
    }
    try (ParityClient admin = c.client(Caller.of("root"))) {
      for (String name : List.of("hello", "big")) {
        String path = base + "/" + name;
        if (!admin.namespace().exists(path)) {
          continue;
        }
        FileStatus st = admin.namespace().getStatus(path);
        byte[] back;
        try (PfsInputStream in = admin.open(path)) {
          back = in.readAllBytes();
        }
        assertEquals(st.length(), back.length, path + ": every byte its length claims is stored");
        if (name.equals("big")) {
          assertArrayEquals(new byte[back.length], back, path + ": only what was written");
        }
      }
    }
  }
}
