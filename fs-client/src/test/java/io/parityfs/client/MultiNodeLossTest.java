package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.parityfs.meta.Across;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Layout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * As many nodes lost at once as a policy survives (docs/across-nodes.md §1), on four RAID-6
 * nodes: {@code ec:2+2} reads every byte with any two of its four nodes down, {@code mirror:3}
 * with any two of its three copies' nodes down; one node more and the read fails UNAVAILABLE
 * (the nodes may come back), never with other bytes. Content is keyed by the file's writer generation.
 */
class MultiNodeLossTest extends OwnClusterTest {
  static final int CHUNK = 1 << 20;

  @BeforeAll
  static void start() throws Exception {
    startCluster(4);
  }

  private static byte[] write(String path, Across across, int length) throws IOException {
    client.namespace().mkdirs(parent(path), CreateOptions.directory()
        .withLayout(new Layout(CHUNK, 4, List.of(), "raid6:4+2").withAcross(across)));
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      byte[] data = new byte[length];
      new Random(out.file().generation() * 31 + path.hashCode()).nextBytes(data);
      out.write(data, 0, length / 3);
      out.hflush(); // a partial group stored, then again whole
      out.write(data, length / 3, length - length / 3);
      return data;
    }
  }

  private static String parent(String path) {
    return path.substring(0, path.lastIndexOf('/'));
  }

  private static byte[] read(String path) throws IOException {
    try (PfsInputStream in = client.open(path)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[256 << 10];
      int n;
      while ((n = in.read(buf, 0, buf.length)) > 0) {
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    }
  }

  /** Reads {@code path} with nodes {@code down} stopped, then starts them again. */
  private static void withNodesDown(int[] down, Check check) throws Exception {
    for (int i : down) {
      cluster.stopNode(i);
    }
    try {
      check.run();
    } finally {
      for (int i : down) {
        cluster.restartNode(i);
      }
      cluster.awaitTargets(4);
    }
  }

  interface Check {
    void run() throws Exception;
  }

  @Test
  void ec2plus2ReadsWithAnyTwoNodesDown() throws Exception {
    String path = "/ec22/f";
    byte[] data = write(path, Across.ec(2, 2), 9 * CHUNK + 12_345);
    int[][] pairs = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    for (int[] pair : pairs) {
      withNodesDown(pair, () -> assertArrayEquals(data, read(path),
          "nodes " + pair[0] + " and " + pair[1] + " down"));
    }
    withNodesDown(new int[] {0, 1, 2}, () -> {
      IOException e = assertThrows(IOException.class, () -> read(path));
      assertEquals(ClientStatus.UNAVAILABLE, ClientStatus.of(e), e.toString());
    });
  }

  @Test
  void mirror3ReadsWithTwoOfItsNodesDown() throws Exception {
    String path = "/mirror3/f";
    byte[] data = write(path, Across.mirror(3), 7 * CHUNK + 777);
    int[][] pairs = {{0, 1}, {1, 2}, {2, 3}, {0, 3}};
    for (int[] pair : pairs) {
      withNodesDown(pair, () -> assertArrayEquals(data, read(path),
          "nodes " + pair[0] + " and " + pair[1] + " down"));
    }
    withNodesDown(new int[] {0, 1, 2}, () -> {
      IOException e = assertThrows(IOException.class, () -> read(path));
      assertEquals(ClientStatus.UNAVAILABLE, ClientStatus.of(e), e.toString());
    });
  }
}
