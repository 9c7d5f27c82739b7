package io.parityfs.meta.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.registry.ZkPaths;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.Test;

class TargetRegistryTest extends RegistryFixture {

  private static Reachability reach(TargetRegistry r, TestNode.Target t) {
    return r.target(t.id).orElseThrow().reachability();
  }

  @Test
  void seesNodesThatWereThereAndNodesThatCome() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    TestNode.Target a1 = a.add("t1", "archive", "rs:8+3", 5 * TestNode.TIB);
    a.start();
    TargetRegistry r = openRegistry();

    List<TargetInfo> all = r.targets();
    assertEquals(2, all.size());
    TargetInfo t = r.target(a0.id).orElseThrow();
    assertEquals(a0.id, t.id());
    assertEquals(a.id, t.nodeId());
    assertEquals("10.0.0.1:7110", t.address());
    assertEquals("t0", t.name());
    assertEquals("default", t.pool());
    assertEquals("raid6:4+2", t.protection());
    assertEquals(10 * TestNode.TIB, t.capacityBytes());
    assertEquals(3 * TestNode.TIB, t.freeBytes());
    assertEquals(Reachability.ONLINE, t.reachability());
    assertEquals(Consistency.GOOD, t.consistency());
    assertEquals("", t.offlineReason());
    assertTrue(t.updated().toEpochMilli() > 0);
    assertEquals("archive", r.target(a1.id).orElseThrow().pool());
    assertTrue(r.connected());
    assertTrue(r.unreadable().isEmpty());

