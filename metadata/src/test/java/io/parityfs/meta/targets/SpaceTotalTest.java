package io.parityfs.meta.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Cluster totals count each file system once (issue 15 item 7: the local cluster, three nodes
 * on one disk, reported three times its free space), and records that name no file systems
 * count as before.
 */
class SpaceTotalTest {
  private static final long GIB = 1L << 30;

  private static TargetInfo target(String id, long capacity, long free, Map<String, Integer> fs) {
    return new TargetInfo(id, "node-" + id, "127.0.0.1:1", id, "default", "raid6:4+2",
        capacity, free, Reachability.ONLINE, Consistency.GOOD, Instant.EPOCH, "", fs);
  }

  @Test
  void targetsOfTwoNodesOnOneFileSystemCountItOnce() {
    Map<String, Integer> disk = Map.of("boot-a:803", 6);
    SpaceTotal t = SpaceTotal.of(List.of(target("t1", 400 * GIB, 100 * GIB, disk),
        target("t2", 400 * GIB, 100 * GIB, disk), target("t3", 400 * GIB, 99 * GIB, disk)));
    assertEquals(new SpaceTotal(400 * GIB, 100 * GIB), t);
  }

  @Test
  void targetsOnDistinctFileSystemsAddUp() {
    SpaceTotal t = SpaceTotal.of(List.of(
        target("t1", 400 * GIB, 100 * GIB, Map.of("boot-a:803", 6)),
        target("t2", 300 * GIB, 50 * GIB, Map.of("boot-a:804", 6)),
        target("t3", 200 * GIB, 20 * GIB, Map.of("boot-b:803", 6)))); // same device, other machine
    assertEquals(new SpaceTotal(900 * GIB, 170 * GIB), t);
  }

  @Test
  void aRecordNamingNoFileSystemsCountsInFull() {
    Map<String, Integer> disk = Map.of("boot-a:803", 6);
    TargetInfo old = new TargetInfo("t0", "n0", "127.0.0.1:1", "t0", "default", "raid6:4+2",
        400 * GIB, 100 * GIB, Reachability.ONLINE, Consistency.GOOD, Instant.EPOCH, "");
    assertEquals(Map.of(), old.fileSystems());
    SpaceTotal t = SpaceTotal.of(List.of(old, target("t1", 400 * GIB, 100 * GIB, disk),
        target("t2", 400 * GIB, 100 * GIB, disk)));
    assertEquals(new SpaceTotal(800 * GIB, 200 * GIB), t, "the old record adds, the others once");
  }

  @Test
  void aTargetOverSeveralFileSystemsSharesItsEstimateByDrives() {
    // t1: one drive on each of six disks; t2: all six drives on the first of them. The first
    // disk adds the larger share (t2's whole estimate, not t1's sixth), the other five add t1's
    SpaceTotal t = SpaceTotal.of(List.of(
        target("t1", 600 * GIB, 60 * GIB, Map.of("m:1", 1, "m:2", 1, "m:3", 1, "m:4", 1,
            "m:5", 1, "m:6", 1)),
        target("t2", 150 * GIB, 30 * GIB, Map.of("m:1", 6))));
    assertEquals(new SpaceTotal(5 * 100 * GIB + 150 * GIB, 5 * 10 * GIB + 30 * GIB), t);
  }

  @Test
  void twoTargetsOfOneNodeOnOneDiskCountTheLargerEstimate() {
    // raid6:4+2 and mirror:2 over one disk: either may fill it, so the disk counts once, at the
    // larger of the two estimates
    Map<String, Integer> disk = Map.of("m:1", 6);
    SpaceTotal t = SpaceTotal.of(List.of(target("fast", 400 * GIB, 40 * GIB, disk),
        target("small", 300 * GIB, 30 * GIB, Map.of("m:1", 2))));
    assertEquals(new SpaceTotal(400 * GIB, 40 * GIB), t);
  }

  @Test
  void negativeEstimatesCountAsNothing() {
    assertEquals(SpaceTotal.ZERO, SpaceTotal.of(List.of(target("t", -1, -5, Map.of()))));
    assertEquals(SpaceTotal.ZERO, SpaceTotal.of(List.of()));
  }
}
