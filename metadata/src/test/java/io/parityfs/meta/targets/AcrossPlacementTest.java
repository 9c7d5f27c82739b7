package io.parityfs.meta.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.Layout;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Placement of layouts with protection across nodes (docs/across-nodes.md §2): every {@code
 * width} cyclically consecutive targets on distinct nodes, never a fallback onto a node already
 * in the window, and a policy the registry cannot satisfy refused with the numbers.
 */
class AcrossPlacementTest extends RegistryFixture {
  private static Layout layout(int stripeCount, Across across, List<String> targets) {
    return new Layout(8 << 20, stripeCount, targets, "raid6:4+2", across, "default");
  }

  private void cluster(int count, int perNode) throws Exception {
    for (int i = 0; i < count; i++) {
      TestNode n = node(nodes.size() + 1);
      for (int j = 0; j < perNode; j++) {
        n.add("t" + j, "default", "raid6:4+2", 4 * TestNode.TIB);
      }
      n.start();
    }
  }

  private TargetRegistry registry(int targets) throws Exception {
    TargetRegistry r = openRegistry();
    eventually(targets + " targets", () -> r.targets().size() == targets);
    return r;
  }

  /** Whether every {@code width} cyclically consecutive targets are on distinct nodes. */
  private static boolean windowsDistinct(List<String> targets, Map<String, String> nodeOf,
      int width) {
    for (int start = 0; start < targets.size(); start++) {
      Set<String> seen = new HashSet<>();
      for (int d = 0; d < width; d++) {
        if (!seen.add(nodeOf.get(targets.get((start + d) % targets.size())))) {
          return false;
        }
      }
    }
    return true;
  }

  @Test
  void everyWindowOfTheWidthIsOnDistinctNodes() throws Exception {
    cluster(4, 3);
    TargetRegistry r = registry(12);
    Map<String, String> nodeOf = new HashMap<>();
    r.targets().forEach(t -> nodeOf.put(t.id(), t.nodeId()));
    TargetPlacement p = new TargetPlacement(r, PlacementConfig.builder().seed(7).build());
    for (int i = 0; i < 100; i++) {
      List<String> ec = p.place(layout(4, Across.ec(2, 1), List.of())).targets();
      assertTrue(windowsDistinct(ec, nodeOf, 3), "ec:2+1 over 4: " + ec);
      List<String> wide = p.place(layout(8, Across.ec(3, 1), List.of())).targets();
      assertTrue(windowsDistinct(wide, nodeOf, 4), "ec:3+1 over 8 targets on 4 nodes: " + wide);
      assertEquals(8, new HashSet<>(wide).size());
      List<String> mirror = p.place(layout(3, Across.mirror(2), List.of())).targets();
      assertTrue(windowsDistinct(mirror, nodeOf, 2), "mirror:2 over 3: " + mirror);
    }
    // without a policy, the same pool gives stripes that share nodes within a window (so the
    // windows above are the rule's doing, not the pool's)
    boolean shared = false;
    for (int i = 0; i < 100 && !shared; i++) {
      shared = !windowsDistinct(p.place(layout(8, Across.NONE, List.of())).targets(), nodeOf, 4);
    }
    assertTrue(shared, "8 targets on 4 nodes without a policy: some window repeats a node");
  }

  @Test
  void aPolicyTheRegistryCannotSatisfyIsRefusedWithTheNumbers() throws Exception {
    cluster(3, 2);
    TargetRegistry r = registry(6);
    TargetPlacement p = new TargetPlacement(r, PlacementConfig.DEFAULT);
    Layout wide = layout(5, Across.ec(4, 1), List.of());

    IllegalArgumentException check = assertThrows(IllegalArgumentException.class,
        () -> p.check(wide, "/d"));
    assertEquals("ec:4+1 across nodes needs targets on 5 distinct nodes; pool 'default' has"
        + " targets on 3 nodes (6 targets)", check.getMessage());

    NamespaceException place = assertThrows(NamespaceException.class,
        () -> p.place(wide, "/d/f"));
    assertEquals(NamespaceStatus.UNAVAILABLE, place.status());
    assertTrue(place.getMessage().contains("ec:4+1 across nodes needs targets on 5 distinct"
        + " nodes") && place.getMessage().contains("are on 3 nodes"), place.getMessage());

    // 3 nodes do carry ec:2+1 and mirror:3; a stripe of 5 cannot keep every 3 apart on 3 nodes
    p.check(layout(3, Across.ec(2, 1), List.of()), "/d");
    assertEquals(3, p.place(layout(3, Across.mirror(3), List.of())).targets().size());
    NamespaceException five = assertThrows(NamespaceException.class,
        () -> p.place(layout(5, Across.ec(2, 1), List.of()), "/d/g"));
    assertEquals(NamespaceStatus.UNAVAILABLE, five.status());
    assertTrue(five.getMessage().contains("for every 3 consecutive of its 5 targets"),
        five.getMessage());
  }

