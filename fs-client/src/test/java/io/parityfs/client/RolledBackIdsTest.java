package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.testing.MiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resurrection a rolled-back id counter made possible (ZooKeeper restored from a backup
 * older than a file): a new file given the old file's id, extended without writing, read the old
 * writer's chunk as its own bytes. The node advertises the highest file id it holds, and the
 * namespace hands out ids only above it.
 */
class RolledBackIdsTest {
  private static final int CHUNK = 256 << 10;
  private static final String ROOT = "/parityfs/ns";

  @TempDir
  Path dir;

  /** Bytes that say who wrote them: the writer's name and generation, at every offset. */
  private static byte[] keyed(String writer, long generation, int n) {
    byte[] b = new byte[n];
    byte[] tag = (writer + "@" + generation + ";").getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < n; i++) {
      b[i] = tag[i % tag.length];
    }
    return b;
  }

  @Test
  void aFileCreatedAfterTheNamespaceRolledBackNeverReadsTheChunksOfTheFileThatHadItsId()
      throws Exception {
    try (MiniCluster cluster = MiniCluster.start(dir, 1, "raid6:4+2", 6)) {
      Layout layout = new Layout(CHUNK, 1, List.of(), "raid6:4+2");
      long oldId;
      byte[] old;
      try (ParityClient a = cluster.client(Caller.of("root"))) {
        a.namespace().mkdirs("/d", CreateOptions.directory().withLayout(layout));
        FileStatus f = a.namespace().statusOrNull("/d");
        try (PfsOutputStream out = a.create("/d/old", CreateOptions.file())) {
          FileStatus s = a.namespace().getStatus("/d/old");
          old = keyed("old-writer", s.generation(), CHUNK);
          out.write(old);
        }
        oldId = a.namespace().getStatus("/d/old").id();
        CuratorFramework zk = a.curator();
        // the node advertises the highest file id it holds in its target record
        String target = a.registry().targets().get(0).id();
        cluster.nodes().get(0).registration().refreshSoon();
        long end = System.nanoTime() + 30_000_000_000L;
        while (advertised(zk, target) < oldId) {
          assertTrue(System.nanoTime() < end, "the node never advertised file " + oldId);
          Thread.sleep(20);
        }
        // the restore of a backup taken before /d/old: its entry and its id are gone
        zk.delete().forPath(entryOf(zk, f.id(), "old"));
        zk.setData().forPath(ROOT + "/ids", Long.toString(oldId)
            .getBytes(StandardCharsets.US_ASCII));
      }
      try (ParityClient b = cluster.client(Caller.of("root"))) { // a fresh block of ids
        // the path is made again (in the bucket the restored namespace still has)
        FileStatus created = b.namespace().create("/d/old", CreateOptions.file().withLease(true));
        assertTrue(created.id() > oldId, "new file " + created.id() + " got an id at or below"
            + " the advertised " + oldId);
        // extended without a write (a sparse length), then read
        b.namespace().complete("/d/old", created.id(), -1, CHUNK);
        byte[] read;
        try (PfsInputStream in = b.open("/d/old")) {
          read = readAll(in);
        } catch (IOException missing) {
          read = null; // an absent chunk refused: also not the old writer's bytes
        }
        if (read != null) {
          assertFalse(Arrays.equals(old, read), "the new file reads the old writer's chunk");
          assertArrayEquals(new byte[CHUNK], read);
        }
      }
    }
  }

  private static long advertised(CuratorFramework zk, String target) throws Exception {
    return RegistryCodec.decode(zk.getData().forPath(ZkPaths.target(target)),
        TargetRecord.class, target).maxFileId();
  }

  /** The znode of directory {@code dirId}'s entry {@code name} (docs/metadata.md's layout). */
  private static String entryOf(CuratorFramework zk, long dirId, String name) throws Exception {
    String container = ROOT + "/dirs/" + String.format("%02X", dirId & 0xff) + "/"
        + String.format("%010x", dirId);
    for (String bucket : zk.getChildren().forPath(container)) {
      if (zk.getChildren().forPath(container + "/" + bucket).contains(name)) {
        return container + "/" + bucket + "/" + name;
      }
    }
    throw new AssertionError(name + " not in " + container);
  }

  private static byte[] readAll(PfsInputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[64 << 10];
    int n;
    while ((n = in.read(buf, 0, buf.length)) > 0) {
      out.write(buf, 0, n);
    }
    assertEquals(CHUNK, out.size());
    return out.toByteArray();
  }
}
