package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.GroupCheck;
import io.parityfs.keeper.MovePass;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.registry.MoveProgress;
import io.parityfs.meta.targets.Retirements;
import io.parityfs.meta.targets.Standing;
import io.parityfs.meta.targets.TargetInfo;
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
 * Drain (decommission, docs/across-nodes.md §5) on four RAID-6 nodes, files of three targets
 * pinned to the first three nodes, mirror:2, ec:2+1 and no policy across nodes: the second node
 * is marked draining while it runs, nothing new is placed on it, and a pass copies every
 * closed file's members off it onto the fourth node while the third node is down (so they are
 * copied, not rebuilt: a rebuild would need two of three). A file open for writing is left for
 * a later pass, which moves it once closed. Afterwards every file reads with the drained node
 * stopped, and the files with a policy also with another node down: protection never dropped.
 * Content is keyed by path and generation.
 */
class DrainTest extends OwnClusterTest {
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
  void aDrainedNodeLeavesEveryFileAsProtectedAsBefore() throws Exception {
    Map<String, byte[]> files = new LinkedHashMap<>();
    List<String> three = client.registry().targets().stream().map(t -> t.id()).limit(3)
        .toList();
    for (Across a : List.of(Across.mirror(2), Across.ec(2, 1), Across.NONE)) {
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
    String openPath = "/ec-2-1/open";
    PfsOutputStream open = client.create(openPath, CreateOptions.file());
    byte[] openData = content(openPath, open.file(), CHUNK + 12_345);
    open.write(openData, 0, CHUNK / 3);
    open.hsync();

    String draining = three.get(1);
    int drained = cluster.nodeOf(client, draining);
    Retirements retirements = new Retirements(client.registry());
    retirements.retire(draining, Standing.DRAINING, "test");
    // nothing new lands on it: drawn layouts avoid it, and a layout naming it is refused
    try (PfsOutputStream out = client.create("/fresh", CreateOptions.file())) {
      assertFalse(out.file().layout().targets().contains(draining),
          out.file().layout().toString());
    }
    NamespaceException pinned = assertThrows(NamespaceException.class,
        () -> client.create("/ec-2-1/new", CreateOptions.file()).close());
    assertEquals(NamespaceStatus.UNAVAILABLE, pinned.status());
    assertTrue(pinned.getMessage().contains("draining"), pinned.getMessage());

    Map<String, FileStatus> before = new LinkedHashMap<>();
    for (String p : files.keySet()) {
      before.put(p, client.namespace().getStatus(p));
    }
    int other = cluster.nodeOf(client, three.get(2));
    cluster.stopNode(other);
    MovePass.Summary first;
    List<String> pinnedDirs;
    // the pass runs on a client of its own, as `parityfs node drain` does: its check of the
    // files' groups with a node down makes that node a suspect, and the open file's writer
    // would write around it once it is back
    try (ParityClient mover = cluster.client(Caller.of("root"))) {
      MovePass pass = new MovePass(mover, Set.of(draining), true, 0);
      List<FileStatus> found = pass.find(List.of("/"));
      assertEquals(files.size() + 1, found.size(), "the closed files and the open one");
      pinnedDirs = pass.pinned().stream().map(FileStatus::path).sorted().toList();
      first = pass.run(found, (i, of, f, o, error, soFar) -> {
        if (error != null) {
          throw new AssertionError(f.path(), error);
        }
      }, () -> true);
    } finally {
      cluster.restartNode(other);
      cluster.awaitTargets(4);
    }
    assertEquals(List.of("/ec-2-1", "/mirror-2", "/none"), pinnedDirs);
    assertEquals(files.size(), first.moved(), first.toString());
    assertEquals(1, first.leftForLater(), "the open file: " + first);
    assertEquals(0, first.failed(), first.toString());
    for (Map.Entry<String, FileStatus> e : before.entrySet()) {
      FileStatus after = client.namespace().getStatus(e.getKey());
      Layout l = after.layout();
      assertFalse(l.targets().contains(draining), e.getKey() + ": " + l);
      assertEquals(3, new HashSet<>(l.targets()).size(), l.toString());
      assertEquals(e.getValue().layout().across(), l.across());
      assertEquals(e.getValue().version(), after.version(), "no byte of " + e.getKey()
          + " changed");
      assertTrue(after.repairs().targets().isEmpty(), "copied whole: " + after.repairs());
    }

    // the open file is moved once it is closed
    open.write(openData, CHUNK / 3, openData.length - CHUNK / 3);
    open.close();
    files.put(openPath, openData);
    MovePass again = new MovePass(client, Set.of(draining), true, 0);
    MovePass.Summary second = again.run(again.find(List.of("/")), null, () -> true);
    assertTrue(second.complete(), second.toString());
    assertEquals(1, second.moved(), second.toString());
    assertTrue(again.find(List.of("/")).isEmpty(), "no file uses the drained target");
    for (String path : files.keySet()) {
      long id = client.namespace().getStatus(path).id();
      assertEquals(List.of(), client.chunks().list(draining, id, 0, 1000).chunks(),
          path + ": its old members on the drained target are deleted");
    }
    MoveProgress p = retirements.progress(draining).orElseThrow();
    assertTrue(p.done() && p.filesLeft() == 0 && "drain".equals(p.kind()), p.toString());

    cluster.stopNode(drained);
    try (ParityClient fresh = cluster.client(Caller.of("root"))) {
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        assertArrayEquals(f.getValue(), MiniCluster.read(fresh, f.getKey()), f.getKey()
            + " with the drained node stopped");
      }
      int first3 = cluster.nodeOf(client, three.get(0));
      cluster.stopNode(first3);
      try {
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
          if (!f.getKey().startsWith("/none")) {
            assertArrayEquals(f.getValue(), MiniCluster.read(fresh, f.getKey()), f.getKey()
                + " with the drained node and node " + first3 + " stopped");
          }
        }
      } finally {
        cluster.restartNode(first3);
      }
    } finally {
      cluster.restartNode(drained);
    }
  }
  /**
   * A drain never leaves a group's committed bytes behind in copies: a dead writer's hflushed
   * last group, its copy on the group's parity target and no round yet (lease recovery left it
   * for the keeper's check), is sealed before that parity target's members move. A drain copies
   * members, and a copy is not one: before, the parity target held no member to copy, no round
   * could rebuild it, and the drain failed the file on every pass. Afterwards the group is one
   * complete round on the new layout, and every byte reads with the own member's node down.
   */
  @Test
  void aDrainSealsAGroupInCopiesBeforeMovingIt() throws Exception {
    Retirements retirements = new Retirements(client.registry());
    for (TargetInfo t : client.registry().targets()) {
      retirements.reinstate(t.id()); // the other test leaves its drained target retired
    }
    List<String> three = client.registry().targets().stream().map(t -> t.id()).limit(3)
        .toList();
    client.namespace().mkdirs("/tail", CreateOptions.directory().withLayout(
        new Layout(CHUNK, 3, three, "raid6:4+2").withAcross(Across.ec(2, 1))));
    String path = "/tail/f";
    byte[] data;
    try (ParityClient writer = cluster.client(Caller.of("root"))) {
      PfsOutputStream out = writer.create(path, CreateOptions.file());
      data = content(path, out.file(), CHUNK + 300);
      out.write(data);
      out.hflush();
    } // the writer's session ends: its lease is dead
    assertTrue(client.recoverLease(path));
    FileStatus f = client.namespace().getStatus(path);
    GroupCheck.Report tail = new GroupCheck(client).check(f);
    assertEquals(GroupCheck.State.TAIL, tail.worst(), tail.toString());
    io.parityfs.meta.ChunkMap map = io.parityfs.meta.ChunkMap.of(f.layout());
    String parity = f.layout().targets().get(map.memberPosition(0, 2));
    String own = f.layout().targets().get(map.memberPosition(0, 0));
    retirements.retire(parity, Standing.DRAINING, "test");
    try {
      MovePass pass = new MovePass(client, Set.of(parity), true, 0);
      MovePass.Summary done = pass.run(pass.find(List.of("/tail")), null, () -> true);
      assertEquals(1, done.moved(), done.toString());
      FileStatus moved = client.namespace().getStatus(path);
      assertFalse(moved.layout().targets().contains(parity), moved.layout().toString());
      assertEquals(GroupCheck.State.PROTECTED, new GroupCheck(client).check(moved).worst(),
          "sealed, then moved");
      int ownNode = cluster.nodeOf(client, own);
      cluster.stopNode(ownNode);
      try (ParityClient fresh = cluster.client(Caller.of("root"))) {
        assertArrayEquals(data, MiniCluster.read(fresh, path), "chunk 0's node stopped");
      } finally {
        cluster.restartNode(ownNode);
        cluster.awaitTargets(4);
      }
    } finally {
      retirements.reinstate(parity);
      client.namespace().delete("/tail", true); // the other test drains from "/"
    }
  }
}
