package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.testkit.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.Test;

/**
 * The client-side lookup cache: hits cost no server read, other clients' changes are seen once
 * their watch fires, this client's own writes are never undone, a lost session empties it, and
 * it stays within its size.
 */
class EntryCacheTest extends ZkFixture {
  /** Files made closed (no lease): files open for writing are never cached. */
  private static final CreateOptions CLOSED = CreateOptions.file().withLease(false);

  /** How long another client's change may take to be seen (the watch event's trip). */
  private static final long WATCH_BOUND_MILLIS = 5_000;

  private static List<String> names(Namespace ns, String dir) throws NamespaceException {
    List<String> out = new ArrayList<>();
    for (FileStatus s : ns.listAll(dir)) {
      out.add(s.path().substring(dir.length() + 1));
    }
    return out;
  }

  /** Polls until {@code check} holds, failing after the watch bound. */
  private static void eventually(String what, Check check) throws Exception {
    Eventually.passes(what + " within " + WATCH_BOUND_MILLIS + " ms",
        Duration.ofMillis(WATCH_BOUND_MILLIS), () -> {
          if (!check.holds()) {
            throw new AssertionError("not yet");
          }
        });
  }

  @FunctionalInterface
  private interface Check {
    boolean holds() throws Exception;
  }

  @Test
  void hitsSendNoReadToTheServer() throws Exception {
    AtomicLong reads = new AtomicLong();
    try (CuratorFramework c = CountingZooKeeper.newClient(server.getConnectString(), reads)) {
      Namespace ns = Namespace.open(c, config());
      ns.mkdirs("/a/b");
      for (int i = 0; i < 50; i++) {
        ns.create("/a/b/f" + i, CLOSED);
      }
      for (int i = 0; i < 50; i++) {
        ns.getStatus("/a/b/f" + i); // fills
      }
      List<String> listed = names(ns, "/a/b"); // fills the names
      long before = reads.get();
      long hits = ns.cache.hits();
      for (int round = 0; round < 10; round++) {
        for (int i = 0; i < 50; i++) {
          assertEquals("/a/b/f" + i, ns.getStatus("/a/b/f" + i).path());
        }
        assertEquals(listed, names(ns, "/a/b"));
      }
      assertEquals(before, reads.get(), "every stat and page served from the cache");
      assertTrue(ns.cache.hits() - hits >= 10 * (50 * 3 + 50), "hits " + ns.cache.hits());
    }
  }

  @Test
  void filesOpenForWritingAreNotCached() throws Exception {
    AtomicLong reads = new AtomicLong();
    try (CuratorFramework c = CountingZooKeeper.newClient(server.getConnectString(), reads)) {
      Namespace ns = Namespace.open(c, config());
      FileStatus f = ns.create("/open", CreateOptions.file()); // holds the lease
      ns.getStatus("/open");
      long before = reads.get();
      ns.getStatus("/open");
      assertEquals(before + 1, reads.get(), "an open file is read from the server");
      ns.complete("/open", f.id(), f.version(), 10);
      // the watch events of the earlier reads may still be on their way: let them land first
      ns.sync();
      ns.getStatus("/open");
      before = reads.get();
      assertEquals(10, ns.getStatus("/open").length());
      assertEquals(before, reads.get(), "a closed file is cached");
    }
  }

  @Test
  void disabledCacheReadsTheServerEveryTime() throws Exception {
    AtomicLong reads = new AtomicLong();
    try (CuratorFramework c = CountingZooKeeper.newClient(server.getConnectString(), reads)) {
      Namespace ns = Namespace.open(c, config().toBuilder().entryCacheSize(0).build());
      ns.create("/f", CLOSED);
      long before = reads.get();
      ns.getStatus("/f");
      ns.getStatus("/f");
      assertEquals(before + 2, reads.get());
      assertEquals(0, ns.cache.hits());
    }
  }

  @Test
  void anotherClientsChangesAreSeenOnceTheWatchFires() throws Exception {
    NamespaceConfig cfg = config();
    try (CuratorFramework other = newClient()) {
      Namespace mine = Namespace.open(client, cfg);
      Namespace theirs = Namespace.open(other, cfg);
      mine.mkdirs("/d");
      for (String n : List.of("changed", "deleted", "renamed")) {
        mine.create("/d/" + n, CLOSED);
        mine.getStatus("/d/" + n); // cached, with a watch
      }
      assertEquals(List.of("changed", "deleted", "renamed"), names(mine, "/d"));

      theirs.setTimes("/d/changed", 12345, -1);
      theirs.delete("/d/deleted", false);
      theirs.rename("/d/renamed", "/d/moved");
      theirs.create("/d/new", CLOSED);

      eventually("the other client's setTimes",
          () -> mine.getStatus("/d/changed").modificationTime() == 12345);
      eventually("the other client's delete", () -> !mine.exists("/d/deleted"));
      eventually("the other client's rename",
          () -> !mine.exists("/d/renamed") && mine.exists("/d/moved"));
      eventually("the listing after the other client's changes",
          () -> names(mine, "/d").equals(List.of("changed", "moved", "new")));
    }
  }

