package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.Consistency;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The extension check counts what is really stored: the copies or parity across nodes, and one
 * free space for targets on one file system (issue 39, item 2: a 100 GiB truncate on three
 * targets sharing 46 GiB passed and zero-filled the disk).
 */
class ExtensionSpaceTest {
  private static final long GIB = 1L << 30;
  private static final List<String> IDS = List.of("t0", "t1", "t2");

  private static TargetInfo target(String id, long free, Map<String, Integer> fileSystems) {
    return new TargetInfo(id, "node-" + id, "127.0.0.1:1", id, "default", "raid6:4+2",
        168 * GIB, free, Reachability.ONLINE, Consistency.GOOD, Instant.EPOCH, null,
        fileSystems);
  }

  private static Layout layout(Across across) {
    return new Layout(8 << 20, 3, IDS, "raid6:4+2").withAcross(across);
  }

  @Test
  void threeTargetsOnOneFileSystemShareItsFreeSpace() {
    List<TargetInfo> shared = IDS.stream().map(id -> target(id, 46 * GIB, Map.of("fs1", 6)))
        .toList();
    String refused = ExtensionSpace.refusal(layout(Across.ec(2, 1)), shared, 100 * GIB);
    assertNotNull(refused, "150 GiB stored on one 46 GiB file system");
    assertTrue(refused.contains("file system fs1") && refused.contains("ec:2+1"), refused);
    // the same on three file systems of their own: 50 GiB each, still more than 46
    List<TargetInfo> apart = List.of(target("t0", 46 * GIB, Map.of("a", 6)),
        target("t1", 46 * GIB, Map.of("b", 6)), target("t2", 46 * GIB, Map.of("c", 6)));
    assertNotNull(ExtensionSpace.refusal(layout(Across.ec(2, 1)), apart, 100 * GIB));
    assertNull(ExtensionSpace.refusal(layout(Across.ec(2, 1)), apart, 80 * GIB), "40 GiB each");
    assertNotNull(ExtensionSpace.refusal(layout(Across.ec(2, 1)), shared, 40 * GIB),
        "60 GiB on the shared 46");
    assertNull(ExtensionSpace.refusal(layout(Across.ec(2, 1)), shared, 20 * GIB));
  }

  @Test
  void theProtectionAcrossNodesIsCounted() {
    List<TargetInfo> own = IDS.stream().map(id -> target(id, 46 * GIB, Map.of())).toList();
    // none: 100/3 = 33 GiB a target fits in 46; the old check's arithmetic
    assertNull(ExtensionSpace.refusal(layout(Across.NONE), own, 100 * GIB));
    // ec:2+1 stores 1.5x: 50 GiB a target
    String ec = ExtensionSpace.refusal(layout(Across.ec(2, 1)), own, 100 * GIB);
    assertNotNull(ec);
    assertTrue(ec.contains("on target t0"), ec);
    // mirror:2 stores 2x: 66 GiB a target
    assertNotNull(ExtensionSpace.refusal(layout(Across.mirror(2)), own, 100 * GIB));
    assertEquals(1.5, ExtensionSpace.overhead(Across.ec(2, 1)));
    assertEquals(3.0, ExtensionSpace.overhead(Across.mirror(3)));
  }

  @Test
  void aTargetMissingFromTheRegistryRefuses() {
    List<TargetInfo> two = List.of(target("t0", 46 * GIB, Map.of()),
        target("t1", 46 * GIB, Map.of()));
    String refused = ExtensionSpace.refusal(layout(Across.NONE), two, 10 * GIB);
    assertTrue(refused != null && refused.contains("t2"), refused);
  }
}
