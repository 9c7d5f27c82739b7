package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.ZooKeeperSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-server ZooKeeper ensemble (each server a child JVM) under writing clients: the leader
 * killed during an hsync storm, one follower frozen (SIGSTOP: its sockets stay open and it
 * answers nothing, as across a partition) and thawed, and two of the three servers down for a
 * minute. What must hold: every acknowledged byte is there afterwards, a writer either goes on
 * or fails with a clear error (a {@link NamespaceException} LEASE_EXPIRED when its session did
 * not survive), nothing hangs, and after the outage the nodes' registrations, the leases and
 * the cluster manager's election recover and new files are written.
 *
 * <p>The quorum loss lasts {@code -Dintegration.quorumLossSeconds} (default 60 s: six session
 * timeouts; every session's deadline passes while no leader can expire it). It bounds how long
 * an hsync without a quorum may take to fail, which has been seen at 36 s: a 30 s outage made
 * that check fail.
 */
class ZooKeeperEnsembleTest {
  private static final long HSYNC = 256 << 10;
  private static final long QUORUM_LOSS = Long.getLong("integration.quorumLossSeconds", 60);

  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), ZooKeeperEnsembleTest.class, 3);
    cluster.mkdirs("/ens");
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void everyServerServes() throws IOException {
    for (int s = 1; s <= 3; s++) {
      cluster.local().startZooKeeper(s, false, Duration.ZERO);
    }
    cluster.local().startZooKeeper(Duration.ofSeconds(60));
    cluster.awaitHealthy(false, TestCluster.START);
  }

  /** A writer thread hsyncing every {@link #HSYNC}, through outages, until {@code size}. */
  private static final class Writer {
    final String path;
    final String key;
    final long size;
    final AtomicLong acked = new AtomicLong();
    final AtomicInteger unavailable = new AtomicInteger();
    volatile boolean closed;
    volatile NamespaceException leaseLost;
    volatile Throwable failure;
    final Thread thread;

    Writer(ParityClient c, String path, long size) {
      this.path = path;
      this.key = ExpectedBytes.key(path, "writer");
      this.size = size;
      this.thread = new Thread(() -> {
        try {
          PfsOutputStream out = c.create(path, CreateOptions.file());
          while (out.position() < size) {
            TestFiles.writeTo(out, key, Math.min(size, out.position() + HSYNC), 0, n -> { });
            hsyncThroughOutage(out, unavailable);
            acked.set(out.position());
          }
          out.close();
          closed = true;
        } catch (NamespaceException e) {
          if (e.status() == NamespaceStatus.LEASE_EXPIRED) {
            leaseLost = e; // its session ended with the outage: a clear error, checked below
          } else {
            failure = e;
          }
        } catch (Throwable e) {
          failure = e;
        }
      }, "writer " + path);
    }
  }

  private static List<Writer> startWriters(ParityClient c, String prefix, int n, long size) {
    List<Writer> writers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      writers.add(new Writer(c, prefix + i, size));
    }
    writers.forEach(w -> w.thread.start());
    return writers;
  }

  private static void awaitAcked(List<Writer> writers, long bytes, String when) {
    cluster.await("every writer acknowledged " + bytes + " bytes " + when,
        Duration.ofSeconds(120), () -> writers.stream().allMatch(w -> w.acked.get() >= bytes
            || w.closed || w.failure != null || w.leaseLost != null));
    for (Writer w : writers) {
      if (w.failure != null) {
        throw new AssertionError(w.path + " failed " + when + ": " + w.failure
            + cluster.logTails(), w.failure);
      }
    }
  }

  /**
   * Joins the writers (bounded) and checks each: none failed other than by LEASE_EXPIRED; a
   * closed file holds every byte; a file whose lease was lost holds, after lease recovery, at
   * least what was acknowledged, every byte right.
   */
  private static void finish(List<Writer> writers) throws Exception {
    for (Writer w : writers) {
      w.thread.join(Duration.ofSeconds(180).toMillis());
      assertFalse(w.thread.isAlive(), w.path + ": the writer hangs" + cluster.logTails());
    }
    for (Writer w : writers) {
      if (w.failure != null) {
        throw new AssertionError(w.path + " failed: " + w.failure + cluster.logTails(),
            w.failure);
      }
      if (w.closed) {
        TestFiles.verify(cluster.root(), w.path, w.key, w.size);
        continue;
      }
      assertTrue(w.leaseLost.getMessage().contains(w.path), w.leaseLost.getMessage());
      FileStatus s = TestFiles.status(cluster.root(), w.path);
      assertTrue(s.length() >= w.acked.get(), w.path + ": committed " + s.length()
          + " < acknowledged " + w.acked.get());
      assertTrue(cluster.root().recoverLease(w.path), w.path + ": lease recovery");
      long length = TestFiles.status(cluster.root(), w.path).length();
      assertTrue(length >= w.acked.get() && length <= w.size, w.path + ": recovered " + length
          + " not in [" + w.acked.get() + ", " + w.size + "]");
      TestFiles.verify(cluster.root(), w.path, w.key, length);
    }
    System.out.println("[test] writers: " + writers.stream().map(w -> w.path + (w.closed
        ? " closed" : " lease lost at " + w.acked.get()) + " (" + w.unavailable.get()
        + " hsyncs met UNAVAILABLE)").toList());
  }

  @Test
  void theLeaderKilledDuringAnHsyncStormLosesNothingAcknowledged() throws Exception {
    int leader = cluster.local().zooKeeperLeader().orElseThrow();
    try (ParityClient c = cluster.client()) {
      List<Writer> writers = startWriters(c, "/ens/storm", 6, 6L << 20);
      awaitAcked(writers, 1 << 20, "before the kill");
      System.out.println("[test] killing ZooKeeper server " + leader + ", the leader");
      cluster.local().killZooKeeper(leader);
      cluster.await("a new ZooKeeper leader", Duration.ofSeconds(60),
          () -> cluster.local().zooKeeperLeader().isPresent());
      int next = cluster.local().zooKeeperLeader().orElseThrow();
      assertNotEquals(leader, next);
      long[] atElection = writers.stream().mapToLong(w -> w.acked.get()).toArray();
      finish(writers);
      for (int i = 0; i < writers.size(); i++) {
        Writer w = writers.get(i);
        assertTrue(w.leaseLost != null || w.acked.get() > atElection[i], w.path
            + ": no progress after the new leader was elected");
      }
    }
    TestFiles.write(cluster.root(), "/ens/after-storm", ExpectedBytes.key("/ens/after-storm",
        "w"), 3L << 20, HSYNC, n -> { });
    TestFiles.verify(cluster.root(), "/ens/after-storm", ExpectedBytes.key("/ens/after-storm",
        "w"), 3L << 20);
  }

  @Test
  void aFrozenFollowerDoesNotStopTheClientsAndCatchesUpWhenThawed() throws Exception {
    int leader = cluster.local().zooKeeperLeader().orElseThrow();
    int follower = leader % 3 + 1;
    try (ParityClient c = cluster.client()) {
      List<Writer> writers = startWriters(c, "/ens/frozen", 4, 8L << 20);
      awaitAcked(writers, 1 << 20, "before the freeze");
      System.out.println("[test] freezing ZooKeeper server " + follower + " (a follower)");
      cluster.local().freezeZooKeeper(follower, true);
      try {
        awaitAcked(writers, 4 << 20, "while a follower is frozen");
        // a client connected only to the other two servers works meanwhile
        writeAndVerifyThrough(otherServers(follower), "/ens/during-freeze");
      } finally {
        cluster.local().freezeZooKeeper(follower, false);
      }
      cluster.local().startZooKeeper(Duration.ofSeconds(60)); // until it serves again
      finish(writers);
      // a new session on the thawed follower alone sees every committed byte (it synced with
      // the leader before serving again)
      try (ParityClient only = clientOf("127.0.0.1:"
          + cluster.local().zooKeeperClientPort(follower))) {
        for (Writer w : writers) {
          long length = only.namespace().getStatus(w.path).length();
          assertTrue(length >= w.acked.get(), w.path + " through server " + follower + ": "
              + length + " < acknowledged " + w.acked.get());
          TestFiles.verify(only, w.path, w.key, length);
        }
        TestFiles.verify(only, "/ens/during-freeze", ExpectedBytes.key("/ens/during-freeze",
            "w"), 2L << 20);
      }
    }
  }

  @Test
  void twoOfThreeServersDownForAMinuteThenBackRecoverEverything() throws Exception {
    int leader = cluster.local().zooKeeperLeader().orElseThrow();
    int survivor = leader % 3 + 1;
    String done = "/ens/before-loss";
    String doneKey = ExpectedBytes.key(done, "w");
    TestFiles.write(cluster.root(), done, doneKey, 3L << 20, 0, n -> { });
    int[] managerLinesBefore = managerLineCounts();
    try (ParityClient c = cluster.client()) {
      String open = "/ens/open-through-loss";
      String openKey = ExpectedBytes.key(open, "w");
      PfsOutputStream out = c.create(open, CreateOptions.file());
      TestFiles.writeTo(out, openKey, 2L << 20, 0, n -> { });
      out.hsync();
      long acked = out.position();
      for (int s = 1; s <= 3; s++) {
        if (s != survivor) {
          System.out.println("[test] killing ZooKeeper server " + s);
          cluster.local().killZooKeeper(s);
        }
      }
      long lossBegan = System.nanoTime();
      // without a quorum a commit fails, in bounded time, UNAVAILABLE (never acknowledged)
      TestFiles.writeTo(out, openKey, acked + HSYNC, 0, n -> { });
      long begin = System.nanoTime();
      NamespaceException noQuorum = null;
      try {
        out.hsync();
      } catch (NamespaceException e) {
        noQuorum = e;
      }
      double took = (System.nanoTime() - begin) / 1e9;
      System.out.printf("[test] an hsync without a quorum: %s after %.1f s%n", noQuorum, took);
      assertTrue(noQuorum != null, "an hsync was acknowledged with 2 of 3 servers down");
      assertEquals(NamespaceStatus.UNAVAILABLE, noQuorum.status(), noQuorum.toString());
      assertTrue(took < QUORUM_LOSS, "the hsync failed only after " + took + " s");
      long left = QUORUM_LOSS * 1_000_000_000L - (System.nanoTime() - lossBegan);
      if (left > 0) {
        Thread.sleep(left / 1_000_000); // the outage itself: nothing to wait for but time
      }
      for (int s = 1; s <= 3; s++) {
        if (s != survivor) {
          cluster.local().startZooKeeper(s, false, Duration.ZERO);
        }
      }
      cluster.local().startZooKeeper(Duration.ofSeconds(60));
      System.out.println("[test] quorum back after " + (System.nanoTime() - lossBegan) / 1e9
          + " s");
      // the open writer goes on, or learns that its lease died with its session
      NamespaceException leaseLost = null;
      try {
        hsyncThroughOutage(out, new AtomicInteger());
        acked = out.position();
        TestFiles.writeTo(out, openKey, acked + HSYNC + 99, 0, n -> { });
        out.close();
        acked = acked + HSYNC + 99;
      } catch (NamespaceException e) {
        if (e.status() != NamespaceStatus.LEASE_EXPIRED) {
          throw e;
        }
        leaseLost = e;
      }
      System.out.println("[test] the open writer after the outage: " + (leaseLost == null
          ? "closed at " + acked : leaseLost.toString()));
      cluster.awaitHealthy(true, Duration.ofSeconds(120)); // the nodes registered again
      if (leaseLost != null) {
        // the root client's own session may have died in the outage too: until Curator has a
        // new one its calls fail UNAVAILABLE ("retry once reconnected"), which is the contract
        cluster.await("lease recovery of " + open, Duration.ofSeconds(60), () -> {
          try {
            return cluster.root().recoverLease(open);
          } catch (NamespaceException e) {
            if (e.status() != NamespaceStatus.UNAVAILABLE) {
              throw new AssertionError(e);
            }
            return false;
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        });
      }
      long length = TestFiles.status(cluster.root(), open).length();
      assertTrue(length >= acked, open + ": " + length + " < acknowledged " + acked);
      TestFiles.verify(cluster.root(), open, openKey, length);
    }
    TestFiles.verify(cluster.root(), done, doneKey, 3L << 20);
    // the cluster manager stepped down with the quorum and exactly one node acts again
    cluster.await("one cluster manager acting again", Duration.ofSeconds(60),
        () -> actingManagers().size() == 1);
    List<String> since = managerLinesSince(managerLinesBefore);
    assertTrue(since.stream().anyMatch(l -> l.contains("stopped acting")),
        "the manager did not step down when the quorum was lost: " + since);
    assertTrue(since.stream().anyMatch(l -> l.contains("elected leader")),
        "no manager was elected after the quorum came back: " + since);
    // new files are written and read, through a fresh client and the old root client
    String fresh = "/ens/after-loss";
    try (ParityClient c = cluster.client()) {
      TestFiles.write(c, fresh, ExpectedBytes.key(fresh, "w"), 3L << 20, HSYNC, n -> { });
    }
    TestFiles.verify(cluster.root(), fresh, ExpectedBytes.key(fresh, "w"), 3L << 20);
  }

  /** How many cluster-manager lines each node's current process logged so far. */
  private static int[] managerLineCounts() {
    int[] n = new int[3];
    for (int i = 0; i < 3; i++) {
      n[i] = cluster.managerLines(i).size();
    }
    return n;
  }

  /** The cluster-manager lines each node logged after {@code counts}. */
  private static List<String> managerLinesSince(int[] counts) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      List<String> l = cluster.managerLines(i);
      lines.addAll(l.subList(Math.min(counts[i], l.size()), l.size()));
    }
    return lines;
  }

  private static List<Integer> actingManagers() {
    return cluster.actingManagers();
  }

  private static String otherServers(int but) {
    List<String> hosts = new ArrayList<>();
    for (int s = 1; s <= 3; s++) {
      if (s != but) {
        hosts.add("127.0.0.1:" + cluster.local().zooKeeperClientPort(s));
      }
    }
    return String.join(",", hosts);
  }

  private static ParityClient clientOf(String connect) throws IOException {
    return ParityClient.connect(ClientConfig.builder(ZooKeeperSettings.of(connect)
        .withSessionTimeout(Duration.ofSeconds(10))
        .withDigest(cluster.local().zooKeeper().digest()))
        .nodes(cluster.local().nodeClientConfig().build()).build(), Caller.of("root"));
  }

  private static void writeAndVerifyThrough(String connect, String path) throws IOException {
    try (ParityClient c = clientOf(connect)) {
      String key = ExpectedBytes.key(path, "w");
      TestFiles.write(c, path, key, 2L << 20, HSYNC, n -> { });
      TestFiles.verify(c, path, key, 2L << 20);
    }
  }

  /**
   * hsync, retrying while the namespace is UNAVAILABLE (no quorum, or between servers), up to
   * 60 s; LEASE_EXPIRED and any other failure are thrown.
   */
  private static void hsyncThroughOutage(PfsOutputStream out, AtomicInteger unavailable)
      throws IOException, InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try {
        out.hsync();
        return;
      } catch (NamespaceException e) {
        if (e.status() != NamespaceStatus.UNAVAILABLE || System.nanoTime() > end) {
          throw e;
        }
        unavailable.incrementAndGet();
        Thread.sleep(200);
      }
    }
  }
}