  /**
   * Nodes that name a failure domain ({@code node.domain}: a rack, a zone): a group's members
   * go to distinct domains, an unlabelled node being a domain of its own; a policy the domains
   * cannot carry is refused with both numbers, however many nodes there are.
   */
  @Test
  void membersGoToDistinctFailureDomainsWhereNodesNameOne() throws Exception {
    for (String rack : List.of("r1", "r1", "r2", "r2")) {
      TestNode n = node(nodes.size() + 1);
      n.domain = rack;
      n.add("t0", "default", "raid6:4+2", 4 * TestNode.TIB);
      n.start();
    }
    TargetRegistry r = registry(4);
    TargetPlacement p = new TargetPlacement(r, PlacementConfig.builder().seed(3).build());
    IllegalArgumentException check = assertThrows(IllegalArgumentException.class,
        () -> p.check(layout(3, Across.ec(2, 1), List.of()), "/d"));
    assertEquals("ec:2+1 across nodes needs targets in 3 distinct failure domains (node.domain;"
        + " a node without one is a domain of its own); pool 'default' has targets in 2 failure"
        + " domains on 4 nodes (4 targets)", check.getMessage());
    NamespaceException place = assertThrows(NamespaceException.class,
        () -> p.place(layout(3, Across.ec(2, 1), List.of()), "/d/f"));
    assertTrue(place.getMessage().contains("are in 2 failure domains on 4 nodes"),
        place.getMessage());
    // mirror:2 fits two racks: its copies never share one
    Map<String, String> rackOf = new HashMap<>();
    r.targets().forEach(t -> rackOf.put(t.id(), t.failureDomain()));
    for (int i = 0; i < 50; i++) {
      List<String> m = p.place(layout(4, Across.mirror(2), List.of())).targets();
      assertTrue(windowsDistinct(m, rackOf, 2), "mirror:2 copies in one rack: " + m);
    }

    // a fifth node without a label is a third domain: ec:2+1 now places, racks kept apart
    TestNode loose = node(nodes.size() + 1);
    loose.add("t0", "default", "raid6:4+2", 4 * TestNode.TIB);
    loose.start();
    eventually("5 targets", () -> r.targets().size() == 5);
    r.targets().forEach(t -> rackOf.put(t.id(), t.failureDomain()));
    for (int i = 0; i < 50; i++) {
      List<String> ec = p.place(layout(3, Across.ec(2, 1), List.of())).targets();
      assertTrue(windowsDistinct(ec, rackOf, 3), "ec:2+1 members sharing a domain: " + ec);
    }
  }

  @Test
  void namedTargetsOnOneNodeWithinAWindowAreRefused() throws Exception {
    cluster(3, 2);
    TargetRegistry r = registry(6);
    Map<String, List<String>> byNode = new HashMap<>();
    r.targets().forEach(t -> byNode.computeIfAbsent(t.nodeId(), k -> new ArrayList<>())
        .add(t.id()));
    List<String> sameNode = byNode.values().iterator().next();
    TargetPlacement p = new TargetPlacement(r, PlacementConfig.DEFAULT);
    Layout pinned = layout(3, Across.ec(2, 1), sameNode);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> p.check(pinned, "/d"));
    assertTrue(e.getMessage().contains("within 3 positions of each other"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> p.place(pinned, "/d/f"));
    // one pinned target: the others are placed on the two other nodes
    Layout one = layout(3, Across.ec(2, 1), List.of(sameNode.get(0)));
    Set<String> nodes = new HashSet<>();
    for (String id : p.place(one).targets()) {
      nodes.add(r.target(id).orElseThrow().nodeId());
    }
    assertEquals(3, nodes.size());
  }

  @Test
  void aPinnedTargetsNodeCountsTowardsTheNodesThePolicyNeeds() throws Exception {
    cluster(3, 1); // one target per node: pinning one leaves two nodes to draw from
    TargetRegistry r = registry(3);
    TargetPlacement p = new TargetPlacement(r, PlacementConfig.DEFAULT);
    String pinned = r.targets().get(0).id();
    List<String> placed = p.place(layout(3, Across.ec(2, 1), List.of(pinned))).targets();
    assertEquals(pinned, placed.get(0));
    assertEquals(3, new HashSet<>(placed).size());
  }

  /**
   * A node down (docs/across-nodes.md §5): ec:2+1 on three nodes, one offline, still places new
   * files, on one group of three whose third member is the offline node's target (degraded from
   * birth: writes leave it out and record it); mirror:2 places on the two online nodes only;
   * with two of three nodes down, ec:2+1 is refused (one online node cannot hold K = 2).
   */
  @Test
  void aNodeDownPlacesDegradedFromBirthOnlyWhileAGroupCanBeRead() throws Exception {
    cluster(3, 1);
    TargetRegistry r = registry(3);
    TargetPlacement p = new TargetPlacement(r, PlacementConfig.builder().seed(5).build());
    TestNode gone = nodes.get(0);
    String goneTarget = r.targets().stream().filter(t -> t.nodeId().equals(gone.id))
        .findFirst().orElseThrow().id();
    gone.stop();
    eventually("the node probably offline", () -> r.target(goneTarget).orElseThrow()
        .reachability() == Reachability.PROBABLY_OFFLINE);
    for (int i = 0; i < 20; i++) {
      Layout ec = p.place(layout(3, Across.ec(2, 1), List.of()), "/d/f");
      assertEquals(3, ec.stripeCount());
      assertEquals(3, new HashSet<>(ec.targets()).size());
      assertTrue(ec.targets().contains(goneTarget), "its third member: " + ec.targets());
      Layout mirror = p.place(layout(3, Across.mirror(2), List.of()), "/d/m");
      assertEquals(2, mirror.stripeCount(), "mirror:2 fits the two online nodes");
      assertTrue(!mirror.targets().contains(goneTarget), mirror.targets().toString());
    }
    nodes.get(1).stop();
    eventually("two nodes probably offline", () -> r.targets().stream()
        .filter(t -> t.reachability() == Reachability.ONLINE).count() == 1);
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> p.place(layout(3, Across.ec(2, 1), List.of()), "/d/g"));
    assertEquals(NamespaceStatus.UNAVAILABLE, e.status());
  }
}
