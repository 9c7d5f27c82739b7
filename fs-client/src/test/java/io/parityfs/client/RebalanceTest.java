package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.MovePass;
import io.parityfs.keeper.Rebalancer;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.testing.MiniCluster;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rebalance (docs/across-nodes.md §5): files of both policies and without one written on three
 * RAID-6 nodes, then a fourth node added; a dry run plans moves and changes nothing; the pass
 * moves members onto the new node until no member can move without passing the mean, each
 * layout still on three distinct nodes, the old members deleted; a reader opened before the
 * move reads on across it; every file then reads, and those with a policy also with the new
 * node down and with an old one down; a second pass finds nothing to do. Content is keyed by
 * path and generation.
 */
class RebalanceTest extends OwnClusterTest {
  static final int CHUNK = 256 << 10;

  @BeforeAll
  static void start() throws Exception {
    startCluster(3);
  }

  private static void readAll(Map<String, byte[]> files, String when) throws IOException {
    try (ParityClient fresh = cluster.client(Caller.of("root"))) {
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        assertArrayEquals(f.getValue(), MiniCluster.read(fresh, f.getKey()),
            f.getKey() + " " + when);
      }
    }
  }

  @Test
  void filesSpreadOntoAnAddedNodeWithoutLosingProtection() throws Exception {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (Across a : List.of(Across.mirror(2), Across.ec(2, 1), Across.NONE)) {
      String d = "/" + a.toString().replace(':', '-').replace('+', '-');
      client.namespace().mkdirs(d, CreateOptions.directory().withLayout(
          new Layout(CHUNK, 3, List.of(), "raid6:4+2").withAcross(a)));
      for (int i = 0; i < 4; i++) {
        String path = d + "/f" + i;
        try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
          byte[] data = new byte[3 * CHUNK + i * 100_003];
          new Random(path.hashCode() * 31L + out.file().generation()).nextBytes(data);
          out.write(data);
          files.put(path, data);
        }
      }
    }
    cluster.addNode("raid6:4+2", 6);
    cluster.awaitTargets(4);
    String added = client.registry().targets().stream().map(t -> t.id())
        .filter(id -> files.keySet().stream().noneMatch(p -> layoutOf(p).contains(id)))
        .findFirst().orElseThrow();

    Map<String, List<String>> before = new LinkedHashMap<>();
    files.keySet().forEach(p -> before.put(p, layoutOf(p)));
    List<Rebalancer.Move> planned = new ArrayList<>();
    Rebalancer.Summary dry = new Rebalancer(client, 0, 0.1).run(List.of("/"), true,
        (m, o, e) -> planned.add(m), () -> true);
    assertTrue(dry.moves() > 0 && dry.moves() == planned.size(), dry.toString());
    long onto = planned.stream().filter(m -> m.to().equals(added))
        .mapToLong(Rebalancer.Move::bytes).sum();
    assertTrue(onto * 2 > dry.bytes(), "most of it onto the new target: " + planned);
    files.keySet().forEach(p -> assertEquals(before.get(p), layoutOf(p),
        "a dry run moves nothing"));

    // while another pass holds the mover lock of a target to move off, rebalance leaves it
    Set<String> froms = new HashSet<>();
    planned.forEach(m -> froms.add(m.from()));
    List<InterProcessSemaphoreMutex> others = new ArrayList<>();
    try {
      for (String t : froms) {
        InterProcessSemaphoreMutex m = new InterProcessSemaphoreMutex(client.curator(),
            MovePass.LOCKS + "/" + t);
        m.acquire();
        others.add(m);
      }
      List<IOException> refused = new ArrayList<>();
      Rebalancer.Summary held = new Rebalancer(client, 0, 0.1).run(List.of("/"), false,
          (m, o, e) -> refused.add(e), () -> true);
      assertEquals(0, held.moves(), held.toString());
      assertTrue(held.skipped() > 0 && !refused.isEmpty(), held.toString());
      assertTrue(refused.stream().allMatch(e -> e != null
          && e.getMessage().contains("holds its mover lock")), refused.toString());
      files.keySet().forEach(p -> assertEquals(before.get(p), layoutOf(p),
          "nothing moves off a target another pass holds"));
    } finally {
      for (InterProcessSemaphoreMutex m : others) {
        m.release();
      }
    }

    // a reader that opened the file before the move follows the switch once the old members
    // are gone (no read-ahead: each read fetches from the targets then)
    String followed = "/none/f3";
    byte[] got = new byte[files.get(followed).length];
    PfsInputStream early = client.open(followed, 0);
    int head = early.read(got, 0, CHUNK / 2);
    List<Rebalancer.Move> done = new ArrayList<>();
    Rebalancer.Summary sum = new Rebalancer(client, 0, 0.1).run(List.of("/"), false,
        (m, o, e) -> {
          assertNull(e);
          assertNull(o.skipped(), o.toString());
          done.add(m);
        }, () -> true);
    assertEquals(dry.moves(), sum.moves(), "the pass does what the dry run planned");
    assertTrue(done.stream().anyMatch(m -> m.path().equals(followed)), done.toString());
    for (Rebalancer.Move m : done) {
      long id = client.namespace().getStatus(m.path()).id();
      assertEquals(List.of(), client.chunks().list(m.from(), id, 0, 1000).chunks(),
          m + ": the old members are deleted, so the space is freed");
    }
    try (PfsInputStream in = early) {
      int n = head;
      while (n < got.length) {
        int r = in.read(got, n, got.length - n);
        assertTrue(r > 0, "read " + n + " of " + got.length);
        n += r;
      }
    }
    assertArrayEquals(files.get(followed), got, "read across the switch");
    assertEquals(0, sum.skipped());
    assertTrue(sum.spreadAfter() < sum.spreadBefore(), sum.toString());
    assertTrue(sum.spreadAfter() < sum.spreadBefore() / 2, "much closer to the mean: " + sum);
    for (String p : files.keySet()) {
      FileStatus f = client.namespace().getStatus(p);
      Set<String> nodes = new HashSet<>();
      for (String t : f.layout().targets()) {
        nodes.add(client.registry().target(t).orElseThrow().nodeId());
      }
      assertEquals(3, nodes.size(), p + ": " + f.layout());
      assertTrue(f.repairs().isEmpty(), f.repairs().toString());
    }
    Rebalancer.Summary again = new Rebalancer(client, 0, 0.1).run(List.of("/"), false,
        (m, o, e) -> { }, () -> true);
    assertEquals(0, again.moves(), "balanced: " + again);

    readAll(files, "after the rebalance");
    files.keySet().removeIf(p -> p.startsWith("/none/")); // one node down loses some of them
    for (int node : List.of(3, 0)) {
      cluster.stopNode(node);
      try {
        readAll(files, "with node " + node + " down");
      } finally {
        cluster.restartNode(node);
        cluster.awaitTargets(4);
      }
    }
  }

  private static List<String> layoutOf(String path) {
    try {
      return client.namespace().getStatus(path).layout().targets();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
