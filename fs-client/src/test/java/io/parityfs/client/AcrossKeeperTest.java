package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.AcrossKeeper;
import io.parityfs.keeper.MovePass;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.targets.Retirements;
import io.parityfs.meta.targets.Standing;
import io.parityfs.testing.MiniCluster;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The keeper (docs/across-nodes.md §5) on four RAID-6 nodes, ec:2+1 files pinned to the first
 * three: of two keepers one leads; a file written while a node was down is caught up once the
 * node returns, with nobody running repair; a node declared bad while down has its files
 * rebuilt onto the fourth node (by that node, from the members it reads from the others), after
 * which they read with another node down too; back, its
 * old members are wiped. Content is
 * keyed by path and generation.
 */
class AcrossKeeperTest extends OwnClusterTest {
  static final int CHUNK = 256 << 10;

  @BeforeAll
  static void start() throws Exception {
    startCluster(4);
  }

  private static byte[] write(String path, int n) throws IOException {
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      byte[] b = new byte[n];
      new Random(path.hashCode() * 31L + out.file().generation()).nextBytes(b);
      out.write(b);
      return b;
    }
  }

  @Test
  void theKeeperCatchesUpAReturnedNodeAndRebuildsABadOne() throws Exception {
    List<String> three = client.registry().targets().stream().map(t -> t.id()).limit(3)
        .toList();
    client.namespace().mkdirs("/p", CreateOptions.directory().withLayout(
        new Layout(CHUNK, 3, three, "raid6:4+2").withAcross(Across.ec(2, 1))));
    int missed = cluster.nodeOf(client, three.get(2));
    cluster.stopNode(missed);
    byte[] a;
    try {
      a = write("/p/a", 5 * CHUNK + 777);
      assertFalse(client.namespace().getStatus("/p/a").repairs().isEmpty(), "recorded");
    } finally {
      cluster.restartNode(missed);
      cluster.awaitTargets(4);
    }
    byte[] b = write("/p/b", 3 * CHUNK + 5);

    try (ParityClient other = cluster.client(Caller.of("root"));
        AcrossKeeper k1 = new AcrossKeeper(client, Duration.ofMillis(200), 0);
        AcrossKeeper k2 = new AcrossKeeper(other, Duration.ofMillis(200), 0)) {
      k1.start();
      k2.start();
      Eventually.passes("one keeper leads", Duration.ofSeconds(20), () -> {
        if (k1.status().leading() == k2.status().leading()) {
          throw new IllegalStateException(k1.status() + " / " + k2.status());
        }
      });
      Eventually.passes("caught up by the keeper", Duration.ofSeconds(30), () -> {
        FileStatus f = client.namespace().getStatus("/p/a");
        if (!f.repairs().isEmpty()) {
          throw new IllegalStateException(f.repairs().toString());
        }
      });
      assertTrue(client.namespace().filesToRepair().isEmpty());

      // a node declared bad while it is down: its files are rebuilt on the fourth node
      String bad = three.get(1);
      int badNode = cluster.nodeOf(client, bad);
      cluster.stopNode(badNode);
      try {
        new Retirements(client.registry()).retire(bad, Standing.BAD, "test: lost for good");
        Eventually.passes("re-protected by the keeper", Duration.ofSeconds(60), () -> {
          for (String p : List.of("/p/a", "/p/b")) {
            Layout l = client.namespace().getStatus(p).layout();
            if (l.targets().contains(bad)) {
              throw new IllegalStateException(p + ": " + l);
            }
          }
        });
        AcrossKeeper.Status leader = k1.status().leading() ? k1.status() : k2.status();
        assertTrue(leader.rounds() > 0 && leader.lastError() == null, leader.toString());
        // the members were rebuilt by the fourth node itself (REBUILD_MEMBER), not the keeper
        assertTrue(client.chunks().rebuiltOnNodes.get() + other.chunks().rebuiltOnNodes.get()
            > 0, "rebuilt on the nodes");
        int another = cluster.nodeOf(client, three.get(0));
        cluster.stopNode(another);
        try (ParityClient fresh = cluster.client(Caller.of("root"))) {
          assertArrayEquals(a, MiniCluster.read(fresh, "/p/a"), "the bad node and another down");
          assertArrayEquals(b, MiniCluster.read(fresh, "/p/b"), "the bad node and another down");
        } finally {
          cluster.restartNode(another);
        }
      } finally {
        cluster.restartNode(badNode);
      }
      assertEquals(0, k1.runOnce(() -> true).filesLeft(), "nothing left on the bad target");
      // the bad node is back holding its old members, which no layout names: wiped
      cluster.awaitTargets(4);
      long id = client.namespace().getStatus("/p/a").id();
      assertFalse(client.chunks().list(bad, id, 0, 1000).chunks().isEmpty(), "left there");
      long wiped = new MovePass(client, Set.of(bad), false, 0).wipeUnused(bad);
      assertTrue(wiped > 0, "wiped " + wiped);
      assertEquals(List.of(), client.chunks().list(bad, ChunkService.ALL_FILES, 0, 1000)
          .chunks());
      assertArrayEquals(a, MiniCluster.read(client, "/p/a"), "the moved file is untouched");
      new Retirements(client.registry()).reinstate(bad); // for the other tests
    }
  }

  /**
   * The keeper's catch-up of a returned target takes the target's mover lock: while another
   * pass (a drain, re-protection or removal moving files off it) holds it, the files recorded
   * for the target wait a round; released, the next round catches them up.
   */
  @Test
  void aReturnedTargetIsCaughtUpOnlyWhileNoPassMovesFilesOffIt() throws Exception {
    cluster.awaitTargets(4);
    List<String> three = client.registry().targets().stream().map(t -> t.id()).limit(3)
        .toList();
    client.namespace().mkdirs("/cl", CreateOptions.directory().withLayout(
        new Layout(CHUNK, 3, three, "raid6:4+2").withAcross(Across.ec(2, 1))));
    String missed = three.get(2);
    int node = cluster.nodeOf(client, missed);
    cluster.stopNode(node);
    byte[] data;
    try {
      data = write("/cl/f", 4 * CHUNK + 99);
    } finally {
      cluster.restartNode(node);
      cluster.awaitTargets(4);
    }
    assertFalse(client.namespace().getStatus("/cl/f").repairs().isEmpty(), "recorded");
    InterProcessSemaphoreMutex other = new InterProcessSemaphoreMutex(client.curator(),
        MovePass.LOCKS + "/" + missed);
    other.acquire();
    try (AcrossKeeper k = new AcrossKeeper(client, Duration.ofSeconds(60), 0)) {
      k.runOnce(() -> true);
      assertFalse(client.namespace().getStatus("/cl/f").repairs().isEmpty(),
          "not caught up while another pass holds the target's mover lock");
      other.release();
      k.runOnce(() -> true);
      assertTrue(client.namespace().getStatus("/cl/f").repairs().isEmpty(), "caught up");
      // and the round gave the lock back: another pass takes it at once
      assertTrue(other.acquire(0, java.util.concurrent.TimeUnit.MILLISECONDS));
      other.release();
      assertArrayEquals(data, MiniCluster.read(client, "/cl/f"));
    } finally {
      if (other.isAcquiredInThisProcess()) {
        other.release();
      }
    }
  }

  /**
   * One pass at a time per target in the whole cluster: while another holds a target's mover
   * lock, a pass over it is refused (CONFLICT) and the keeper leaves its files for a later round
   * instead of failing; released, the keeper drains them.
   */
  @Test
  void aTargetIsMovedOffByOnePassAtATime() throws Exception {
    cluster.awaitTargets(4); // all four in service, whichever test ran first
    List<String> ids = client.registry().targets().stream().map(t -> t.id()).toList();
    List<String> last = ids.subList(1, 4);
    client.namespace().mkdirs("/lk", CreateOptions.directory().withLayout(
        new Layout(CHUNK, 3, last, "raid6:4+2").withAcross(Across.ec(2, 1))));
    byte[] data = write("/lk/f", 3 * CHUNK + 11);
    client.namespace().setLayout("/lk", new Layout(CHUNK, 3, List.of(), "raid6:4+2")
        .withAcross(Across.ec(2, 1)));
    String draining = last.get(2);
    Retirements r = new Retirements(client.registry());
    r.retire(draining, Standing.DRAINING, "test: locks");
    InterProcessSemaphoreMutex other = new InterProcessSemaphoreMutex(client.curator(),
        MovePass.LOCKS + "/" + draining);
    other.acquire();
    try (AcrossKeeper k = new AcrossKeeper(client, Duration.ofSeconds(60), 0)) {
      MovePass pass = new MovePass(client, Set.of(draining), true, 0);
      NamespaceException busy = assertThrows(NamespaceException.class,
          () -> pass.run(pass.find(List.of("/lk")), null, () -> true));
      assertEquals(NamespaceStatus.CONFLICT, busy.status());
      AcrossKeeper.Round waiting = k.runOnce(() -> true);
      assertEquals(1, waiting.filesLeft(), waiting.toString());
      assertTrue(client.namespace().getStatus("/lk/f").layout().targets().contains(draining));
      other.release();
      AcrossKeeper.Round done = k.runOnce(() -> true);
      assertEquals(0, done.filesLeft(), done.toString());
      assertFalse(client.namespace().getStatus("/lk/f").layout().targets().contains(draining));
      assertArrayEquals(data, MiniCluster.read(client, "/lk/f"));
    } finally {
      if (other.isAcquiredInThisProcess()) {
        other.release();
      }
      r.reinstate(draining);
    }
  }
}
