package io.parityfs.meta.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.Layout;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.registry.MoveProgress;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.ZkPaths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Retirement marks (docs/across-nodes.md §5): a draining or bad target takes no new file and no
 * replacement, keeps its standing across its node's restarts and in every registry view, and a
 * bad target's records are removed only once its node is down, the mark staying behind.
 */
class RetirementsTest extends RegistryFixture {
  private static Layout layout(int stripeCount, Across across, List<String> targets) {
    return new Layout(8 << 20, stripeCount, targets, "raid6:4+2", across, "default");
  }

  private List<TestNode> cluster(int count) throws Exception {
    List<TestNode> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      TestNode n = node(nodes.size() + 1);
      n.add("t0", "default", "raid6:4+2", 4 * TestNode.TIB);
      out.add(n.start());
    }
    return out;
  }

  private static String targetOf(TestNode n) {
    return n.targets().get(0).id;
  }

  @Test
  void retiredTargetsTakeNothingNewAndKeepTheirStandingAcrossRestarts() throws Exception {
    List<TestNode> ns = cluster(4);
    TargetRegistry r = openRegistry();
    eventually("4 targets", () -> r.targets().size() == 4);
    Retirements ret = new Retirements(r);
    String draining = targetOf(ns.get(0));
    String bad = targetOf(ns.get(1));
    ret.retire(draining, Standing.DRAINING, "drain by test");
    ret.retire(bad, Standing.BAD, "lost in test");
    assertEquals(Standing.DRAINING, r.target(draining).orElseThrow().standing());
    assertEquals("drain by test", r.target(draining).orElseThrow().standingReason());
    assertFalse(r.target(bad).orElseThrow().placeable());
    // another view sees it from ZooKeeper
    TargetRegistry other = openRegistry();
    assertEquals(Standing.BAD, other.target(bad).orElseThrow().standing());

    TargetPlacement p = new TargetPlacement(r, PlacementConfig.builder().seed(3).build());
    for (int i = 0; i < 50; i++) {
      List<String> placed = p.place(layout(2, Across.mirror(2), List.of())).targets();
      assertFalse(placed.contains(draining) || placed.contains(bad), placed.toString());
    }
    NamespaceException tooFew = assertThrows(NamespaceException.class,
        () -> p.place(layout(3, Across.ec(2, 1), List.of())));
    assertEquals(NamespaceStatus.UNAVAILABLE, tooFew.status(), tooFew.getMessage());

    // a replacement for a position is never the retired targets, nor one the layout names
    List<String> all = List.of(targetOf(ns.get(0)), targetOf(ns.get(1)), targetOf(ns.get(2)));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      seen.add(p.replacement(layout(3, Across.ec(2, 1), all), 1, "/f"));
    }
    assertEquals(Set.of(targetOf(ns.get(3))), seen);
    assertEquals(NamespaceStatus.UNAVAILABLE, assertThrows(NamespaceException.class,
        () -> p.replacement(layout(3, Across.ec(2, 1), List.of(targetOf(ns.get(0)),
            targetOf(ns.get(3)), targetOf(ns.get(2)))), 1, "/f")).status());

    // a restart of the node (new session, records rewritten) keeps the mark
    ns.get(1).stop();
    ns.get(1).start();
    eventually("node back", () -> r.target(bad).orElseThrow().reachability()
        == Reachability.ONLINE);
    assertEquals(Standing.BAD, r.target(bad).orElseThrow().standing());
    assertTrue(ret.reinstate(draining));
    assertFalse(ret.reinstate(draining));
    assertEquals(Standing.IN_SERVICE, r.target(draining).orElseThrow().standing());
    eventually("the other view sees it", () -> other.target(draining).orElseThrow().standing()
        == Standing.IN_SERVICE);
    assertThrows(IllegalArgumentException.class,
        () -> ret.retire(draining, Standing.IN_SERVICE, ""));
    assertEquals(NamespaceStatus.NOT_FOUND, assertThrows(NamespaceException.class,
        () -> ret.retire("no-such-target", Standing.BAD, "")).status());
  }

  @Test
  void aBadTargetsRecordsGoOnlyOnceItsNodeIsDownAndTheMarkStays() throws Exception {
    List<TestNode> ns = cluster(2);
    TargetRegistry r = openRegistry();
    eventually("2 targets", () -> r.targets().size() == 2);
    Retirements ret = new Retirements(r);
    String gone = targetOf(ns.get(0));
    String up = targetOf(ns.get(1));
    assertThrows(IllegalStateException.class, () -> ret.removeRecords(up), "in service");
    ret.retire(gone, Standing.BAD, "lost");
    assertThrows(IllegalStateException.class, () -> ret.removeRecords(gone), "node online");
    ret.recordProgress(new MoveProgress(RegistryCodec.SCHEMA, gone, "test", "reprotect", 3, 1,
        12, 4096, 1000, 2000, false));
    assertEquals(3, ret.progress(gone).orElseThrow().filesMoved());
    assertTrue(ret.progress(up).isEmpty());

    ns.get(0).stop();
    eventually("node down", () -> r.target(gone).orElseThrow().reachability()
        != Reachability.ONLINE);
    ret.removeRecords(gone);
    assertTrue(r.target(gone).isEmpty(), "gone from the view");
    assertNull(client.checkExists().forPath(ZkPaths.target(gone)));
    assertNull(client.checkExists().forPath(ZkPaths.node(ns.get(0).id)));
    assertTrue(ret.progress(gone).isEmpty());
    assertNotEquals(null, client.checkExists().forPath(ZkPaths.retired(gone)), "mark kept");
    ret.removeRecords(gone); // unknown now: nothing to do

    // the node returns with it: known at once as bad
    ns.get(0).start();
    eventually("back", () -> r.target(gone).isPresent());
    assertEquals(Standing.BAD, r.target(gone).orElseThrow().standing());
    assertEquals(Standing.IN_SERVICE, r.target(up).orElseThrow().standing());
  }
}
