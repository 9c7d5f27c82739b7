package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where data chunks, mirror copies and parity chunks live (docs/across-nodes.md §2). */
class ChunkMapTest {
  private static ChunkMap map(int stripeCount, Across across) {
    return ChunkMap.of(new Layout(1 << 20, stripeCount, List.of(), "raid6:4+2", across,
        "default"));
  }

  @Test
  void dataChunksAreWhereTheyAreWithoutAPolicy() {
    for (Across a : List.of(Across.NONE, Across.mirror(3), Across.ec(4, 2), Across.ec(2, 1))) {
      ChunkMap map = map(7, a);
      for (long i = 0; i < 100; i++) {
        assertEquals((int) (i % 7), map.position(i), a + " chunk " + i);
        if (a.isErasureCoded()) {
          assertEquals(map.position(i), map.memberPosition(map.group(i),
              (int) (i % a.data())), a + " chunk " + i);
          assertEquals(i, map.memberIndex(map.group(i), (int) (i % a.data())));
        }
      }
    }
  }

  @Test
  void everyGroupSpansConsecutiveDistinctPositionsAndTheParityMovesOn() {
    for (int[] km : new int[][] {{2, 1}, {4, 1}, {4, 2}, {3, 3}, {10, 4}, {1, 1}}) {
      Across a = Across.ec(km[0], km[1]);
      for (int w : new int[] {a.width(), a.width() + 1, 2 * a.width()}) {
        ChunkMap map = map(w, a);
        Set<Integer> parityPositions = new HashSet<>();
        Set<Integer> parityIndexes = new HashSet<>();
        for (long g = 0; g < 200; g++) {
          Set<Integer> positions = new HashSet<>();
          int first = map.memberPosition(g, 0);
          for (int j = 0; j < a.width(); j++) {
            int p = map.memberPosition(g, j);
            assertEquals((first + j) % w, p, a + " over " + w + ": consecutive");
            positions.add(p);
            int index = map.memberIndex(g, j);
            assertEquals(j >= km[0], map.isParity(index));
            if (j >= km[0]) {
              parityPositions.add(p);
              assertTrue(parityIndexes.add(index), "parity chunk ids are unique");
            }
          }
          assertEquals(a.width(), positions.size(), a + " over " + w + ": distinct");
        }
        if (BigInteger.valueOf(km[0]).gcd(BigInteger.valueOf(w)).intValue()
            <= km[1]) {
          assertEquals(w, parityPositions.size(), a + " over " + w + ": parity on every"
              + " target in turn");
        }
      }
    }
  }

  @Test
  void mirrorCopiesAreOnConsecutiveDistinctPositions() {
    ChunkMap map = map(5, Across.mirror(3));
    assertEquals(3, map.copies());
    for (long i = 0; i < 50; i++) {
      Set<Integer> positions = new HashSet<>();
      for (int c = 0; c < 3; c++) {
        positions.add(map.copyPosition(i, c));
      }
      assertEquals(3, positions.size());
      assertEquals(map.position(i), map.copyPosition(i, 0));
    }
    assertThrows(IllegalArgumentException.class, () -> map.copyPosition(0, 3));
    assertEquals(1, map(5, Across.NONE).copies());
  }

  @Test
  void everyStoredChunkKnowsItsGroupAndMember() {
    for (Across a : List.of(Across.NONE, Across.mirror(3), Across.ec(4, 2), Across.ec(2, 1),
        Across.ec(3, 3))) {
      ChunkMap map = map(7, a);
      for (long g = 0; g < 100; g++) {
        for (int j = 0; j < map.members(); j++) {
          int index = map.memberIndex(g, j);
          assertEquals(g, map.groupOf(index), a + " group " + g + " member " + j);
          assertEquals(j, map.memberOf(index), a + " group " + g + " member " + j);
        }
      }
    }
    // without parity an index in the upper half is a data chunk: its own group
    assertEquals(ChunkMap.PARITY_BASE + 5L, map(7, Across.mirror(2)).groupOf(
        ChunkMap.PARITY_BASE + 5));
  }

