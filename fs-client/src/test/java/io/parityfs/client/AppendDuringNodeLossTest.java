package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.Repairer;
import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.chunks.StoredChunk;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Append and truncate while one of a file's nodes is down (docs/across-nodes.md §5), both
 * policies: the new writer's fence reads around the down target, whose members go in the
 * file's repair record with the writer's first commit, so no reader uses what it holds (the
 * bytes of before); the file reads whole with the node down, and once it is back and caught up
 * also with another node down. Content is keyed by path and writer generation.
 */
class AppendDuringNodeLossTest extends StripedClusterTest {
  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/m", CreateOptions.directory().withLayout(
        STRIPED.withAcross(Across.mirror(2))));
    client.namespace().mkdirs("/e", CreateOptions.directory().withLayout(
        STRIPED.withAcross(Across.ec(2, 1))));
  }

  private static byte[] content(String path, FileStatus f, int n) {
    return random(n, path.hashCode() * 1_000_003L + f.generation());
  }

  private static byte[] readWhole(String path) throws IOException {
    try (PfsInputStream in = client.open(path)) {
      return readAll(in);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /** Catch-up with every node up, then the file read with another of its nodes down. */
  private void caughtUpThenReadWithAnotherDown(String path, String down, byte[] expected)
      throws Exception {
    restart();
    Repairer.Outcome o = new Repairer(client).repair(path);
    assertEquals(0, o.waiting(), o.toString());
    FileStatus f = client.namespace().getStatus(path);
    assertTrue(f.repairs().isEmpty(), f.repairs().toString());
    // nothing of before past the end is left on the target that was down
    ChunkMap map = ChunkMap.of(f.layout());
    long data = map.dataChunks(f.length());
    int k = f.layout().across().isErasureCoded() ? f.layout().across().data() : 1;
    int m = Math.max(1, f.layout().across().parity());
    for (StoredChunk c : client.chunks().list(down, f.id(), 0, 1000).chunks()) {
      boolean beyond = map.isParity(c.index())
          ? (c.index() - ChunkMap.PARITY_BASE) / m >= (data + k - 1) / k : c.index() >= data;
      assertFalse(beyond, path + ": chunk " + c.index() + " past the end on " + down);
    }
    String other = f.layout().targets().stream().filter(t -> !t.equals(down)).findFirst()
        .orElseThrow();
    stopNodeOf(other);
    assertArrayEquals(expected, readWhole(path), path + " with " + other + " down, caught up");
  }

  @Test
  void appendWhileANodeIsDown() throws Exception {
    for (String path : new String[] {"/m/a", "/e/a"}) {
      byte[] base;
      try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
        base = content(path, out.file(), 2 * CHUNK + 12_345); // a partial last chunk
        out.write(base);
      }
      Layout layout = client.namespace().getStatus(path).layout();
      String down = layout.targets().get(2);
      stopNodeOf(down);
      byte[] more;
      try (PfsOutputStream out = client.append(path)) {
        more = content(path, out.file(), CHUNK + 777);
        out.write(more);
      }
      byte[] all = concat(base, more);
      FileStatus f = client.namespace().getStatus(path);
      assertEquals(1, f.generation());
      assertTrue(f.repairs().targets().contains(down), path + ": " + f.repairs());
      assertArrayEquals(all, readWhole(path), path + " with " + down + " down");
      caughtUpThenReadWithAnotherDown(path, down, all);
      restart();
    }
  }

  @Test
  void truncateWhileANodeIsDown() throws Exception {
    for (String path : new String[] {"/m/t", "/e/t"}) {
      byte[] base;
      try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
        base = content(path, out.file(), 4 * CHUNK + 999);
        out.write(base);
      }
      String down = client.namespace().getStatus(path).layout().targets().get(1);
      stopNodeOf(down);
      int shorter = CHUNK + CHUNK / 3; // mid-chunk, mid-group
      client.truncate(path, shorter);
      FileStatus f = client.namespace().getStatus(path);
      assertEquals(shorter, f.length());
      assertFalse(f.repairs().isEmpty(), path + ": the down target's members are recorded");
      byte[] expected = Arrays.copyOf(base, shorter);
      assertArrayEquals(expected, readWhole(path), path + " with " + down + " down");
      client.truncate(path, shorter + 5000); // extended with zeros
      expected = Arrays.copyOf(base, shorter + 5000);
      Arrays.fill(expected, shorter, shorter + 5000, (byte) 0);
      assertArrayEquals(expected, readWhole(path), path + " extended with " + down + " down");
      caughtUpThenReadWithAnotherDown(path, down, expected);
      restart();
    }
  }
}