  @Test
  void syncIsABarrierForTheCacheToo() throws Exception {
    NamespaceConfig cfg = config();
    try (CuratorFramework other = newClient()) {
      Namespace mine = Namespace.open(client, cfg);
      Namespace theirs = Namespace.open(other, cfg);
      mine.create("/f", CLOSED);
      for (int i = 1; i <= 100; i++) {
        mine.getStatus("/f"); // cached
        theirs.setTimes("/f", i, -1);
        mine.sync(); // returns after the watch event of the change has been dispatched
        assertEquals(i, mine.getStatus("/f").modificationTime(), "round " + i);
      }
    }
  }

  @Test
  void ownWritesAreNeverUndoneEvenWithReadsRacingThem() throws Exception {
    Namespace ns = newNamespace();
    ns.mkdirs("/d");
    ns.create("/d/x", CLOSED);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> readerFailure = new AtomicReference<>();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 4; t++) { // keep fills of /d/x, /d/y and the listing in flight
      Thread r = new Thread(() -> {
        try {
          while (!stop.get()) {
            ns.exists("/d/x");
            ns.exists("/d/y");
            ns.list("/d", null, 10);
          }
        } catch (Throwable e) {
          readerFailure.set(e);
        }
      });
      r.start();
      readers.add(r);
    }
    try {
      String from = "/d/x";
      String to = "/d/y";
      for (int i = 0; i < 150; i++) {
        ns.rename(from, to);
        assertFalse(ns.exists(from), "round " + i + ": own rename undone");
        assertTrue(ns.exists(to), "round " + i);
        assertEquals(List.of(to.substring(3)), names(ns, "/d"), "round " + i);
        ns.setTimes(to, i + 1, -1);
        assertEquals(i + 1, ns.getStatus(to).modificationTime(), "round " + i + ": own setTimes undone");
        String t = from;
        from = to;
        to = t;
      }
      ns.delete(from, false);
      assertFalse(ns.exists(from), "own delete undone");
      assertEquals(List.of(), names(ns, "/d"));
      ns.create(from, CLOSED);
      assertTrue(ns.exists(from), "own create not seen");
    } finally {
      stop.set(true);
      for (Thread r : readers) {
        r.join();
      }
    }
    if (readerFailure.get() != null) {
      throw new AssertionError("reader failed", readerFailure.get());
    }
  }

  @Test
  void sessionExpiryEmptiesTheCache() throws Exception {
    NamespaceConfig cfg = config();
    try (CuratorFramework mineClient = newClient(); CuratorFramework other = newClient()) {
      Namespace mine = Namespace.open(mineClient, cfg);
      Namespace theirs = Namespace.open(other, cfg);
      mine.create("/f", CLOSED);
      assertTrue(mine.getStatus("/f").modificationTime() != 7);
      long hits = mine.cache.hits();
      mine.getStatus("/f");
      assertTrue(mine.cache.hits() > hits, "cached");

      CountDownLatch reconnected = new CountDownLatch(1);
      mineClient.getConnectionStateListenable().addListener((cl, state) -> {
        if (state == ConnectionState.RECONNECTED) {
          reconnected.countDown();
        }
      });
      long session = mineClient.getZookeeperClient().getZooKeeper().getSessionId();
      KillSession.kill(mineClient.getZookeeperClient().getZooKeeper());
      // A change made while the session is gone: no watch event will ever tell us about it.
      theirs.setTimes("/f", 7, -1);
      assertTrue(reconnected.await(30, TimeUnit.SECONDS), "reconnected");
      assertTrue(mineClient.getZookeeperClient().getZooKeeper().getSessionId() != session,
          "a new session");
      eventually("the change made while the session was lost",
          () -> mine.getStatus("/f").modificationTime() == 7);
    }
  }

  @Test
  void theCacheStaysWithinItsSize() throws Exception {
    AtomicLong reads = new AtomicLong();
    try (CuratorFramework c = CountingZooKeeper.newClient(server.getConnectString(), reads)) {
      Namespace ns = Namespace.open(c, config().toBuilder().entryCacheSize(16).build());
      ns.mkdirs("/d");
      for (int i = 0; i < 100; i++) {
        ns.create("/d/f" + i, CLOSED);
      }
      for (int i = 0; i < 100; i++) {
        assertNotNull(ns.getStatus("/d/f" + i));
        assertTrue(ns.cache.size() <= 16, "size " + ns.cache.size());
      }
      long before = reads.get();
      ns.getStatus("/d/f99"); // recent: /d and /d/f99 are cached
      assertEquals(before, reads.get());
      ns.getStatus("/d/f0"); // long dropped
      assertEquals(before + 1, reads.get());
      assertEquals(100, ns.listAll("/d").size());
    }
  }
}
