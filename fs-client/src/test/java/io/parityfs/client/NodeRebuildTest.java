package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.across.GroupCodec;
import io.parityfs.meta.Across;
import io.parityfs.node.protocol.ChunkStat;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * REBUILD_MEMBER (docs/across-nodes.md §5) on three RAID-6 nodes: a node rebuilds a member of an
 * ec group from K others it reads from its peers itself, and stores it with the round's tag;
 * the bytes are those the client's group codec computes, for every data and parity member of
 * ec:2+1 and ec:4+1 groups (a short last chunk, a data chunk past the end of the file, sources
 * with and without parity, groups longer than the node's decode slice); a source of another
 * round is refused and nothing is written.
 */
class NodeRebuildTest extends OwnClusterTest {
  static final int CHUNK = 256 << 10;
  static final long GENERATION = 3;
  static final long SEQUENCE = 41;

  @BeforeAll
  static void start() throws Exception {
    startCluster(3);
  }

  private static List<String> targets() {
    return client.registry().targets().stream().map(t -> t.id()).sorted().toList();
  }

  /** The K+M members of a group as the client computes them: data (null past the end), parity. */
  private static ByteBuffer[] group(Across across, int[] lengths, long seed) {
    int k = across.data();
    ByteBuffer[] data = new ByteBuffer[k];
    Random r = new Random(seed);
    for (int j = 0; j < lengths.length; j++) {
      byte[] b = new byte[lengths[j]];
      r.nextBytes(b);
      data[j] = ByteBuffer.wrap(b);
    }
    ByteBuffer[] parity = client.chunks().groupCodec(across).encode(data);
    ByteBuffer[] members = new ByteBuffer[across.width()];
    System.arraycopy(data, 0, members, 0, k);
    System.arraycopy(parity, 0, members, k, parity.length);
    return members;
  }

  /** Stores the present members of file {@code id} round-robin on the targets, index = member. */
  private static void store(long id, ByteBuffer[] members, long sequence) throws Exception {
    List<String> t = targets();
    for (int j = 0; j < members.length; j++) {
      if (members[j] != null) {
        client.chunks().writeMember(t.get(j % t.size()), id, GENERATION, sequence, GENERATION,
            j, members[j].duplicate());
      }
    }
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static byte[] readBack(String target, long id, int index, int length)
      throws Exception {
    ByteBuffer into = ByteBuffer.allocate(length + 1);
    ChunkStat stat = client.chunks().readMember(target, id, index, 0, into).orElseThrow();
    assertEquals(List.of(GENERATION, SEQUENCE), List.of(stat.generation(), stat.sequence()),
        "stored with the round's tag");
    return bytes(into.flip());
  }

  /**
   * Every member of one group, rebuilt by a node from K others (those listed first in {@code
   * order}, past-the-end data first), equals the client's group codec's bytes.
   */
  private static void everyMemberOnTheNode(Across across, int[] lengths, long id)
      throws Exception {
    int k = across.data();
    int n = across.width();
    ByteBuffer[] members = group(across, lengths, id);
    store(id, members, SEQUENCE);
    GroupCodec codec = client.chunks().groupCodec(across);
    int groupLength = lengths[0];
    List<String> t = targets();
    long before = client.chunks().rebuiltOnNodes.get();
    for (int wanted = 0; wanted < n; wanted++) {
      if (wanted < k && members[wanted] == null) {
        continue; // past the end of the file: nothing to rebuild
      }
      int length = members[wanted].remaining();
      for (boolean parityFirst : new boolean[] {false, true}) {
        List<ChunkIo.RebuildSource> sources = new ArrayList<>();
        ByteBuffer[] survivors = new ByteBuffer[n];
        for (int step = 0; step < n && sources.size() < k; step++) {
          int j = parityFirst ? (step + k) % n : step;
          if (j == wanted) {
            continue;
          }
          if (members[j] == null) {
            sources.add(new ChunkIo.RebuildSource(j, null, j, 0));
            survivors[j] = ByteBuffer.allocate(0);
          } else {
            sources.add(new ChunkIo.RebuildSource(j, t.get(j % t.size()), j,
                members[j].remaining()));
            survivors[j] = members[j].duplicate();
          }
        }
        String onto = t.get((wanted + 1) % t.size());
        int index = 1000 + wanted;
        long stored = client.chunks().rebuildOnNode(onto, id, GENERATION, SEQUENCE, GENERATION,
            index, k, n - k, wanted, length, groupLength, sources);
        assertEquals(length, stored, across + " member " + wanted);
        byte[] clientBuilt = bytes(codec.reconstruct(survivors, wanted, length));
        assertArrayEquals(bytes(members[wanted]), clientBuilt, "the client's codec agrees");
        assertArrayEquals(clientBuilt, readBack(onto, id, index, length), across + " member "
            + wanted + " from " + sources + ": the node's bytes are the client's");
      }
    }
    assertTrue(client.chunks().rebuiltOnNodes.get() > before, "rebuilt by the nodes");
  }

  @Test
  void nodeBuiltMembersAreTheClientsBytesForEc21() throws Exception {
    everyMemberOnTheNode(Across.ec(2, 1), new int[] {CHUNK, CHUNK}, 101);
    everyMemberOnTheNode(Across.ec(2, 1), new int[] {CHUNK, 70_001}, 102);
    everyMemberOnTheNode(Across.ec(2, 1), new int[] {CHUNK / 3}, 103); // data 1 past the end
  }

  @Test
  void nodeBuiltMembersAreTheClientsBytesForEc41() throws Exception {
    everyMemberOnTheNode(Across.ec(4, 1), new int[] {CHUNK, CHUNK, CHUNK, CHUNK}, 201);
    everyMemberOnTheNode(Across.ec(4, 1), new int[] {CHUNK, CHUNK, CHUNK, 12_345}, 202);
    everyMemberOnTheNode(Across.ec(4, 1), new int[] {CHUNK, 99_999}, 203); // two past the end
  }

  /**
   * Groups longer than the node's decode slice (1 MiB): the member is decoded and stored a slice
   * at a time as the sources arrive, with a source that ends inside a slice.
   */
  @Test
  void aGroupLongerThanASliceIsRebuiltSliceBySlice() throws Exception {
    int mib = 1 << 20;
    everyMemberOnTheNode(Across.ec(2, 1), new int[] {3 * mib + 12_345, 2 * mib - 7}, 401);
  }

  /**
   * Stores an ec:2+1 group of file {@code id} with data chunks of {@code length} bytes, then
   * data member 1 again by a later round: the old parity and it do not decode. Returns the
   * targets (member j on target j).
   */
  private static List<String> member1OfALaterRound(long id, int length) throws Exception {
    ByteBuffer[] members = group(Across.ec(2, 1), new int[] {length, length}, id);
    store(id, members, SEQUENCE);
    List<String> t = targets();
    client.chunks().writeMember(t.get(1), id, GENERATION, SEQUENCE + 1, GENERATION, 1,
        members[1].duplicate());
    return t;
  }

  /**
   * A source of another round is only known when its read ends, after the node has decoded and
   * written every slice of the member from it: the write is aborted, nothing becomes visible.
   */
  @Test
  void aSourceOfAnotherRoundFoundAfterEverySliceWasWrittenLeavesNothing() throws Exception {
    int group = 3 << 20;
    long id = 402;
    List<String> t = member1OfALaterRound(id, group);
    String onto = t.get(2);
    ClientException e = assertThrows(ClientException.class, () -> client.chunks()
        .rebuildOnNode(onto, id, GENERATION, SEQUENCE, GENERATION, 600, 2, 1, 0, group, group,
            List.of(new ChunkIo.RebuildSource(1, t.get(1), 1, group),
                new ChunkIo.RebuildSource(2, t.get(2), 2, group))));
    assertEquals(ClientStatus.CONFLICT, e.status(), e.getMessage());
    assertTrue(client.chunks().statMember(onto, id, 600).isEmpty(), "nothing was written");
  }

  @Test
  void aSourceOfAnotherRoundIsRefusedAndNothingIsWritten() throws Exception {
    long id = 301;
    List<String> t = member1OfALaterRound(id, CHUNK);
    String onto = t.get(2);
    List<ChunkIo.RebuildSource> sources = List.of(
        new ChunkIo.RebuildSource(1, t.get(1), 1, CHUNK),
        new ChunkIo.RebuildSource(2, t.get(2), 2, CHUNK));
    ClientException e = assertThrows(ClientException.class, () -> client.chunks()
        .rebuildOnNode(onto, id, GENERATION, SEQUENCE, GENERATION, 500, 2, 1, 0, CHUNK, CHUNK,
            sources));
    assertEquals(ClientStatus.CONFLICT, e.status(), e.getMessage());
    assertTrue(e.getMessage().contains("rounds are never mixed"), e.getMessage());
    assertTrue(client.chunks().statMember(onto, id, 500).isEmpty(), "nothing was written");
    // a source shorter than the round says is refused too
    ClientException shortOne = assertThrows(ClientException.class, () -> client.chunks()
        .rebuildOnNode(onto, id, GENERATION, SEQUENCE, GENERATION, 500, 2, 1, 0, CHUNK, CHUNK,
            List.of(new ChunkIo.RebuildSource(2, t.get(2), 2, CHUNK - 1),
                new ChunkIo.RebuildSource(1, t.get(1), 1, CHUNK))));
    assertEquals(ClientStatus.CONFLICT, shortOne.status(), shortOne.getMessage());
    assertTrue(client.chunks().statMember(onto, id, 500).isEmpty(), "nothing was written");
  }
}