    TestNode b = node(2);
    TestNode.Target b0 = b.add("t0", "default", "raid6:4+2", TestNode.TIB);
    b.start();
    eventually("the new node's target", () -> r.target(b0.id).isPresent()
        && reach(r, b0) == Reachability.ONLINE);
    assertEquals("10.0.0.2:7110", r.target(b0.id).orElseThrow().address());
    assertEquals(3, r.targets().size());
  }

  /**
   * Issue 15 item 7: the file systems a node names reach the view, a node that names none (an
   * older one) has none, and the total counts the file system two nodes share once.
   */
  @Test
  void fileSystemsReachTheViewAndTheTotalCountsASharedOneOnce() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    a0.fileSystems = java.util.Map.of("machine:803", 6);
    a.start();
    TestNode b = node(2);
    TestNode.Target b0 = b.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    b0.fileSystems = java.util.Map.of("machine:803", 6);
    b.start();
    TestNode older = node(3);
    TestNode.Target c0 = older.add("t0", "default", "raid6:4+2", TestNode.TIB);
    older.start();
    TargetRegistry r = openRegistry();
    assertEquals(java.util.Map.of("machine:803", 6), r.target(a0.id).orElseThrow().fileSystems());
    assertEquals(java.util.Map.of(), r.target(c0.id).orElseThrow().fileSystems());
    assertEquals(new SpaceTotal(20 * TestNode.TIB, 4 * TestNode.TIB), SpaceTotal.of(r.targets()),
        "a0 and b0 share one disk: counted once; the older node's target in full");
  }

  /**
   * A node that moved while the view's watch events are held back (its ZooKeeper event thread
   * busy): the view keeps the old address, {@code refresh(targetId)} reads the target's records
   * from ZooKeeper and shows the new one (audit, Low: a stale registry address after a restart).
   */
  @Test
  void refreshOfOneTargetReadsItsRecordsFromZooKeeperNotTheView() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", TestNode.TIB);
    a.start();
    TargetRegistry r = openRegistry();
    assertEquals("10.0.0.1:7110", r.target(a0.id).orElseThrow().address());
    java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    client.checkExists().usingWatcher((org.apache.zookeeper.Watcher) e -> {
      held.countDown();
      try {
        release.await();
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
      }
    }).forPath("/hold");
    client.create().forPath("/hold"); // the watch holds the event thread the view's watches use
    held.await();
    try {
      client.setData().forPath(ZkPaths.node(a.id), io.parityfs.meta.registry.RegistryCodec.encode(
          new io.parityfs.meta.registry.NodeRecord(1, a.id, "moved", "10.0.0.9", 7999, -1,
              List.of(a0.id), 1)));
      assertEquals("10.0.0.1:7110", r.target(a0.id).orElseThrow().address(), "stale view");
      assertEquals("10.0.0.9:7999", r.refresh(a0.id).orElseThrow().address());
      assertEquals("10.0.0.9:7999", r.target(a0.id).orElseThrow().address());
      assertTrue(r.refresh("no-such-target").isEmpty());
    } finally {
      release.countDown();
    }
  }

  @Test
  void aNodeThatGoesIsProbablyOfflineThenOfflineAfterTheTimeout() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    a.start();
    TargetRegistry r = openRegistry();
    assertEquals(Reachability.ONLINE, reach(r, a0));

    a.stop(); // session closed: its ephemeral record goes
    eventually("PROBABLY_OFFLINE", () -> reach(r, a0) == Reachability.PROBABLY_OFFLINE);
    TargetInfo away = r.target(a0.id).orElseThrow();
    assertEquals(3 * TestNode.TIB, away.freeBytes(), "last reported free space kept");
    assertEquals("10.0.0.1:7110", away.address(), "from the persistent node record");
    clock.advance(TIMEOUT.minusMillis(1));
    assertEquals(Reachability.PROBABLY_OFFLINE, reach(r, a0));
    clock.advance(Duration.ofMillis(1));
    assertEquals(Reachability.OFFLINE, reach(r, a0));

    a.start();
    eventually("ONLINE again", () -> reach(r, a0) == Reachability.ONLINE);
  }

  @Test
  void aNodeNeverSeenOnlineCountsFromTheOpen() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", TestNode.TIB);
    a.writeRecordsOnly();
    TargetRegistry r = openRegistry();
    TargetInfo t = r.target(a0.id).orElseThrow();
    assertEquals(Reachability.PROBABLY_OFFLINE, t.reachability());
    assertEquals(Consistency.GOOD, t.consistency(), "from the target record");
    assertEquals(0, t.freeBytes(), "never reported");
    clock.advance(TIMEOUT);
    assertEquals(Reachability.OFFLINE, reach(r, a0));
  }

  @Test
  void arrayStatesMapToConsistency() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    a.start();
    TargetRegistry r = openRegistry();
    String[][] cases = {{"DEGRADED", "DEGRADED"}, {"REBUILDING", "REBUILDING"},
        {"FAILED", "FAILED"}, {"OPTIMAL", "GOOD"}, {"MELTED", "FAILED"}};
    for (String[] c : cases) {
      a0.state = c[0];
      a0.freeBytes -= TestNode.TIB / 10;
      a.publish();
      Consistency want = Consistency.valueOf(c[1]);
      long free = a0.freeBytes;
      eventually(c[0], () -> {
        TargetInfo t = r.target(a0.id).orElseThrow();
        return t.consistency() == want && t.freeBytes() == free;
      });
    }
    a0.state = "DEGRADED";
    a.publish();
    eventually("DEGRADED", () -> r.target(a0.id).orElseThrow().consistency()
        == Consistency.DEGRADED);
    a.stop();
    eventually("gone", () -> reach(r, a0) == Reachability.PROBABLY_OFFLINE);
    assertEquals(Consistency.DEGRADED, r.target(a0.id).orElseThrow().consistency(),
        "the target record's last state while the node is away");
  }

  @Test
  void anOfflineMarkPersistsAcrossRegistriesUntilTheNodeRegistersAgain() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    TestNode.Target a1 = a.add("t1", "default", "raid6:4+2", 3 * TestNode.TIB);
    a.start();
    TargetRegistry first = openRegistry();
    a.stop();
    eventually("PROBABLY_OFFLINE", () -> reach(first, a0) == Reachability.PROBABLY_OFFLINE);

    first.markOffline(a0.id, "away longer than 30 s");
    TargetInfo t = first.target(a0.id).orElseThrow();
    assertEquals(Reachability.OFFLINE, t.reachability(), "at once, in the marking registry");
    assertEquals("away longer than 30 s", t.offlineReason());
    assertEquals(Reachability.PROBABLY_OFFLINE, reach(first, a1), "only the target marked");
    first.close();

    TargetRegistry second = openRegistry(); // e.g. a restarted metadata server
    t = second.target(a0.id).orElseThrow();
    assertEquals(Reachability.OFFLINE, t.reachability(), "the mark is persistent");
    assertEquals("away longer than 30 s", t.offlineReason());
    assertEquals(Reachability.PROBABLY_OFFLINE, reach(second, a1));

    a.start(); // registers again: the mark ends, and is deleted
    eventually("ONLINE", () -> reach(second, a0) == Reachability.ONLINE);
    assertEquals("", second.target(a0.id).orElseThrow().offlineReason());
    eventually("mark deleted", () -> {
      try {
        return client.checkExists().forPath(ZkPaths.offline(a0.id)) == null;
      } catch (Exception e) {
        return false;
      }
    });
    second.markOffline(a0.id, "again"); // a mark after the registration holds
    assertEquals(Reachability.OFFLINE, reach(second, a0));
    // and is not taken for a superseded one once its own watch event is read: a later change
    // (another node registering) reaches the view after it, since one session gets its watch
    // events in transaction order and one worker thread reads them in that order
    TestNode b = node(2);
    TestNode.Target b0 = b.add("t0", "default", "raid6:4+2", TestNode.TIB);
    b.start();
    eventually("a later registration seen", () -> second.target(b0.id).isPresent());
    assertEquals(Reachability.OFFLINE, reach(second, a0));
    assertEquals("again", second.target(a0.id).orElseThrow().offlineReason());
  }

  @Test
  void aMarkOnARegisteredNodeHoldsUntilClearedOrReRegistered() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    a.start();
    TargetRegistry r = openRegistry();
    TargetRegistry other = openRegistry();

    r.markOffline(a0.id, "not answering");
    assertEquals(Reachability.OFFLINE, reach(r, a0), "a mark newer than the registration");
    eventually("seen by another registry", () -> reach(other, a0) == Reachability.OFFLINE);
    a0.freeBytes -= TestNode.TIB;
    a.publish(); // a rewrite of the online record is no new registration
    eventually("free space updated", () -> r.target(a0.id).orElseThrow().freeBytes()
        == 2 * TestNode.TIB);
    assertEquals(Reachability.OFFLINE, reach(r, a0));

    r.markOffline(a0.id, "still not answering"); // replaces the mark
    assertEquals("still not answering", r.target(a0.id).orElseThrow().offlineReason());
    assertTrue(r.clearOffline(a0.id));
    assertEquals(Reachability.ONLINE, reach(r, a0));
    assertFalse(r.clearOffline(a0.id), "nothing left to clear");
    eventually("cleared for the other", () -> reach(other, a0) == Reachability.ONLINE);

    NamespaceException e = assertThrows(NamespaceException.class,
        () -> r.markOffline("no-such-target", "x"));
    assertEquals(NamespaceStatus.NOT_FOUND, e.status());
    assertTrue(e.getMessage().contains("no-such-target"), e.getMessage());
  }

  @Test
  void aRecordOfAnUnknownSchemaIsLeftOutWithAClearReason() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    a.start();
    // the one hand-written record: what a newer ParityFS might write
    String path = ZkPaths.target("future-target");
    client.create().creatingParentsIfNeeded().forPath(path,
        ("{\"schema\":2,\"targetId\":\"future-target\",\"nodeId\":\"" + a.id
            + "\",\"placementGroups\":[1,2]}").getBytes(StandardCharsets.UTF_8));
    TargetRegistry r = openRegistry();

    assertTrue(r.target("future-target").isEmpty());
    assertEquals(Reachability.ONLINE, reach(r, a0), "the rest is read");
    String why = r.unreadable().get(path);
    assertNotNull(why, r.unreadable().toString());
    assertTrue(why.startsWith("CORRUPT: " + path + ": TargetRecord of schema 2; this code"
        + " reads schema 1 only"), why);

    client.delete().forPath(path);
    eventually("forgotten once deleted", () -> r.unreadable().isEmpty());
  }

  @Test
  void aLostSessionIsFollowedByAFullReadAndNewWatches() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    a.start();
    TargetRegistry r = openRegistry();
    long session = root.getZookeeperClient().getZooKeeper().getSessionId();
    KillSession.kill(root.getZookeeperClient().getZooKeeper()); // its watches die with it
    eventually("a new session", () -> {
      try {
        return root.getZookeeperClient().getZooKeeper().getSessionId() != session
            && r.connected();
      } catch (Exception e) {
        return false;
      }
    });
    a0.state = "REBUILDING";
    a.publish();
    TestNode b = node(2);
    TestNode.Target b0 = b.add("t0", "default", "raid6:4+2", TestNode.TIB);
    b.start();
    eventually("changes seen through the new session's watches", () ->
        r.target(a0.id).orElseThrow().consistency() == Consistency.REBUILDING
            && r.target(b0.id).isPresent());
  }

  @Test
  void closedRegistryKeepsItsLastViewAndRefusesWrites() throws Exception {
    TestNode a = node(1);
    TestNode.Target a0 = a.add("t0", "default", "raid6:4+2", 3 * TestNode.TIB);
    a.start();
    TargetRegistry r = openRegistry();
    // on the same ZooKeeper session: its watchers get the events r would get
    TargetRegistry witness = openRegistry();
    r.close();
    assertFalse(r.connected());
    a.stop();
    eventually("the witness saw the node go", () -> reach(witness, a0)
        == Reachability.PROBABLY_OFFLINE);
    witness.refresh(); // a barrier: several reads after the event r would have read in one
    assertEquals(Reachability.ONLINE, reach(r, a0), "no longer watching");
    assertThrows(IllegalStateException.class, () -> r.markOffline(a0.id, "x"));
    assertNull(client.checkExists().forPath(ZkPaths.OFFLINE));
  }
}
