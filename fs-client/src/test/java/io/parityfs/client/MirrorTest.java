package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.TargetId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code mirror:2} across nodes on three RAID-6 nodes: every chunk is stored on two targets of
 * two distinct nodes, each copy with the writer's group tag, and a reader is served from the
 * surviving copy while one node is down: sequential, positional and random-write files alike.
 * Content is keyed by the writer generation, so a stale copy or a resurrected old byte would not
 * compare equal.
 */
class MirrorTest extends StripedClusterTest {
  static final Layout MIRRORED = STRIPED.withAcross(Across.mirror(2));

  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/m", CreateOptions.directory().withLayout(MIRRORED));
  }

  /** The bytes of copy {@code copy} of chunk {@code index}, read from its target directly. */
  private static byte[] copyBytes(FileStatus f, int index, int copy, ChunkStat[] stat)
      throws IOException {
    String target = ChunkIo.copyTargets(f.layout(), index).get(copy);
    TargetInfo t = client.registry().target(target).orElseThrow();
    ByteBuffer dst = ByteBuffer.allocate(CHUNK);
    stat[0] = client.nodes().readChunkWithStat(t.socketAddress(), TargetId.of(target),
        new ChunkId(f.id(), index), 0, dst);
    return Arrays.copyOf(dst.array(), dst.position());
  }

  /** Content keyed by the file's writer generation and a seed. */
  private static byte[] content(int n, FileStatus f, long seed) {
    return random(n, seed * 1_000_003L + f.generation());
  }

  @Test
  void everyChunkIsOnTwoNodesWithOneTagAndReadsSurviveANodeDown() throws Exception {
    String path = "/m/seq";
    PfsOutputStream out = client.create(path, CreateOptions.file());
    byte[] data = content(5 * CHUNK + 12_345, out.file(), 1);
    out.write(data, 0, 2 * CHUNK + 100);
    out.hflush(); // the partial chunk 2 is stored, then stored again longer
    out.write(data, 2 * CHUNK + 100, data.length - 2 * CHUNK - 100);
    out.close();
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(data.length, f.length());

    for (int i = 0; i < 6; i++) {
      List<String> copies = ChunkIo.copyTargets(f.layout(), i);
      Set<String> nodes = new HashSet<>();
      for (String t : copies) {
        nodes.add(client.registry().target(t).orElseThrow().nodeId());
      }
      assertEquals(2, nodes.size(), "chunk " + i + "'s copies are on two nodes: " + copies);
      ChunkStat[] s0 = new ChunkStat[1];
      ChunkStat[] s1 = new ChunkStat[1];
      byte[] c0 = copyBytes(f, i, 0, s0);
      byte[] c1 = copyBytes(f, i, 1, s1);
      int from = i * CHUNK;
      byte[] want = Arrays.copyOfRange(data, from, Math.min(data.length, from + CHUNK));
      assertArrayEquals(want, c0, "copy 0 of chunk " + i);
      assertArrayEquals(want, c1, "copy 1 of chunk " + i);
      assertTrue(s0[0].tagged(), "copy 0 of chunk " + i + " carries a group tag: " + s0[0]);
      assertEquals(f.generation(), s0[0].generation());
      assertEquals(s0[0].sequence(), s1[0].sequence(), "both copies of chunk " + i
          + " were written by one write");
    }

    stopNodeOf(ChunkIo.targetOf(f.layout(), 0)); // chunk 0's first copy, and a third of all
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(data, readAll(in), "every byte, from the surviving copies");
    }
    try (PfsInputStream in = client.open(path, 0)) {
      byte[] part = new byte[CHUNK];
      in.readFully(3 * CHUNK - 500, ByteBuffer.wrap(part));
      assertArrayEquals(Arrays.copyOfRange(data, 3 * CHUNK - 500, 4 * CHUNK - 500), part,
          "a positional read across chunks 2 and 3");
    }
  }

  @Test
  void randomWritesAndTruncateKeepBothCopiesEqual() throws Exception {
    String path = "/m/random";
    try (PfsFileWriter w = client.createWriter(path, CreateOptions.file())) {
      byte[] base = content(3 * CHUNK, w.file(), 2);
      w.write(0, base, 0, base.length);
      w.flush();
      byte[] patch = content(300_000, w.file(), 3);
      w.write(CHUNK - 100_000, patch, 0, patch.length); // over the chunk 0/1 boundary
      System.arraycopy(patch, 0, base, CHUNK - 100_000, patch.length);
      w.truncate(2 * CHUNK + 777);
      w.close();
      FileStatus f = client.namespace().getStatus(path);
      byte[] want = Arrays.copyOf(base, 2 * CHUNK + 777);
      assertEquals(want.length, f.length());
      for (int i = 0; i < 3; i++) {
        ChunkStat[] s = new ChunkStat[1];
        byte[] c0 = copyBytes(f, i, 0, s);
        byte[] c1 = copyBytes(f, i, 1, s);
        assertArrayEquals(c0, c1, "the two copies of chunk " + i + " are equal");
        assertArrayEquals(Arrays.copyOfRange(want, i * CHUNK, Math.min(want.length,
            (i + 1) * CHUNK)), c0, "chunk " + i);
      }
      stopNodeOf(ChunkIo.targetOf(f.layout(), 1));
      try (PfsInputStream in = client.open(path)) {
        assertArrayEquals(want, readAll(in));
      }
    }
  }

  @Test
  void aCopyWhoseNodeIsDownIsLeftOutAndNewFilesGoToTheOtherNodes() throws Exception {
    String path = "/m/failing";
    try (ParityClient writer = cluster.client(Caller.of("root"))) {
      PfsOutputStream out = writer.create(path, CreateOptions.file());
      byte[] data = content(2 * CHUNK + 10, out.file(), 4);
      out.write(data, 0, CHUNK);
      out.hflush();
      String second = ChunkIo.copyTargets(out.file().layout(), 1).get(1);
      stopNodeOf(second);
      out.write(data, CHUNK, data.length - CHUNK);
      out.close(); // mirror:2 stores one copy while the other's node is down, and records it
      FileStatus f = writer.namespace().getStatus(path);
      assertEquals(data.length, f.length());
      assertTrue(f.repairs().stale(second, 1), "chunk 1's copy on " + second + " is recorded: "
          + f.repairs());
      try (PfsInputStream in = writer.open(path)) {
        assertArrayEquals(data, readAll(in));
      }
    }

    // created while the node is down: placed on the two others, both copies stored
    String later = "/m/later";
    byte[] data;
    try (PfsOutputStream out = client.create(later, CreateOptions.file())) {
      data = content(CHUNK + 99, out.file(), 5);
      assertEquals(2, out.file().layout().targets().size());
      assertNotEquals(out.file().layout().targets().get(0),
          out.file().layout().targets().get(1));
      out.write(data);
    }
    try (PfsInputStream in = client.open(later)) {
      assertArrayEquals(data, readAll(in));
    }
  }

  /**
   * Copies that differ without a repair record (a flush that reached one copy and failed
   * before its acknowledgement): every read takes the newer copy, whichever copy it asks first,
   * so two readers never see two versions of the same bytes.
   */
  @Test
  void aReadTakesTheNewerOfTwoCopiesThatDiffer() throws Exception {
    String path = "/m/torn";
    byte[] old;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      old = content(2 * CHUNK, out.file(), 41);
      out.write(old);
    }
    FileStatus f = client.namespace().getStatus(path);
    ChunkStat[] stat = new ChunkStat[1];
    copyBytes(f, 1, 1, stat);
    // a newer version of chunk 1 on its second copy only, as a failed flush leaves it
    byte[] newer = content(CHUNK, f, 42);
    String second = ChunkIo.copyTargets(f.layout(), 1).get(1);
    client.chunks().writeMember(second, f.id(), f.generation(), stat[0].sequence() + 1, 1,
        ByteBuffer.wrap(newer));
    assertFalse(Arrays.equals(newer, copyBytes(f, 1, 0, stat)), "the first copy is the old one");
    byte[] expected = Arrays.copyOf(old, old.length);
    System.arraycopy(newer, 0, expected, CHUNK, CHUNK);
    try (ParityClient fresh = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      try (PfsInputStream in = fresh.open(path)) {
        assertArrayEquals(expected, readAll(in), "the newer copy, read from its second target");
      }
    }
  }
}
