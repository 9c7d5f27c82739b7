package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.parityfs.client.ParityClient;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mount under a node loss (docs/across-nodes.md §3, §5), three RAID-6 nodes, a directory of
 * each policy: through one mount, files are written, then a node is stopped and the files get
 * random writes (overwrites inside, an extension past the end), fsync and close, and a new file
 * is written; no call fails. Through a second mount (its own client), every file reads as the
 * writes left it, with the node still down; then the node is back, caught up, another node is
 * stopped, and every file still reads the same (through a fresh client: the second mount's page
 * cache holds the bytes). Every write's bytes are keyed by its seed.
 */
class FuseNodeLossTest {
  static final int CHUNK = 256 << 10;

  @TempDir
  Path dir;

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static void pwrite(Path file, long at, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        ch.write(b, at + b.position());
      }
      ch.force(true);
    }
  }

  private static byte[] readAll(ParityClient c, String path) throws IOException {
    try (io.parityfs.client.PfsInputStream in = c.open(path)) {
      return in.readAllBytes();
    }
  }

  private static byte[] apply(byte[] model, long at, byte[] bytes) {
    byte[] out = Arrays.copyOf(model, (int) Math.max(model.length, at + bytes.length));
    System.arraycopy(bytes, 0, out, (int) at, bytes.length);
    return out;
  }

  @Test
  void randomWritesThroughOneMountWithANodeDownReadThroughAnother() throws Exception {
    FuseAvailable.assume();
    try (MiniCluster cluster = MiniCluster.startWithTls(dir.resolve("cluster"), 3, "raid6:4+2",
            6);
        ParityClient writerClient = cluster.client(new Caller("root", List.of("root"), 0));
        ParityClient readerClient = cluster.client(new Caller("root", List.of("root"), 0))) {
      Path a = Files.createDirectories(dir.resolve("mnt-a"));
      Path b = Files.createDirectories(dir.resolve("mnt-b"));
      List<String> dirs = List.of("m", "e");
      writerClient.namespace().mkdirs("/m", CreateOptions.directory().withLayout(
          new Layout(CHUNK, 3, List.of(), "raid6:4+2").withAcross(Across.mirror(2))));
      writerClient.namespace().mkdirs("/e", CreateOptions.directory().withLayout(
          new Layout(CHUNK, 3, List.of(), "raid6:4+2").withAcross(Across.ec(2, 1))));
      byte[][] model = new byte[2][];
      byte[][] fresh = new byte[2][];
      try (PfsMount ma = PfsMount.start(writerClient, MountOptions.of(a));
          PfsMount mb = PfsMount.start(readerClient, MountOptions.of(b))) {
        for (int d = 0; d < 2; d++) {
          model[d] = random(6 * CHUNK + 4321, 100 + d);
          Files.write(a.resolve(dirs.get(d)).resolve("f"), model[d]);
        }
        cluster.stopNode(2);
        try {
          for (int d = 0; d < 2; d++) {
            Path f = a.resolve(dirs.get(d)).resolve("f");
            long seed = 200 + 10L * d;
            long[] at = {5, CHUNK - 100, 3L * CHUNK + 4096, 5L * CHUNK + 77, 6L * CHUNK + 9000};
            for (int w = 0; w < at.length; w++) {
              byte[] bytes = random(w == at.length - 1 ? 50_000 : 4096 + w * 30_000, seed + w);
              pwrite(f, at[w], bytes); // the last one past the end: the file grows
              model[d] = apply(model[d], at[w], bytes);
            }
            fresh[d] = random(2 * CHUNK + 5, 300 + d);
            Files.write(a.resolve(dirs.get(d)).resolve("new"), fresh[d]);
          }
          for (int d = 0; d < 2; d++) {
            assertArrayEquals(model[d], Files.readAllBytes(b.resolve(dirs.get(d)).resolve("f")),
                dirs.get(d) + "/f through the other mount, a node down");
            assertArrayEquals(fresh[d], Files.readAllBytes(b.resolve(dirs.get(d))
                .resolve("new")), dirs.get(d) + "/new through the other mount, a node down");
            FileStatus st = readerClient.namespace().getStatus("/" + dirs.get(d) + "/f");
            assertFalse(st.repairs().isEmpty(), "the writes left members out: " + st);
          }
        } finally {
          cluster.restartNode(2);
          cluster.awaitTargets(3);
        }
        for (int d = 0; d < 2; d++) {
          for (String name : List.of("f", "new")) {
            new Repairer(writerClient).repair("/" + dirs.get(d) + "/" + name);
            assertEquals(0, writerClient.namespace().getStatus("/" + dirs.get(d) + "/" + name)
                .repairs().members());
          }
        }
        // read by a fresh client: the second mount's page cache holds these bytes already
        cluster.stopNode(0);
        try (ParityClient c = cluster.client(Caller.of("root"))) {
          for (int d = 0; d < 2; d++) {
            assertArrayEquals(model[d], readAll(c, "/" + dirs.get(d) + "/f"),
                dirs.get(d) + "/f caught up, another node down");
            assertArrayEquals(fresh[d], readAll(c, "/" + dirs.get(d) + "/new"),
                dirs.get(d) + "/new caught up, another node down");
          }
        } finally {
          cluster.restartNode(0);
        }
      }
    }
  }
}
