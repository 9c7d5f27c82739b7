package io.parityfs.raid.array.assembly;

import static io.parityfs.raid.array.drive.DriveState.FAILED;
import static io.parityfs.raid.array.drive.DriveState.MISSING;
import static io.parityfs.raid.array.drive.DriveState.ONLINE;
import static io.parityfs.raid.array.drive.DriveState.REBUILDING;
import static io.parityfs.raid.array.drive.DriveState.SPARE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.format.DrivePlacement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArrayHealthTest {

  private static ArrayState state(int tolerance, boolean rebuilding, DriveState... slots) {
    return ArrayHealth.arrayState(slots, tolerance, rebuilding);
  }

  @Test
  void arrayStateTruthTableForAnErasureCode() {
    int m = 2;
    assertEquals(ArrayState.OPTIMAL, state(m, false, ONLINE, ONLINE, ONLINE, ONLINE));
    assertEquals(ArrayState.OPTIMAL, state(m, true, ONLINE, ONLINE, ONLINE, ONLINE),
        "a rebuild with nothing left to rebuild does not make the array REBUILDING");
    assertEquals(ArrayState.DEGRADED, state(m, false, ONLINE, FAILED, ONLINE, ONLINE));
    assertEquals(ArrayState.DEGRADED, state(m, false, MISSING, FAILED, ONLINE, ONLINE));
    assertEquals(ArrayState.REBUILDING, state(m, true, ONLINE, FAILED, ONLINE, ONLINE));
    assertEquals(ArrayState.REBUILDING, state(m, true, REBUILDING, MISSING, ONLINE, ONLINE));
    assertEquals(ArrayState.DEGRADED, state(m, false, REBUILDING, ONLINE, ONLINE, ONLINE),
        "a drive not yet rebuilt still counts as lost when the rebuild is paused");
    assertEquals(ArrayState.FAILED, state(m, false, FAILED, MISSING, REBUILDING, ONLINE));
    assertEquals(ArrayState.FAILED, state(m, true, FAILED, FAILED, FAILED, ONLINE));
  }

  @Test
  void sparesNeverCount() {
    assertEquals(ArrayState.OPTIMAL, state(1, false, ONLINE, ONLINE, ONLINE, SPARE, SPARE));
    assertEquals(ArrayState.DEGRADED, state(1, false, SPARE, FAILED, ONLINE, ONLINE, SPARE));
    assertEquals(ArrayState.FAILED, state(1, true, SPARE, FAILED, MISSING, ONLINE, SPARE));
    assertEquals(0L, ArrayHealth.unavailableMask(
        new DriveState[] {SPARE, ONLINE, SPARE, ONLINE}));
  }

  @Test
  void mirrorToleratesCopiesMinusOne() {
    int twoCopies = 2 - 1;
    assertEquals(ArrayState.DEGRADED, state(twoCopies, false, ONLINE, FAILED, ONLINE));
    assertEquals(ArrayState.FAILED, state(twoCopies, false, MISSING, FAILED, ONLINE));
    int threeCopies = 3 - 1;
    assertEquals(ArrayState.REBUILDING, state(threeCopies, true, REBUILDING, FAILED, ONLINE));
    int oneCopy = 0;
    assertEquals(ArrayState.OPTIMAL, state(oneCopy, false, ONLINE, ONLINE));
    assertEquals(ArrayState.FAILED, state(oneCopy, true, ONLINE, REBUILDING));
  }

  @Test
  void badInputIsRejectedWithTheValue() {
    assertMessage("tolerance (-1) must be >= 0", () -> state(-1, false, ONLINE));
    assertMessage("slot 1 has no state", () -> state(1, false, ONLINE, null));
    assertMessage("no data slot among 2 slots", () -> state(1, false, SPARE, SPARE));
    assertMessage("no data slot among 0 slots", () -> state(1, false));
    DriveState[] tooMany = new DriveState[65];
    Arrays.fill(tooMany, ONLINE);
    assertMessage("slots (65) must be <= 64", () -> ArrayHealth.unavailableMask(tooMany));
    assertMessage("tolerance (-1)", () -> ArrayHealth.readable(1, 0, -1));
  }

  @Test
  void unavailableMaskHasABitPerLostSlot() {
    DriveState[] slots = new DriveState[64];
    Arrays.fill(slots, ONLINE);
    slots[0] = FAILED;
    slots[5] = MISSING;
    slots[63] = REBUILDING;
    slots[7] = SPARE;
    assertEquals(1L | 1L << 5 | 1L << 63, ArrayHealth.unavailableMask(slots));
  }

  @Test
  void perObjectLossAndReadability() {
    long driveSet = 0b1111_0000_1100L; // slots 2, 3, 8..11: a 4+2 object
    long unavailable = 1L << 3 | 1L << 9 | 1L << 5; // slot 5 is not the object's
    assertEquals(2, ArrayHealth.lostShards(driveSet, unavailable));
    assertEquals(4, ArrayHealth.survivingShards(driveSet, unavailable));
    assertTrue(ArrayHealth.readable(driveSet, unavailable, 2));
    assertFalse(ArrayHealth.readable(driveSet, unavailable | 1L << 10, 2));
    assertTrue(ArrayHealth.readable(driveSet, 0, 0));
    assertEquals(0, ArrayHealth.lostShards(driveSet, ~driveSet));
  }

  @Test
  void mostEndangeredObjectsSortFirstAndTiesKeepTheirOrder() {
    long unavailable = 1L | 1L << 1; // slots 0 and 1 failed
    record Obj(String name, long driveSet) {}
    List<Obj> objects = new ArrayList<>(List.of(
        new Obj("none-lost", 0b111100L),
        new Obj("one-lost-a", 0b011101L),
        new Obj("two-lost", 0b001111L),
        new Obj("one-lost-b", 0b110110L)));
    objects.sort(ArrayHealth.mostEndangeredFirst(Obj::driveSet, unavailable));
    assertEquals(List.of("two-lost", "one-lost-a", "one-lost-b", "none-lost"),
        objects.stream().map(Obj::name).toList());
  }

  @Test
  void withDeclusteredPlacementTheRebuildOrderIsByLoss() {
    DrivePlacement p = DrivePlacement.of(12, 6);
    int m = 2;
    DriveState[] slots = new DriveState[13];
    Arrays.fill(slots, ONLINE);
    slots[4] = FAILED;
    slots[9] = REBUILDING;
    slots[12] = SPARE;
    assertEquals(ArrayState.REBUILDING, ArrayHealth.arrayState(slots, m, true));
    long unavailable = ArrayHealth.unavailableMask(slots);
    List<Long> ids = new ArrayList<>();
    for (long id = 0; id < 10_000; id++) {
      ids.add(id);
    }
    ids.sort(ArrayHealth.mostEndangeredFirst(p::placementMask, unavailable));
    int previousLost = m;
    int[] byLoss = new int[m + 1];
    for (long id : ids) {
      long set = p.placementMask(id);
      int lost = ArrayHealth.lostShards(set, unavailable);
      assertTrue(lost <= previousLost, "order by loss broken at id " + id);
      assertTrue(ArrayHealth.readable(set, unavailable, m));
      previousLost = lost;
      byLoss[lost]++;
    }
    // P(both failed slots in a 6-of-12 set) = 6*5/(12*11) = 0.227; exactly one: 0.545.
    assertTrue(Math.abs(byLoss[2] / 10_000.0 - 0.227) < 0.02, Arrays.toString(byLoss));
    assertTrue(Math.abs(byLoss[1] / 10_000.0 - 0.545) < 0.02, Arrays.toString(byLoss));
  }

  private static void assertMessage(String fragment, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }
}
