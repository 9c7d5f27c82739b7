package io.parityfs.raid.array.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DrivePlacementTest {
  private static final int OBJECTS = 100_000;

  /** Sequential ids, the easy case for a weak mixer to get wrong. */
  private static long sequentialId(int i) {
    return i;
  }

  /** Chunk ids shaped like (inode << 20 | chunk index): few low bits vary, then a jump. */
  private static long chunkShapedId(int i) {
    return (long) (1000 + i / 50) << 20 | (i % 50);
  }

  @Test
  void slotsAreDistinctInRangeAndDeterministicForEveryN() {
    Random random = new Random(42);
    long[] ids = new long[600];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i < 200 ? i : i < 400 ? chunkShapedId(i) : random.nextLong();
    }
    for (int w : new int[] {1, 2, 3, 5, 6, 10, 14, 17, 32, 63, 64}) {
      for (int n = w; n <= 64; n++) {
        DrivePlacement p = DrivePlacement.of(n, w);
        DrivePlacement again = DrivePlacement.of(n, w);
        int[] out = new int[w + 3];
        for (long id : ids) {
          int[] slots = p.drivesFor(id);
          assertEquals(w, slots.length);
          long seen = 0;
          for (int s : slots) {
            assertTrue(s >= 0 && s < n, () -> p + " id " + id + " slot " + s);
            assertEquals(0, seen & 1L << s, () -> p + " id " + id + " repeats slot " + s);
            seen |= 1L << s;
          }
          assertEquals(seen, p.placementMask(id));
          assertArrayEquals(slots, again.drivesFor(id));
          out[w] = -7;
          p.drivesFor(id, out);
          for (int i = 0; i < w; i++) {
            assertEquals(slots[i], out[i]);
          }
          assertEquals(-7, out[w], "drivesFor writes past width");
        }
      }
    }
  }

  /**
   * DrivePlacement is part of the on-disk format: shards are found by recomputing it. If this test
   * fails, existing arrays can no longer find their shards; do not update the vectors, restore
   * the function.
   */
  @Test
  void knownAnswersArePinned() {
    DrivePlacement p = DrivePlacement.of(12, 6);
    assertArrayEquals(new int[] {3, 9, 0, 7, 11, 1}, p.drivesFor(0));
    assertArrayEquals(new int[] {4, 8, 11, 5, 1, 7}, p.drivesFor(1));
    assertArrayEquals(new int[] {2, 3, 4, 0, 1, 10}, p.drivesFor(0x0123456789ABCDEFL));
    assertArrayEquals(new int[] {21, 32, 15, 63, 61, 4, 9, 1, 51, 33},
        DrivePlacement.of(64, 10).drivesFor(-1L));
    assertArrayEquals(new int[] {1, 0, 2, 3, 5, 4}, DrivePlacement.of(6, 6).drivesFor(7));
  }

  @ParameterizedTest(name = "N={0} w={1}")
  @CsvSource({"12, 6", "24, 14", "64, 10", "7, 3", "64, 63"})
  void everyDriveHoldsItsShareOfShards(int n, int w) {
    for (boolean chunkShaped : new boolean[] {false, true}) {
      DrivePlacement p = DrivePlacement.of(n, w);
      long[] shards = new long[n];
      int[] out = new int[w];
      for (int i = 0; i < OBJECTS; i++) {
        p.drivesFor(chunkShaped ? chunkShapedId(i) : sequentialId(i), out);
        for (int s : out) {
          shards[s]++;
        }
      }
      double mean = (double) OBJECTS * w / n;
      assertWithin(0.05, mean, shards, p + (chunkShaped ? " chunk-shaped ids" : " sequential ids"));
    }
  }

  @ParameterizedTest(name = "N={0} k={1} m={2}")
  @CsvSource({"12, 4, 2", "24, 10, 4", "64, 6, 4", "6, 4, 2", "64, 32, 32"})
  void parityRoleRotatesOverTheDrives(int n, int k, int m) {
    DrivePlacement p = DrivePlacement.of(n, CodecGeometry.reedSolomon(k, m));
    long[] shards = new long[n];
    long[] parity = new long[n];
    int[] out = new int[k + m];
    for (int i = 0; i < OBJECTS; i++) {
      p.drivesFor(i, out);
      for (int shard = 0; shard < k + m; shard++) {
        shards[out[shard]]++;
        if (shard >= k) {
          parity[out[shard]]++;
        }
      }
    }
    double expected = (double) m / (k + m);
    for (int s = 0; s < n; s++) {
      double share = (double) parity[s] / shards[s];
      assertTrue(Math.abs(share / expected - 1) <= 0.05,
          p + " slot " + s + " holds parity for " + share + " of its shards, expected " + expected);
    }
  }

  /**
   * For each failed slot f: the objects on f are rebuilt from k survivors each (their first k
   * surviving shards in shard order); those reads must land evenly on all N-1 other drives.
   */
  @ParameterizedTest(name = "N={0} k={1} m={2}")
  @CsvSource({"12, 4, 2, 100000", "24, 10, 4, 100000", "64, 6, 4, 400000", "9, 3, 5, 100000"})
  void rebuildOfAnyDriveReadsFromAllOthers(int n, int k, int m, int objects) {
    DrivePlacement p = DrivePlacement.of(n, k + m);
    long[][] reads = new long[n][n]; // reads[failed][survivor]
    int[] out = new int[k + m];
    for (int i = 0; i < objects; i++) {
      p.drivesFor(i, out);
      for (int failed : out) {
        int taken = 0;
        for (int j = 0; j < out.length && taken < k; j++) {
          if (out[j] != failed) {
            reads[failed][out[j]]++;
            taken++;
          }
        }
      }
    }
    for (int f = 0; f < n; f++) {
      long[] others = new long[n - 1];
      long total = 0;
      for (int s = 0, o = 0; s < n; s++) {
        if (s != f) {
          others[o++] = reads[f][s];
          total += reads[f][s];
        }
      }
      assertEquals(0, reads[f][f]);
      assertWithin(0.10, (double) total / (n - 1), others, p + " rebuilding slot " + f);
    }
  }

  @Test
  void fullWidthUsesEveryDriveAndStillRotatesShardIndexes() {
    for (int w : new int[] {1, 2, 6, 14, 64}) {
      DrivePlacement p = DrivePlacement.of(w, w);
      long all = w == 64 ? -1L : (1L << w) - 1;
      for (int i = 0; i < 1000; i++) {
        assertEquals(all, p.placementMask(i), p + " id " + i);
      }
    }
    DrivePlacement p = DrivePlacement.of(6, 6);
    long[][] heldShard = new long[6][6]; // heldShard[slot][shard index]
    for (int i = 0; i < OBJECTS; i++) {
      int[] slots = p.drivesFor(i);
      for (int shard = 0; shard < 6; shard++) {
        heldShard[slots[shard]][shard]++;
      }
    }
    for (int s = 0; s < 6; s++) {
      assertWithin(0.05, OBJECTS / 6.0, heldShard[s], p + " slot " + s + " by shard index");
    }
  }

  @Test
  void addingASlotMovesOnlyTheObjectsItWins() {
    DrivePlacement before = DrivePlacement.of(12, 6);
    DrivePlacement after = DrivePlacement.of(13, 6);
    int moved = 0;
    for (int i = 0; i < OBJECTS; i++) {
      long a = before.placementMask(i);
      long b = after.placementMask(i);
      if (a != b) {
        moved++;
        assertEquals(1L << 12, b & ~a, "only the new slot joins");
        assertEquals(1, Long.bitCount(a & ~b), "exactly one slot leaves");
      }
    }
    double expected = OBJECTS * 6.0 / 13;
    assertTrue(Math.abs(moved / expected - 1) < 0.02, moved + " moved, expected ~" + expected);
  }

  @Test
  void badArgumentsAreRejectedWithTheValues() {
    assertMessage("dataSlots (5) must be >= width (6)", () -> DrivePlacement.of(5, 6));
    assertMessage("dataSlots (5) must be >= width (6)",
        () -> DrivePlacement.of(5, CodecGeometry.reedSolomon(4, 2)));
    assertMessage("dataSlots (65) must be <= 64", () -> DrivePlacement.of(65, 10));
    assertMessage("width (0) must be >= 1", () -> DrivePlacement.of(12, 0));
    assertMessage("out.length (5) must be >= width (6)",
        () -> DrivePlacement.of(12, 6).drivesFor(1, new int[5]));
    assertEquals(DrivePlacement.of(12, 6), DrivePlacement.of(12, CodecGeometry.raid6(4)));
  }

  private static void assertWithin(double tolerance, double mean, long[] counts, String what) {
    for (int i = 0; i < counts.length; i++) {
      double deviation = counts[i] / mean - 1;
      int at = i;
      assertTrue(Math.abs(deviation) <= tolerance,
          () -> what + ": entry " + at + " = " + counts[at] + ", mean " + mean);
    }
  }

  private static void assertMessage(String fragment, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }
}