  @Test
  void theMembersOfAGroupAtAPosition() {
    long chunk = 1 << 20;
    // ec:2+1 over 3, five data chunks: group 2 holds chunk 4 at 1, (chunk 5) at 2, parity at 0
    ChunkMap ec = map(3, Across.ec(2, 1));
    assertEquals(List.of(new ChunkMap.Placed(1, 4)), ec.membersAt(2, 1, 5 * chunk));
    assertEquals(List.of(), ec.membersAt(2, 2, 5 * chunk), "chunk 5 is past the end");
    assertEquals(List.of(new ChunkMap.Placed(2, 5)), ec.membersAt(2, 2), "placed all the same");
    assertEquals(List.of(new ChunkMap.Placed(0, ChunkMap.PARITY_BASE + 2)),
        ec.membersAt(2, 0, 5 * chunk));
    assertEquals(List.of(), ec.membersAt(3, 0, 5 * chunk), "past the last group");
    // ec:2+1 over 4: group 0 spans positions 0..2, nothing at 3
    assertEquals(List.of(), map(4, Across.ec(2, 1)).membersAt(0, 3, 8 * chunk));
    // mirror:2 over 3: copy 1 of chunk 2 is at position 0
    ChunkMap mirror = map(3, Across.mirror(2));
    assertEquals(List.of(new ChunkMap.Placed(0, 2)), mirror.membersAt(2, 0, 3 * chunk));
    assertEquals(List.of(new ChunkMap.Placed(2, 2)), mirror.membersAt(2, 2, 3 * chunk));
    assertEquals(List.of(), mirror.membersAt(2, 1, 3 * chunk));
    assertEquals(List.of(), mirror.membersAt(2, 0, 2 * chunk), "chunk 2 is past the end");
    assertEquals(List.of(new ChunkMap.Placed(1, 1)), map(3, Across.NONE).membersAt(1, 1));
    // every chunk a file stores is at its position in exactly one group
    for (Across a : List.of(Across.NONE, Across.mirror(3), Across.ec(4, 2), Across.ec(2, 1))) {
      ChunkMap map = map(7, a);
      long length = 37 * chunk + 5;
      Set<ChunkMap.Placed> found = new HashSet<>();
      for (long g = 0; g < map.groups(length) + 2; g++) {
        for (int p = 0; p < 7; p++) {
          for (ChunkMap.Placed c : map.membersAt(g, p, length)) {
            assertEquals(g, map.groupOf(c.index()), a + " " + c);
            assertTrue(found.add(c), a + " " + c + " once");
          }
        }
      }
      assertEquals(new HashSet<>(map.stored(length)), found, a.toString());
    }
  }

  @Test
  void whatAFileOfALengthHolds() {
    long chunk = 1 << 20;
    assertEquals(List.of(new ChunkMap.Placed(0, 0), new ChunkMap.Placed(1, 1),
        new ChunkMap.Placed(2, 2)), map(3, Across.NONE).stored(2 * chunk + 1));
    assertEquals(List.of(), map(3, Across.NONE).stored(0));
    assertEquals(6, map(3, Across.mirror(2)).stored(3 * chunk).size());
    // ec:2+1 over 3, five data chunks: three groups (the last with one data chunk), one parity each
    List<ChunkMap.Placed> ec = map(3, Across.ec(2, 1)).stored(5 * chunk);
    assertEquals(8, ec.size());
    assertEquals(new ChunkMap.Placed(2, ChunkMap.PARITY_BASE), ec.get(5)); // group 0: 0,1 + p@2
    assertEquals(new ChunkMap.Placed(1, ChunkMap.PARITY_BASE + 1), ec.get(6)); // group 1: 2,0,p@1
    assertEquals(new ChunkMap.Placed(0, ChunkMap.PARITY_BASE + 2), ec.get(7)); // group 2: 1,2,p@0
  }

  @Test
  void theChunkIndexSpaceBoundsAnErasureCodedFile() {
    ChunkMap none = map(3, Across.NONE);
    assertEquals(1L << 24, none.maxDataChunks());
    ChunkMap ec = map(5, Across.ec(4, 1));
    assertEquals(1L << 23, ec.maxDataChunks());
    assertEquals((1L << 23) * (1 << 20), ec.maxLength());
    // ec:1+2: two parity chunks per data chunk must fit in the upper 2^23 indexes
    ChunkMap narrow = map(3, Across.ec(1, 2));
    assertEquals(1L << 22, narrow.maxDataChunks());
    long lastGroup = narrow.maxDataChunks() - 1;
    assertEquals((1 << 24) - 1, narrow.memberIndex(lastGroup, 2));
    assertThrows(IllegalArgumentException.class, () -> narrow.memberIndex(lastGroup + 1, 0));
    assertThrows(IllegalArgumentException.class, () -> ec.stored(ec.maxLength() + 1));
    assertFalse(none.isParity(ChunkMap.PARITY_BASE), "no parity without ec");
  }
}
