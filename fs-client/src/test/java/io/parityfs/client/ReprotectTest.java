package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.Reprotector;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.testing.MiniCluster;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Re-protection (docs/across-nodes.md §5) on four RAID-6 nodes, files of three targets: a node
 * lost for good, its members rebuilt onto the fourth node's target and the layouts switched;
 * then a second node lost, and every file of both policies still reads every byte. Files
 * written while the node was down (with repair records) and files with several rounds are
 * among them. Content is keyed by path and generation.
 */
class ReprotectTest extends OwnClusterTest {
  static final int CHUNK = 1 << 20;

  @BeforeAll
  static void start() throws Exception {
    startCluster(4);
  }

  private static byte[] content(String path, FileStatus f, int n) {
    byte[] b = new byte[n];
    new Random(path.hashCode() * 31L + f.generation()).nextBytes(b);
    return b;
  }

  @Test
  void aNodeLostForGoodIsRebuiltElsewhereThenAnotherMayBeLost() throws Exception {
    Map<String, byte[]> files = new LinkedHashMap<>();
    // the two directories' files land on three of the four nodes: pin them there
    List<String> three = client.registry().targets().stream().map(t -> t.id()).limit(3)
        .toList();
    for (Across a : List.of(Across.mirror(2), Across.ec(2, 1))) {
      String d = "/" + a.toString().replace(':', '-').replace('+', '-');
      client.namespace().mkdirs(d, CreateOptions.directory().withLayout(
          new Layout(CHUNK, 3, three, "raid6:4+2").withAcross(a)));
      for (int i = 0; i < 3; i++) {
        String path = d + "/f" + i;
        try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
          byte[] data = content(path, out.file(), 2 * CHUNK + i * 700_001);
          out.write(data, 0, CHUNK / 2);
          out.hflush(); // a partial group, then rounds again
          out.write(data, CHUNK / 2, data.length - CHUNK / 2);
          files.put(path, data);
        }
      }
    }
    String lostTarget = three.get(1);
    int lost = cluster.nodeOf(client, lostTarget);
    cluster.stopNode(lost);
    // written with the node down: repair records that re-protection must clear
    for (String d : List.of("/mirror-2", "/ec-2-1")) {
      String path = d + "/during";
      try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
        byte[] data = content(path, out.file(), 3 * CHUNK + 5);
        out.write(data);
        files.put(path, data);
      }
    }

    Reprotector r = new Reprotector(client, 0);
    Set<String> gone = Set.of(lostTarget);
    long members = 0;
    for (String path : files.keySet()) {
      FileStatus before = client.namespace().getStatus(path);
      Reprotector.Outcome o = r.reprotect(path, gone);
      assertNull(o.skipped(), o.toString());
      FileStatus after = client.namespace().getStatus(path);
      if (before.layout().targets().contains(lostTarget)) {
        assertEquals(1, o.moved(), o.toString());
        members += o.members();
      }
      assertFalse(after.layout().targets().contains(lostTarget), after.layout().toString());
      assertEquals(3, new HashSet<>(after.layout().targets()).size());
      assertFalse(after.repairs().targets().contains(lostTarget), after.repairs().toString());
      assertEquals(before.version(), after.version(), "no byte of " + path + " changed");
      assertEquals(0, r.reprotect(path, gone).moved(), "a second pass moves nothing");
    }
    assertTrue(members > 0);
    assertTrue(client.chunks().rebuiltOnNodes.get() > 0, "ec members rebuilt by the new node");

    // another node lost: every file still reads, from the rebuilt members
    String second = client.namespace().getStatus("/ec-2-1/f0").layout().targets().get(0);
    int other = cluster.nodeOf(client, second);
    cluster.stopNode(other);
    try (ParityClient fresh = cluster.client(Caller.of("root"))) {
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        assertArrayEquals(f.getValue(), MiniCluster.read(fresh, f.getKey()), f.getKey()
            + " with nodes " + lost + " and " + other + " down");
      }
    } finally {
      cluster.restartNode(other);
    }
  }

  /**
   * Within a file, the groups with the fewest usable members are rebuilt first: a group whose
   * other member is also in the repair record comes before the rest, which stay in order.
   */
  @Test
  void theMostEndangeredGroupsComeFirst() throws Exception {
    List<String> three = client.registry().targets().stream().map(t -> t.id()).limit(3)
        .toList();
    client.namespace().mkdirs("/order", CreateOptions.directory().withLayout(
        new Layout(CHUNK, 3, three, "raid6:4+2").withAcross(Across.ec(2, 1))));
    try (PfsOutputStream out = client.create("/order/f", CreateOptions.file())) {
      out.write(new byte[4 * 2 * CHUNK]); // four groups
    }
    FileStatus f = client.namespace().getStatus("/order/f");
    io.parityfs.meta.ChunkMap map = io.parityfs.meta.ChunkMap.of(f.layout());
    io.parityfs.meta.Repairs lost = new io.parityfs.meta.Repairs(List.of(
        new io.parityfs.meta.Repairs.Range(three.get(0), 0, 3)));
    assertNull(Reprotector.endangeredFirst(f.withRepairs(lost), map, 4), "all alike: in order");
    FileStatus worse = f.withRepairs(lost.with(io.parityfs.meta.Repairs.of(three.get(1), 2)));
    assertArrayEquals(new long[] {2, 0, 1, 3}, Reprotector.endangeredFirst(worse, map, 4));
  }
}
