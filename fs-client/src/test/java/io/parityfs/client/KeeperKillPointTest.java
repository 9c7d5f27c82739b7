package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.Repairer;
import io.parityfs.keeper.Reprotector;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.Retirements;
import io.parityfs.meta.targets.Standing;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kill points of the keeper's work (issue 40 item 4): catch-up, re-protection and drain of an
 * {@code ec:2+1} file of three of four nodes die after their n-th member write ({@link
 * ChunkIo#MEMBER_WRITE_HOOK}, which also sees the members a node rebuilds for the client), for
 * every n until the operation completes. After each death every committed byte reads back as
 * far as the file's protection promises (healthy and with each node down that no group has
 * already lost a member to), and the operation run again completes and leaves every byte
 * readable with each node down. Content is keyed by path.
 */
class KeeperKillPointTest extends OwnClusterTest {
  static final int CHUNK = 1 << 20;
  /** Three groups, the last partial. */
  static final int LENGTH = 2 * 2 * CHUNK + 100;
  static List<String> three;

  @BeforeAll
  static void start() throws Exception {
    startCluster(4);
    three = client.registry().targets().stream().map(t -> t.id()).limit(3).toList();
    client.namespace().mkdirs("/kk", CreateOptions.directory().withLayout(
        new Layout(CHUNK, 3, three, "raid6:4+2").withAcross(Across.ec(2, 1))));
  }

  private int files;
  /** The target whose node an attempt keeps stopped, if any. */
  private static Set<String> stoppedNow = Set.of();

  /** Writes the attempt's file; returns with the state the operation works on. */
  private interface Setup {
    void run(String path, byte[] data) throws Exception;
  }

  /** The keeper's operation on a client of its own; false when it did not finish. */
  private interface Op {
    boolean run(ParityClient keeper, String path) throws IOException;
  }

  /** Ends the attempt's state (a node restarted, a mark taken back). */
  private interface After {
    void run() throws Exception;
  }

  @Test
  void catchUp() throws Exception {
    String late = three.get(1);
    killAtEveryPoint("catch-up", (path, data) -> {
      int node = cluster.nodeOf(client, late);
      cluster.stopNode(node);
      try (ParityClient w = cluster.client(Caller.of("root"))) {
        write(w, path, data); // around the stopped node: its members go in the repair record
      } finally {
        cluster.restartNode(node);
        cluster.awaitTargets(4);
      }
      try (ParityClient fresh = cluster.client(Caller.of("root"))) {
        assertFalse(fresh.namespace().getStatus(path).repairs().isEmpty(), "written around");
      }
    }, (k, path) -> {
      // catch-up waits for a target its client does not see back yet: a new client's registry
      // may lag the restart by a moment
      io.parityfs.testkit.Eventually.until("the keeper sees " + late + " back",
          java.time.Duration.ofSeconds(30), () -> k.memberIo().healthy(late));
      Repairer.Outcome o = new Repairer(k).repair(path);
      // the keeper's own view: another client's cached entry may lag its commit
      return o.skipped() == null && k.namespace().getStatus(path).repairs().isEmpty();
    }, () -> { });
  }

  @Test
  void reprotection() throws Exception {
    String lost = three.get(1);
    int[] node = {-1};
    killAtEveryPoint("reprotect", (path, data) -> {
      try (ParityClient w = cluster.client(Caller.of("root"))) {
        write(w, path, data);
      }
      node[0] = cluster.nodeOf(client, lost);
      cluster.stopNode(node[0]);
      stoppedNow = Set.of(lost);
    }, (k, path) -> {
      Reprotector.Outcome o = new Reprotector(k, 0).reprotect(path, Set.of(lost));
      return o.skipped() == null && o.moved() == 1;
    }, () -> {
      stoppedNow = Set.of();
      cluster.restartNode(node[0]);
      cluster.awaitTargets(4);
    });
  }

  @Test
  void drain() throws Exception {
    String draining = three.get(1);
    Retirements retirements = new Retirements(client.registry());
    killAtEveryPoint("drain", (path, data) -> {
      try (ParityClient w = cluster.client(Caller.of("root"))) {
        write(w, path, data);
      }
      retirements.retire(draining, Standing.DRAINING, "test");
    }, (k, path) -> {
      Reprotector.Outcome o = new Reprotector(k, 0).drain(path, Set.of(draining));
      return o.skipped() == null && o.moved() == 1;
    }, () -> retirements.reinstate(draining));
  }

  private void killAtEveryPoint(String name, Setup setup, Op op, After after)
      throws Exception {
    for (int n = 0; ; n++) {
      String path = "/kk/" + name + "-" + n + "-" + files++;
      byte[] data = bytes(LENGTH, path.hashCode());
      setup.run(path, data);
      try {
        AtomicInteger writes = new AtomicInteger();
        List<String> landed = Collections.synchronizedList(new ArrayList<>());
        int dieAfter = n;
        boolean completed = false;
        ChunkIo.MEMBER_WRITE_HOOK = (target, index) -> {
          if (writes.incrementAndGet() > dieAfter) {
            throw new IllegalStateException("the keeper died after " + dieAfter
                + " member writes (test)");
          }
          landed.add(index + "@" + target.substring(0, 8));
        };
        try (ParityClient keeper = cluster.client(Caller.of("root"))) {
          completed = op.run(keeper, path);
        } catch (IOException | RuntimeException e) {
          // died: the operation did not complete
        } finally {
          ChunkIo.MEMBER_WRITE_HOOK = null;
        }
        String what = name + ", dead after " + n + " member writes (landed " + landed + ")";
        check(path, data, what);
        if (completed) {
          assertTrue(n > 0, name + ": completed without a member write");
          System.out.printf("[test] %s: killed at each of %d points, then completed after %s%n",
              name, n, landed);
          return;
        }
        try (ParityClient keeper = cluster.client(Caller.of("root"))) {
          assertTrue(op.run(keeper, path), what + ": run again, it completes");
        }
        check(path, data, what + ", then run again");
      } finally {
        after.run();
      }
      assertTrue(n < 64, name + ": the operation never completed");
    }
  }

  /**
   * Reads {@code path} whole: healthy, then with each target of its layout cut off from the
   * reading client where every group keeps K members without it (the repair record's members
   * count as lost, and a stopped node's target is cut off from every view).
   */
  private static void check(String path, byte[] data, String what) throws IOException {
    // a client of its own, so no cached entry of the file predates the operation's commit
    try (ParityClient client = cluster.client(Caller.of("root"))) {
      checkWith(client, path, data, what);
    }
  }

  private static void checkWith(ParityClient client, String path, byte[] data, String what)
      throws IOException {
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(data.length, f.length(), what);
    Set<String> stopped = new java.util.HashSet<>(f.layout().targets());
    stopped.retainAll(stoppedNow);
    List<Set<String>> views = new ArrayList<>();
    views.add(stopped);
    for (String t : f.layout().targets()) {
      if (stopped.isEmpty() && f.repairs().targets().stream().allMatch(t::equals)) {
        views.add(Set.of(t)); // else a group would lose a second member: ec:2+1 promises one
      }
    }
    for (Set<String> down : views) {
      byte[] got = new byte[data.length];
      client.chunks().cutOff(down);
      try (PfsInputStream in = client.open(path, 0)) {
        in.readFully(0, ByteBuffer.wrap(got));
      } catch (IOException e) {
        throw new AssertionError(what + ": reading with " + down + " down failed", e);
      } finally {
        client.chunks().cutOff(Set.of());
      }
      assertArrayEquals(data, got, what + ", " + down + " down");
    }
  }

  private static void write(ParityClient w, String path, byte[] data) throws IOException {
    try (PfsOutputStream out = w.create(path, CreateOptions.file())) {
      out.write(data);
    }
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }
}
