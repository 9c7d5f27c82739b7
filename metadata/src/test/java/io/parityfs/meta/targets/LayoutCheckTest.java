package io.parityfs.meta.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code Namespace.setLayout} with placement refuses, when the layout is set, what no create
 * could ever be placed with (issue 15 item 7: {@code setstripe} took a stripe count of 1000 on 3
 * targets, a pool that does not exist and target ids that do not exist), and places an empty
 * file's targets.
 */
class LayoutCheckTest extends RegistryFixture {
  private static Layout layout(int stripeCount, List<String> targets, String pool) {
    return new Layout(1 << 20, stripeCount, targets, "raid6:4+2", Across.NONE, pool);
  }

  @Test
  void refusesWhatNoCreateCouldBePlacedWithNamingTheValue() throws Exception {
    TestNode n = node(1);
    TestNode.Target t0 = n.add("t0", "default", "raid6:4+2", TestNode.TIB);
    n.add("t1", "default", "raid6:4+2", TestNode.TIB);
    n.add("t2", "default", "raid6:4+2", TestNode.TIB);
    TestNode.Target ssd = n.add("s0", "ssd", "raid6:4+2", TestNode.TIB);
    n.start();
    TargetRegistry r = openRegistry();
    eventually("4 targets", () -> r.targets().size() == 4);
    try (Namespace base = Namespace.open(client, NamespaceConfig.builder().root("/ns")
        .ifMissing(NamespaceConfig.IfMissing.FORMAT).build())) {
      Namespace ns = base.withPlacement(new TargetPlacement(r, PlacementConfig.DEFAULT));
      ns.mkdirs("/d");

      IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
          () -> ns.setLayout("/d", layout(1000, List.of(), "default")));
      assertEquals("stripe count (1000) is more than the 3 targets of pool 'default'",
          wide.getMessage());
      NamespaceException pool = assertThrows(NamespaceException.class,
          () -> ns.setLayout("/d", layout(1, List.of(), "nosuchpool")));
      assertEquals(NamespaceStatus.NOT_FOUND, pool.status());
      assertTrue(pool.getMessage().contains("pool 'nosuchpool' has no targets (pools known:"
          + " default, ssd)"), pool.getMessage());
      NamespaceException target = assertThrows(NamespaceException.class,
          () -> ns.setLayout("/d", layout(2, List.of(t0.id, "no-such-target"), "default")));
      assertEquals(NamespaceStatus.NOT_FOUND, target.status());
      assertTrue(target.getMessage().contains("layout names target no-such-target, which the"
          + " target registry does not know"), target.getMessage());
      IllegalArgumentException beyond = assertThrows(IllegalArgumentException.class,
          () -> ns.setLayout("/d", layout(5, List.of(ssd.id), "default")));
      assertEquals("stripe count (5) is more than the 1 target named plus the 3 other targets"
          + " of pool 'default'", beyond.getMessage());
      assertThrows(IllegalArgumentException.class,
          () -> ns.setLayout("/d", layout(2, List.of(t0.id, t0.id), "default")));
      assertEquals(Layout.DEFAULT, ns.getStatus("/d").layout(), "nothing was set");
      Layout pinned = layout(4, List.of(ssd.id), "default");
      assertEquals(pinned, ns.setLayout("/d", pinned).layout());

      // what the cluster can satisfy is set, targets offline now included (they may return)
      Layout three = layout(3, List.of(), "default");
      assertEquals(three, ns.setLayout("/d", three).layout());
      assertEquals(layout(1, List.of(), "ssd"),
          ns.setLayout("/d", layout(1, List.of(), "ssd")).layout());
      n.stop();
      eventually("offline", () -> r.targets().stream()
          .allMatch(t -> t.reachability() != Reachability.ONLINE));
      assertEquals(three, ns.setLayout("/d", three).layout());
      assertThrows(IllegalArgumentException.class,
          () -> ns.setLayout("/d", layout(4, List.of(), "default")));
    }
  }

  @Test
  void anEmptyFileGetsItsTargetsPlacedAsAtCreate() throws Exception {
    TestNode n = node(1);
    TestNode.Target t0 = n.add("t0", "default", "raid6:4+2", TestNode.TIB);
    n.add("t1", "default", "raid6:4+2", TestNode.TIB);
    n.add("t2", "default", "raid6:4+2", TestNode.TIB);
    n.start();
    TargetRegistry r = openRegistry();
    eventually("3 targets", () -> r.targets().size() == 3);
    try (Namespace base = Namespace.open(client, NamespaceConfig.builder().root("/ns")
        .ifMissing(NamespaceConfig.IfMissing.FORMAT).build())) {
      Namespace ns = base.withPlacement(new TargetPlacement(r, PlacementConfig.DEFAULT));
      ns.create("/f", CreateOptions.file().withLease(false)
          .withLayout(layout(1, List.of(), "default")));
      FileStatus f = ns.setLayout("/f", layout(3, List.of(), "default"));
      assertEquals(3, new HashSet<>(f.layout().targets()).size(), f.layout().toString());
      FileStatus pinned = ns.setLayout("/f", layout(2, List.of(t0.id), "default"));
      assertEquals(2, pinned.layout().targets().size());
      assertEquals(t0.id, pinned.layout().targets().get(0), "named targets first");
    }
  }

  /**
   * Issue 39 item 5: {@code setstripe --protection raid6:8+2} was accepted on raid6:4+2 targets
   * and getstripe then showed a protection the data did not have. A scheme some target of the
   * pool (or a named one) has passes, offline targets included.
   */
  @Test
  void refusesAProtectionNoTargetOfThePoolOffers() throws Exception {
    TestNode n = node(1);
    n.add("t0", "default", "raid6:4+2", TestNode.TIB);
    n.add("t1", "default", "mirror:2", TestNode.TIB);
    TestNode.Target ssd = n.add("s0", "ssd", "rs:8+3", TestNode.TIB);
    n.start();
    TargetRegistry r = openRegistry();
    eventually("3 targets", () -> r.targets().size() == 3);
    TargetPlacement p = new TargetPlacement(r, PlacementConfig.DEFAULT);
    Layout l = layout(1, List.of(), "default");
    java.util.function.Function<String, Layout> scheme = x -> new Layout(1 << 20, 1, List.of(), x,
        Across.NONE, "default");

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> p.checkProtection(scheme.apply("raid6:8+2")));
    assertEquals("protection (raid6:8+2) is not offered by any target of pool 'default': its 2"
        + " targets offer mirror:2, raid6:4+2", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> p.checkProtection(scheme.apply("rs:4+2")));
    assertTrue(e.getMessage().startsWith("protection (rs:4+2) is not offered"), e.getMessage());
    p.checkProtection(l);
    p.checkProtection(scheme.apply("mirror:2"));
    p.checkProtection(new Layout(1 << 20, 2, List.of(ssd.id), "rs:8+3", Across.NONE,
        "default")); // a named target's scheme counts
    p.checkProtection(layout(1, List.of(), "nosuchpool")); // left to check(): NOT_FOUND
    n.stop();
    eventually("offline", () -> r.targets().stream()
        .allMatch(t -> t.reachability() != Reachability.ONLINE));
    p.checkProtection(l); // they may come back
  }
}
