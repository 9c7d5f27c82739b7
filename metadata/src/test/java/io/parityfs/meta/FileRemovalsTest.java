package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every removal of a file inode queues its deferred-delete record in the same {@code multi}:
 * delete, create with overwrite, recursive delete (also when its purge crashes half way).
 */
class FileRemovalsTest extends ZkFixture {
  private static final Layout LAYOUT =
      new Layout(1 << 20, 3, List.of("t1", "t2", "t3"), "raid6:4+2");

  private Namespace ns;
  private DeleteQueue queue;

  @BeforeEach
  void open() throws Exception {
    ns = newNamespace();
    queue = DeleteQueue.open(client, ns.config());
  }

  @Test
  void deleteQueuesTheFileWithItsLayoutLengthAndVersion() throws Exception {
    FileStatus f = ns.create("/a/f", CreateOptions.file().withLayout(LAYOUT));
    ns.setLength("/a/f", f.id(), 0, 5 << 20);
    assertEquals(0, queue.size());
    assertTrue(ns.delete("/a/f", false));
    assertArrayEquals(new long[] {f.id()}, queue.ids());
    DeferredDelete r = queue.get(f.id()).orElseThrow();
    assertEquals(f.id(), r.id());
    assertEquals(LAYOUT, r.layout());
    assertEquals(5 << 20, r.length());
    assertEquals(1, r.version());
    assertTrue(Math.abs(System.currentTimeMillis() - r.queuedMillis()) < 60_000);
    // the znode and its JSON, as documented
    ZNodes zn = new ZNodes(ns.config().root());
    String json = new String(client.getData().forPath(zn.deleteRecord(f.id())),
        StandardCharsets.UTF_8);
    assertTrue(zn.deleteRecord(f.id()).endsWith(String.format("/deletes/%02X/%010x",
        f.id() & 0xff, f.id())), zn.deleteRecord(f.id()));
    assertTrue(json.startsWith("{\"schema\":1,\"id\":" + f.id() + ",\"layout\":{\"chunkSize\":"
        + (1 << 20) + ",\"stripeCount\":3,\"targets\":[\"t1\",\"t2\",\"t3\"]"), json);
    assertTrue(json.contains("\"length\":" + (5 << 20) + ",\"version\":1,\"queuedMillis\":"), json);
    // deleting a missing file queues nothing more
    assertFalse(ns.delete("/a/f", false));
    assertEquals(1, queue.size());
    assertEquals(List.of(r), queue.list(10));
    assertTrue(queue.remove(f.id()));
    assertFalse(queue.remove(f.id()));
    assertEquals(0, queue.size());
  }

  @Test
  void overwriteQueuesTheReplacedFileOnly() throws Exception {
    FileStatus old = ns.create("/f", CreateOptions.file().withLayout(LAYOUT));
    FileStatus now = ns.create("/f", CreateOptions.file().withOverwrite(true));
    assertArrayEquals(new long[] {old.id()}, queue.ids());
    assertEquals(now.id(), ns.getStatus("/f").id());
    assertThrows(NamespaceException.class, () -> ns.create("/f", CreateOptions.file()));
    assertEquals(1, queue.size());
  }

  @Test
  void renameAndDirectoriesQueueNothing() throws Exception {
    ns.create("/d/f", CreateOptions.file());
    ns.mkdirs("/e");
    ns.rename("/d/f", "/e/g");
    ns.rename("/e", "/d/");
    assertTrue(ns.delete("/d/e/g", false));
    assertTrue(ns.delete("/d/e", false));
    assertEquals(1, queue.size());
  }

  @Test
  void recursiveDeleteQueuesEveryFileOnce() throws Exception {
    List<Long> ids = tree("/t");
    assertTrue(ns.delete("/t", true));
    assertArrayEquals(sorted(ids), queue.ids());
  }

  @Test
  void aPurgeThatCrashesHalfWayLeavesEveryRemovedFileQueuedAndTheRestToPurgeTrash()
      throws Exception {
    List<Long> ids = tree("/t");
    FileStatus t = ns.getStatus("/t");
    ZNodes zn = new ZNodes(ns.config().root());
    // the detach multi of a recursive delete, then a purge that dies after its first batch
    client.transaction().forOperations(
        client.transactionOp().delete().forPath(zn.entry(ZNodes.ROOT_ID, 64, "t")),
        client.transactionOp().setData().withVersion(0).forPath(zn.container(t.id()),
            "{}".getBytes(StandardCharsets.UTF_8)),
        client.transactionOp().create().forPath(zn.trashMarker(t.id())));
    AtomicInteger batches = new AtomicInteger();
    Zk zk = new Zk(client);
    SubtreePurger crashing = new SubtreePurger(zk, zn, new FileRemovals(zk, zn, new RepairIndex(zk, zn)), () -> {
      if (batches.incrementAndGet() == 1) {
        throw new IllegalStateException("simulated crash");
      }
    });
    assertThrows(IllegalStateException.class, () -> crashing.purge(t.id()));
    long[] partial = queue.ids();
    assertTrue(partial.length > 0 && partial.length < ids.size(), Arrays.toString(partial));
    for (long id : partial) {
      assertTrue(ids.contains(id));
    }
    assertEquals(1, ns.purgeTrash());
    assertArrayEquals(sorted(ids), queue.ids());
    assertEquals(List.of(), client.getChildren().forPath(zn.trash));
  }

  @Test
  void openMakesTheQueueInANamespaceFormattedWithoutIt() throws Exception {
    ZNodes zn = new ZNodes(ns.config().root());
    client.delete().deletingChildrenIfNeeded().forPath(zn.deletes);
    Namespace again = Namespace.open(client, ns.config());
    assertEquals(256, client.getChildren().forPath(zn.deletes).size());
    FileStatus f = again.create("/f", CreateOptions.file());
    again.delete("/f", false);
    assertArrayEquals(new long[] {f.id()}, queue.ids());
  }

  /** /root/{a,b,c}/{f0..f5}, /root/g: 19 files in 4 directories. */
  private List<Long> tree(String root) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (String d : List.of("a", "b", "c")) {
      for (int i = 0; i < 6; i++) {
        ids.add(ns.create(root + "/" + d + "/f" + i, CreateOptions.file().withLayout(LAYOUT))
            .id());
      }
    }
    ids.add(ns.create(root + "/g", CreateOptions.file()).id());
    return ids;
  }

  private static long[] sorted(List<Long> ids) {
    return ids.stream().mapToLong(Long::longValue).sorted().toArray();
  }

  @Test
  void aFileReplacedByAPosixRenameIsQueuedLikeADeletedOne() throws Exception {
    FileStatus old = ns.create("/r/dst", CreateOptions.file().withLayout(LAYOUT));
    ns.setLength("/r/dst", old.id(), 0, 3 << 20);
    ns.create("/r/src", CreateOptions.file().withLayout(LAYOUT));
    assertEquals(0, queue.size());
    ns.renameReplacing("/r/src", "/r/dst");
    assertArrayEquals(new long[] {old.id()}, queue.ids());
    assertEquals(3 << 20, queue.get(old.id()).orElseThrow().length());
  }
}

