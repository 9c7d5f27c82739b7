package io.parityfs.meta.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.Layout;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TargetPlacementTest extends RegistryFixture {
  private static final long TIB = TestNode.TIB;

  private static Layout layout(int stripeCount, String pool) {
    return new Layout(8 << 20, stripeCount, List.of(), "raid6:4+2", Across.NONE, pool);
  }

  private TargetPlacement placement(TargetRegistry r, long seed) {
    return new TargetPlacement(r, PlacementConfig.builder().seed(seed).build());
  }

  /** {@code count} nodes with {@code perNode} raid6:4+2 targets each in {@code pool}. */
  private void cluster(int count, int perNode, String pool, long free) throws Exception {
    for (int i = 0; i < count; i++) {
      TestNode n = node(nodes.size() + 1);
      for (int j = 0; j < perNode; j++) {
        n.add("t" + j, pool, "raid6:4+2", free);
      }
      n.start();
    }
  }

  private Map<String, String> nodeOf(TargetRegistry r) {
    Map<String, String> out = new HashMap<>();
    r.targets().forEach(t -> out.put(t.id(), t.nodeId()));
    return out;
  }

  @Test
  void choosesDistinctTargetsOfTheLayoutsPoolOnly() throws Exception {
    cluster(3, 2, "default", 4 * TIB);
    cluster(1, 2, "ssd", 4 * TIB);
    TargetRegistry r = openRegistry();
    TargetPlacement p = placement(r, 1);
    Set<String> ssd = new HashSet<>();
    r.targets().stream().filter(t -> t.pool().equals("ssd")).forEach(t -> ssd.add(t.id()));
    for (int i = 0; i < 200; i++) {
      Layout l = p.place(layout(4, "default"));
      assertEquals(4, l.targets().size());
      assertEquals(4, new HashSet<>(l.targets()).size(), "distinct: " + l.targets());
      assertTrue(l.targets().stream().noneMatch(ssd::contains), "pool default only");
      assertEquals("default", l.pool());
      assertEquals(8 << 20, l.chunkSize());
    }
    Layout l = p.place(layout(2, "ssd"));
    assertEquals(ssd, new HashSet<>(l.targets()));
  }

  @Test
  void spreadsOverNodesBeforeReusingOne() throws Exception {
    cluster(4, 3, "default", 4 * TIB);
    TargetRegistry r = openRegistry();
    Map<String, String> node = nodeOf(r);
    TargetPlacement p = placement(r, 2);
    for (int i = 0; i < 200; i++) {
      List<String> four = p.place(layout(4, "default")).targets();
      assertEquals(4, four.stream().map(node::get).distinct().count(), "4 nodes: " + four);
      List<String> six = p.place(layout(6, "default")).targets();
      Map<String, Integer> perNode = new HashMap<>();
      six.forEach(t -> perNode.merge(node.get(t), 1, Integer::sum));
      assertEquals(4, perNode.size(), "every node used");
      assertTrue(perNode.values().stream().allMatch(c -> c <= 2), perNode.toString());
      assertEquals(6, new HashSet<>(six).size());
    }
  }

  @Test
  void skipsOfflineProbablyOfflineFailedAndFullTargets() throws Exception {
    TestNode good = node(1);
    TestNode.Target g0 = good.add("t0", "default", "raid6:4+2", 4 * TIB);
    TestNode.Target g1 = good.add("t1", "default", "raid6:4+2", 4 * TIB);
    TestNode.Target failed = good.add("t2", "default", "raid6:4+2", 4 * TIB);
    failed.state = "FAILED";
    // full: 1 % of 10 TiB (~102 GiB) is the reserve; 50 GiB free is below it
    TestNode.Target full = good.add("t3", "default", "raid6:4+2", 50L << 30);
    TestNode.Target degraded = good.add("t4", "default", "raid6:4+2", 4 * TIB);
    degraded.state = "DEGRADED";
    good.start();
    TestNode gone = node(2);
    TestNode.Target probably = gone.add("t0", "default", "raid6:4+2", 4 * TIB);
    gone.start();
    TestNode marked = node(3);
    TestNode.Target offline = marked.add("t0", "default", "raid6:4+2", 4 * TIB);
    marked.start();
    TargetRegistry r = openRegistry();
    gone.stop();
    eventually("probably offline", () -> r.target(probably.id).orElseThrow().reachability()
        == Reachability.PROBABLY_OFFLINE);
    r.markOffline(offline.id, "test");

    TargetPlacement p = placement(r, 3);
    Set<String> eligible = Set.of(g0.id, g1.id, degraded.id);
    for (int i = 0; i < 50; i++) {
      assertEquals(eligible, new HashSet<>(p.place(layout(3, "default")).targets()));
    }
    // more wanted than eligible: the file is placed on the eligible ones, its stripe count
    // lowered to match (a node down must not fail every create)
    Layout fewer = p.place(layout(5, "default"), "/data/f");
    assertEquals(eligible, new HashSet<>(fewer.targets()));
    assertEquals(3, fewer.stripeCount());

    // none eligible: the error names why each was skipped
    r.markOffline(g0.id, "test");
    r.markOffline(g1.id, "test");
    r.markOffline(degraded.id, "test");
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> p.place(layout(4, "default"), "/data/f"));
    assertEquals(NamespaceStatus.UNAVAILABLE, e.status(), "space alone would not do");
    assertEquals("UNAVAILABLE: /data/f: placement in pool 'default': 4 targets wanted,"
        + " 0 eligible of 7 in the pool; skipped: 4 offline, 1 probably offline, 1 failed,"
        + " 1 full (free below the reserve)", e.getMessage());

    // once the node stays away past the timeout it counts as offline
    clock.advance(TIMEOUT);
    e = assertThrows(NamespaceException.class, () -> p.place(layout(1, "default")));
    assertTrue(e.getMessage().contains("skipped: 5 offline, 1 failed, 1 full"), e.getMessage());
  }

  @Test
  void fullTargetsAreNoSpaceAndAnEmptyPoolNamesThePoolsThereAre() throws Exception {
    cluster(2, 1, "default", 4 * TIB);
    cluster(2, 1, "default", 1L << 29); // 512 MiB free: below the 1 GiB floor
    cluster(1, 1, "ssd", 4 * TIB);
    TargetRegistry r = openRegistry();
    TargetPlacement p = placement(r, 4);
    assertEquals(2, p.place(layout(3, "default")).stripeCount(), "the two with space");
    TargetPlacement strict = new TargetPlacement(r, PlacementConfig.builder()
        .reserveBytes(8 * TIB).seed(4).build());
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> strict.place(layout(3, "default")));
    assertEquals(NamespaceStatus.NO_SPACE, e.status(), "every target below the reserve");
    assertTrue(e.getMessage().contains("3 targets wanted, 0 eligible of 4 in the pool; skipped:"
        + " 4 full (free below the reserve)"), e.getMessage());

    e = assertThrows(NamespaceException.class, () -> p.place(layout(1, "nvme")));
    assertEquals(NamespaceStatus.UNAVAILABLE, e.status());
    assertTrue(e.getMessage().endsWith("placement in pool 'nvme': 1 target wanted, but the pool"
        + " has no targets (pools known: default, ssd)"), e.getMessage());

    TargetPlacement noReserve = new TargetPlacement(r, PlacementConfig.builder().reserveBytes(0)
        .reserveFraction(0).seed(4).build());
    assertEquals(4, noReserve.place(layout(4, "default")).targets().size());
  }

  @Test
  void drawsInProportionToFreeSpace() throws Exception {
    long[] free = {TIB, 2 * TIB, 3 * TIB, 4 * TIB};
    Map<String, Long> freeOf = new HashMap<>();
    for (long f : free) {
      TestNode n = node(nodes.size() + 1);
      freeOf.put(n.add("t0", "default", "raid6:4+2", f).id, f);
      n.start();
    }
    TargetRegistry r = openRegistry();
    TargetPlacement p = placement(r, 5);
    int draws = 20_000;
    Map<String, Integer> count = new HashMap<>();
    for (int i = 0; i < draws; i++) {
      count.merge(p.place(layout(1, "default")).targets().get(0), 1, Integer::sum);
    }
    for (Map.Entry<String, Long> e : freeOf.entrySet()) {
      double want = e.getValue() / (10.0 * TIB);
      double got = count.getOrDefault(e.getKey(), 0) / (double) draws;
      // binomial sigma at 20,000 draws is at most 0.0035: 0.015 is > 4 sigma
      assertEquals(want, got, 0.015, "share of the target with " + e.getValue() / TIB + " TiB");
    }
    // without replacement: in pairs, the emptiest target is still drawn least
    Map<String, Integer> pairs = new HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      p.place(layout(2, "default")).targets().forEach(t -> pairs.merge(t, 1, Integer::sum));
    }
    String emptiest = freeOf.entrySet().stream().min(Map.Entry.comparingByValue())
        .orElseThrow().getKey();
    String fullest = freeOf.entrySet().stream().max(Map.Entry.comparingByValue())
        .orElseThrow().getKey();
    assertTrue(pairs.get(emptiest) < pairs.get(fullest), pairs.toString());
  }

  @Test
  void theSameSeedGivesTheSameChoices() throws Exception {
    cluster(5, 2, "default", 4 * TIB);
    TargetRegistry r = openRegistry();
    TargetPlacement a = placement(r, 42);
    TargetPlacement b = placement(r, 42);
    for (int i = 0; i < 20; i++) {
      assertEquals(a.place(layout(3, "default")), b.place(layout(3, "default")));
    }
  }

  @Test
  void prefersTargetsOfTheLayoutsProtection() throws Exception {
    for (int i = 0; i < 4; i++) {
      TestNode n = node(nodes.size() + 1);
      n.add("r6", "default", "raid6:4+2", TIB);
      n.add("rs", "default", "rs:8+3", 4 * TIB);
      n.start();
    }
    TargetRegistry r = openRegistry();
    Map<String, String> protection = new HashMap<>();
    r.targets().forEach(t -> protection.put(t.id(), t.protection()));
    TargetPlacement p = placement(r, 6);
    for (int i = 0; i < 100; i++) {
      List<String> four = p.place(layout(4, "default")).targets();
      assertTrue(four.stream().allMatch(t -> protection.get(t).equals("raid6:4+2")),
          "enough raid6:4+2 targets, though emptier: " + four);
      List<String> six = p.place(layout(6, "default")).targets();
      assertEquals(4, six.stream().filter(t -> protection.get(t).equals("raid6:4+2")).count(),
          "all 4 of its protection, then 2 others: " + six);
    }
  }

  @Test
  void honoursTargetsTheLayoutNames() throws Exception {
    cluster(4, 1, "default", 4 * TIB);
    TestNode other = node(9);
    TestNode.Target elsewhere = other.add("t0", "ssd", "rs:8+3", 4 * TIB);
    TestNode.Target broken = other.add("t1", "ssd", "rs:8+3", 4 * TIB);
    broken.state = "FAILED";
    other.start();
    TargetRegistry r = openRegistry();
    Map<String, String> node = nodeOf(r);
    TargetPlacement p = placement(r, 7);

    Layout given = layout(3, "default").withTargets(List.of(elsewhere.id));
    for (int i = 0; i < 50; i++) {
      List<String> t = p.place(given).targets();
      assertEquals(elsewhere.id, t.get(0), "kept first, though in another pool");
      assertEquals(3, t.stream().map(node::get).distinct().count(), "other nodes: " + t);
    }
    Layout complete = layout(1, "default").withTargets(List.of(elsewhere.id));
    assertEquals(complete, p.place(complete));

    NamespaceException e = assertThrows(NamespaceException.class,
        () -> p.place(layout(2, "default").withTargets(List.of("nonexistent"))));
    assertEquals(NamespaceStatus.NOT_FOUND, e.status());
    assertTrue(e.getMessage().contains("target nonexistent, which the target registry does not"
        + " know"), e.getMessage());

    e = assertThrows(NamespaceException.class,
        () -> p.place(layout(2, "default").withTargets(List.of(broken.id))));
    assertEquals(NamespaceStatus.UNAVAILABLE, e.status());
    assertTrue(e.getMessage().endsWith("which is FAILED"), e.getMessage());

    r.markOffline(elsewhere.id, "drives pulled");
    e = assertThrows(NamespaceException.class, () -> p.place(given));
    assertEquals(NamespaceStatus.UNAVAILABLE, e.status());
    assertTrue(e.getMessage().contains(elsewhere.id + " on node " + other.id
        + " 10.0.0.9:7110, which is OFFLINE (drives pulled)"), e.getMessage());

    assertThrows(IllegalArgumentException.class, () -> p.place(
        layout(3, "default").withTargets(List.of(broken.id, broken.id))));
    assertFalse(r.targets().isEmpty());
  }
}
