package io.parityfs.meta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.registry.NodeRecord;
import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.meta.targets.MutableClock;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.Standing;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.meta.targets.TargetRegistry;
import io.parityfs.meta.targets.TargetRegistryConfig;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OfflineMarkerTest extends ClusterFixture {
  /** Each test starts from an empty registry (the class shares one ZooKeeper). */
  @BeforeEach
  void emptyRegistry() throws Exception {
    for (String folder : List.of(ZkPaths.NODES, ZkPaths.TARGETS, ZkPaths.ONLINE,
        ZkPaths.OFFLINE, ZkPaths.RETIRED)) {
      if (client.checkExists().forPath(folder) != null) {
        client.delete().deletingChildrenIfNeeded().forPath(folder);
      }
    }
  }

  static void register(CuratorFramework c, String node, String target, boolean online)
      throws Exception {
    long now = System.currentTimeMillis();
    c.create().creatingParentsIfNeeded().forPath(ZkPaths.node(node), RegistryCodec.encode(
        new NodeRecord(RegistryCodec.SCHEMA, node, node, "localhost", 7110, -1, List.of(target),
            now)));
    c.create().creatingParentsIfNeeded().forPath(ZkPaths.target(target), RegistryCodec.encode(
        new TargetRecord(RegistryCodec.SCHEMA, target, node, "t0", null, "raid6:4+2", 65536,
            64L << 20, 6, 0, now, "OPTIMAL", 1L << 40, now, 0)));
    if (online) {
      c.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
          .forPath(ZkPaths.online(node), RegistryCodec.encode(new OnlineRecord(
              RegistryCodec.SCHEMA, node, node, "localhost", 7110, -1, now, now, 1L << 40, 0,
              List.of(new OnlineRecord.TargetStatus(target, "t0", "OPTIMAL", "raid6:4+2",
                  1L << 40, 0, "cpu", "test", List.of(), List.of())))));
    }
  }

  @Test
  void marksOnlyTargetsGoneLongerThanTheRegistrysTimeout() throws Exception {
    register(client, "node-gone", "target-gone", false);
    CuratorFramework liveNode = newClient(30_000);
    try {
      register(liveNode, "node-up", "target-up", true);
      MutableClock clock = new MutableClock(System.currentTimeMillis());
      try (TargetRegistry registry = TargetRegistry.open(client, TargetRegistryConfig.builder()
          .offlineTimeout(Duration.ofMinutes(10)).clock(clock).build())) {
        ManagerCounters counters = new ManagerCounters();
        OfflineMarker task = new OfflineMarker(registry, Duration.ofSeconds(1), counters, "m1");

        task.runOnce(() -> true);
        assertEquals(Reachability.PROBABLY_OFFLINE,
            registry.target("target-gone").orElseThrow().reachability());
        assertNull(client.checkExists().forPath(ZkPaths.offline("target-gone")));

        clock.advance(Duration.ofMinutes(11));
        task.runOnce(() -> false); // not acting: nothing
        assertNull(client.checkExists().forPath(ZkPaths.offline("target-gone")));
        task.runOnce(() -> true);
        assertNotNull(client.checkExists().forPath(ZkPaths.offline("target-gone")));
        assertNull(client.checkExists().forPath(ZkPaths.offline("target-up")));
        assertEquals(1, counters.targetsMarkedOffline.get());
        String reason = registry.target("target-gone").orElseThrow().offlineReason();
        assertTrue(reason.contains("node-gone") && reason.contains("m1"), reason);

        task.runOnce(() -> true); // marked already: not again
        assertEquals(1, counters.targetsMarkedOffline.get());
        assertEquals(Reachability.ONLINE,
            registry.target("target-up").orElseThrow().reachability());
      }
    } finally {
      liveNode.close();
    }
  }

  @Test
  void declaresBadOnlyTargetsGoneLongerThanDeadAfter() throws Exception {
    register(client, "node-lost", "target-lost", false);
    CuratorFramework liveNode = newClient(30_000);
    try {
      register(liveNode, "node-alive", "target-alive", true);
      MutableClock clock = new MutableClock(System.currentTimeMillis());
      try (TargetRegistry registry = TargetRegistry.open(client, TargetRegistryConfig.builder()
          .offlineTimeout(Duration.ofMinutes(10)).clock(clock).build())) {
        ManagerCounters counters = new ManagerCounters();
        ClusterManagerConfig config = ClusterManagerConfig.builder()
            .deadAfter(Duration.ofHours(1)).build();
        DeadMarker task = new DeadMarker(registry, config, counters, "m1", clock::millis);
        clock.advance(Duration.ofMinutes(59));
        task.runOnce(() -> true);
        assertEquals(Standing.IN_SERVICE, registry.target("target-lost").orElseThrow()
            .standing(), "OFFLINE, but not for an hour yet");
        clock.advance(Duration.ofMinutes(2));
        task.runOnce(() -> false); // not acting: nothing
        assertNull(client.checkExists().forPath(ZkPaths.retired("target-lost")));
        task.runOnce(() -> true);
        TargetInfo lost = registry.target("target-lost").orElseThrow();
        assertEquals(Standing.BAD, lost.standing());
        assertTrue(lost.standingReason().contains("node-lost")
            && lost.standingReason().contains("deadAfter"), lost.standingReason());
        assertEquals(Standing.IN_SERVICE, registry.target("target-alive").orElseThrow()
            .standing());
        task.runOnce(() -> true);
        assertEquals(1, counters.targetsDeclaredBad.get(), "declared once");
      }
    } finally {
      liveNode.close();
    }
    assertThrows(IllegalArgumentException.class,
        () -> ClusterManagerConfig.builder().deadAfter(Duration.ofSeconds(-1)).build());
    assertEquals(Duration.ZERO, ClusterManagerConfig.DEFAULT.deadAfter(), "off by default");
  }
}
