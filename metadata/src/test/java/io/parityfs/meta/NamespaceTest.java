package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every operation and its filesystem.md rule, one namespace per test. */
class NamespaceTest extends ZkFixture {
  Namespace ns;

  @BeforeEach
  void open() throws Exception {
    ns = newNamespace();
  }

  static NamespaceStatus fails(Executable op) {
    return assertThrows(NamespaceException.class, op).status();
  }

  @Test
  void rootExistsAsADirectoryWithTheConfiguredLayout() throws Exception {
    FileStatus root = ns.getStatus("/");
    assertTrue(root.isDirectory());
    assertEquals(ZNodes.ROOT_ID, root.id());
    assertEquals("/", root.path());
    assertEquals(Layout.DEFAULT, root.layout());
    assertTrue(ns.exists("/"));
    assertEquals(List.of(), ns.listAll("/"));
  }

  @Test
  void createStatAndCreateRules() throws Exception {
    FileStatus f = ns.create("/a/b/file", CreateOptions.file().withPermission(0600)
        .withOwner("alice", "staff"));
    assertTrue(f.isFile());
    assertEquals(0, f.length());
    assertEquals(0, f.version());
    assertTrue(f.id() > ZNodes.ROOT_ID && f.id() < (1L << 40));
    FileStatus s = ns.getStatus("/a//b/file/");
    assertEquals(f, s);
    assertEquals("/a/b/file", s.path());
    assertEquals(0600, s.permission());
    assertEquals("alice", s.owner());
    assertEquals("staff", s.group());
    assertTrue(ns.getStatus("/a/b").isDirectory()); // parents were created
    // create over an existing file: ALREADY_EXISTS unless overwrite; overwrite gives a new id
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.create("/a/b/file",
        CreateOptions.file())));
    FileStatus again = ns.create("/a/b/file", CreateOptions.file().withOverwrite(true));
    assertNotEquals(f.id(), again.id());
    assertEquals(again.id(), ns.getStatus("/a/b/file").id());
    // over a directory, and the root: ALREADY_EXISTS even with overwrite
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.create("/a/b",
        CreateOptions.file().withOverwrite(true))));
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.create("/",
        CreateOptions.file())));
    // createNonRecursive: the parent must exist
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.create("/x/y",
        CreateOptions.file().withCreateParents(false))));
    assertFalse(ns.exists("/x"));
    // a file in the way of the parent
    assertEquals(NamespaceStatus.PARENT_NOT_DIRECTORY, fails(() -> ns.create("/a/b/file/c",
        CreateOptions.file())));
    assertEquals(NamespaceStatus.PARENT_NOT_DIRECTORY, fails(() -> ns.create("/a/b/file/c/d",
        CreateOptions.file())));
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.getStatus("/a/b/file/c")));
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.getStatus("/nope")));
    assertFalse(ns.exists("/nope"));
  }

  @Test
  void mkdirsRules() throws Exception {
    assertTrue(ns.mkdirs("/d1/d2/d3"));
    assertTrue(ns.mkdirs("/d1/d2/d3")); // existing directory: success
    assertTrue(ns.mkdirs("/d1"));
    assertTrue(ns.getStatus("/d1/d2/d3").isDirectory());
    assertEquals(0755, ns.getStatus("/d1/d2").permission());
    ns.create("/d1/f", CreateOptions.file());
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.mkdirs("/d1/f")));
    assertEquals(NamespaceStatus.PARENT_NOT_DIRECTORY, fails(() -> ns.mkdirs("/d1/f/g/h")));
    assertTrue(ns.mkdirs("/"));
  }

  @Test
  void deleteRules() throws Exception {
    ns.create("/f", CreateOptions.file());
    assertTrue(ns.delete("/f", false));
    assertFalse(ns.exists("/f"));
    assertFalse(ns.delete("/f", false)); // missing: false
    assertFalse(ns.delete("/missing/deeper", true));
    ns.mkdirs("/empty");
    assertTrue(ns.delete("/empty", false)); // empty directory, non-recursive: fine
    assertFalse(ns.exists("/empty"));
    ns.create("/full/child", CreateOptions.file());
    assertEquals(NamespaceStatus.NOT_EMPTY, fails(() -> ns.delete("/full", false)));
    assertTrue(ns.exists("/full/child"));
    // a directory whose entries were all deleted is empty again (buckets left behind are removed)
    ns.delete("/full/child", false);
    assertTrue(ns.delete("/full", false));
    assertFalse(ns.delete("/", true)); // the root is never deleted
    assertTrue(ns.getStatus("/").isDirectory());
  }

  @Test
  void recursiveDeleteOfATreeRemovesEveryZnode() throws Exception {
    CuratorFramework c = client;
    String dirs = ns.config().root() + "/dirs";
    int before = countZnodes(c, dirs);
    for (int i = 0; i < 5; i++) {
      for (int j = 0; j < 5; j++) {
        ns.create("/tree/d" + i + "/e" + j + "/file", CreateOptions.file());
      }
      ns.create("/tree/d" + i + "/f", CreateOptions.file());
    }
    ns.create("/keep/me", CreateOptions.file());
    int keep = countZnodes(c, dirs);
    assertTrue(ns.delete("/tree", true));
    assertFalse(ns.exists("/tree"));
    assertFalse(ns.exists("/tree/d1/e1/file"));
    assertTrue(ns.exists("/keep/me"));
    assertEquals(List.of(), c.getChildren().forPath(ns.config().root() + "/trash"));
    ns.delete("/keep", true);
    // left: only the root's buckets (made on first use, kept while their directory lives)
    String rootContainer = new ZNodes(ns.config().root()).container(ZNodes.ROOT_ID);
    List<String> rootBuckets = c.getChildren().forPath(rootContainer);
    for (String b : rootBuckets) {
      assertEquals(List.of(), c.getChildren().forPath(rootContainer + "/" + b));
    }
    assertEquals(before + rootBuckets.size(), countZnodes(c, dirs),
        "leftover znodes (had " + keep + ")");
    // the name is free again, as a fresh empty directory
    ns.mkdirs("/tree");
    assertEquals(List.of(), ns.listAll("/tree"));
  }

  @Test
  void purgeTrashFinishesADetachedDirectoryAfterACrash() throws Exception {
    ns.create("/gone/a/b/f1", CreateOptions.file());
    ns.create("/gone/f2", CreateOptions.file());
    FileStatus gone = ns.getStatus("/gone");
    ZNodes zn = new ZNodes(ns.config().root());
    // what delete's detach multi does, without the purge that follows (a crash in between)
    client.transaction().forOperations(
        client.transactionOp().delete().forPath(zn.entry(ZNodes.ROOT_ID, 64, "gone")),
        client.transactionOp().setData().withVersion(0).forPath(zn.container(gone.id()),
            "{}".getBytes(StandardCharsets.UTF_8)),
        client.transactionOp().create().forPath(zn.trashMarker(gone.id())));
    ns.sync(); // a write behind the namespace's back: its cache learns of it by watch
    assertFalse(ns.exists("/gone"));
    assertTrue(client.checkExists().forPath(zn.container(gone.id())) != null);
    assertEquals(1, ns.purgeTrash());
    assertNull(client.checkExists().forPath(zn.container(gone.id())));
    assertEquals(List.of(), client.getChildren().forPath(zn.trash));
    assertEquals(0, ns.purgeTrash());
  }

  @Test
  void createInADetachedDirectoryIsRefused() throws Exception {
    ns.mkdirs("/d");
    ns.create("/d/x", CreateOptions.file());
    FileStatus d = ns.getStatus("/d");
    ZNodes zn = new ZNodes(ns.config().root());
    // mark the container detached, as delete's detach multi does, but leave the entry: the
    // check op of a create must refuse it
    client.setData().withVersion(0).forPath(zn.container(d.id()), new byte[] {1});
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> ns.create("/d/y", CreateOptions.file().withCreateParents(false)));
    assertEquals(NamespaceStatus.CONFLICT, e.status());
    assertFalse(ns.exists("/d/y"));
  }

  @Test
  void listSmallDirectoriesSortedAndFilesListAsThemselves() throws Exception {
    List<String> names = List.of("b", "a", "c10", "c9", "Z", "😀", "é", "x%y");
    for (String n : names) {
      ns.create("/dir/" + n, CreateOptions.file());
    }
    ns.mkdirs("/dir/sub");
    List<FileStatus> all = ns.listAll("/dir");
    assertEquals(List.of("Z", "a", "b", "c10", "c9", "sub", "x%y", "é", "😀"),
        all.stream().map(s -> s.path().substring(5)).toList());
    assertTrue(all.get(5).isDirectory());
    DirectoryPage p1 = ns.list("/dir", null, 4);
    assertEquals(4, p1.entries().size());
    assertEquals("c10", p1.next());
    DirectoryPage p2 = ns.list("/dir", p1.next(), 4);
    assertEquals("/dir/c9", p2.entries().get(0).path());
    DirectoryPage p3 = ns.list("/dir", p2.next(), 4);
    assertEquals(1, p3.entries().size());
    assertFalse(p3.hasMore());
    DirectoryPage exact = ns.list("/dir", null, 9);
    assertEquals(9, exact.entries().size());
    assertNull(exact.next());
    DirectoryPage file = ns.list("/dir/a", null, 10);
    assertEquals(List.of(ns.getStatus("/dir/a")), file.entries());
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.list("/none", null, 10)));
    assertThrows(IllegalArgumentException.class, () -> ns.list("/dir", null, 0));
    assertThrows(IllegalArgumentException.class, () -> ns.list("/dir", null, 1001));
  }

  @Test
  void hostileNamesWorkEverywhereAndNeverEscape() throws Exception {
    ns.mkdirs("/h");
    for (String n : NamesTest.HOSTILE) {
      FileStatus f = ns.create("/h/" + n, CreateOptions.file());
      assertEquals("/h/" + n, f.path());
      assertEquals(f.id(), ns.getStatus("/h/" + n).id());
    }
    assertEquals(NamesTest.HOSTILE.size(), ns.listAll("/h").size());
    assertEquals(List.of(), ns.listAll("/")
        .stream().filter(s -> !s.path().equals("/h")).toList());
    ns.rename("/h/😀emoji", "/h/%2F..%2F");
    assertTrue(ns.exists("/h/%2F..%2F"));
    for (String p : new String[] {"/h/../x", "/h/./x", "h", "/h/a\0b", "/h/\ud800"}) {
      assertEquals(NamespaceStatus.INVALID_PATH, fails(() -> ns.create(p, CreateOptions.file())),
          p);
      assertEquals(NamespaceStatus.INVALID_PATH, fails(() -> ns.getStatus(p)), p);
      assertEquals(NamespaceStatus.INVALID_PATH, fails(() -> ns.rename("/h/ü", p)), p);
    }
    assertTrue(ns.delete("/h", true));
    assertEquals(List.of(), ns.listAll("/"));
  }

  @Test
  void attributesTimesPermissionOwner() throws Exception {
    ns.create("/f", CreateOptions.file());
    FileStatus t = ns.setTimes("/f", 1000, 2000);
    assertEquals(1000, t.modificationTime());
    assertEquals(2000, t.accessTime());
    assertEquals(1000, ns.setTimes("/f", -1, 3000).modificationTime());
    assertEquals(3000, ns.getStatus("/f").accessTime());
    assertEquals(0700, ns.setPermission("/f", 0700).permission());
    FileStatus o = ns.setOwner("/f", "bob", null);
    assertEquals("bob", o.owner());
    assertEquals("supergroup", o.group()); // the root's group, inherited
    assertEquals("grp", ns.setOwner("/f", null, "grp").group());
    FileStatus s = ns.getStatus("/f");
    assertEquals(List.of(0700, "bob", "grp", 1000L), List.of(s.permission(), s.owner(),
        s.group(), s.modificationTime()));
    assertEquals(01777, ns.setPermission("/", 01777).permission()); // the root too
    assertEquals(01777, ns.getStatus("/").permission());
    assertThrows(IllegalArgumentException.class, () -> ns.setPermission("/f", 010000));
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.setTimes("/g", 1, 1)));
  }

  @Test
  void xattrs() throws Exception {
    ns.mkdirs("/d");
    byte[] v = {0, 1, 2, (byte) 255};
    ns.setXAttr("/d", "user.a", v, XAttrMode.CREATE);
    assertArrayEquals(v, ns.getXAttr("/d", "user.a"));
    assertEquals(NamespaceStatus.ALREADY_EXISTS,
        fails(() -> ns.setXAttr("/d", "user.a", v, XAttrMode.CREATE)));
    assertEquals(NamespaceStatus.NOT_FOUND,
        fails(() -> ns.setXAttr("/d", "user.b", v, XAttrMode.REPLACE)));
    ns.setXAttr("/d", "user.a", new byte[] {9}, XAttrMode.REPLACE);
    ns.setXAttr("/d", "trusted.b", new byte[0], XAttrMode.UPSERT);
    Map<String, byte[]> all = ns.getXAttrs("/d");
    assertEquals(List.of("trusted.b", "user.a"), List.copyOf(all.keySet()));
    assertArrayEquals(new byte[] {9}, all.get("user.a"));
    ns.removeXAttr("/d", "user.a");
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.getXAttr("/d", "user.a")));
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.removeXAttr("/d", "user.a")));
    assertThrows(IllegalArgumentException.class,
        () -> ns.setXAttr("/d", "nonamespace", v, XAttrMode.UPSERT));
    assertThrows(IllegalArgumentException.class,
        () -> ns.setXAttr("/d", "user.", v, XAttrMode.UPSERT));
    assertEquals(NamespaceStatus.TOO_LARGE, fails(() -> ns.setXAttr("/d", "user.big",
        new byte[InodeCodec.MAX_XATTR_BYTES], XAttrMode.UPSERT)));
    for (int i = 0; i < InodeCodec.MAX_XATTRS - 1; i++) {
      ns.setXAttr("/d", "user.k" + i, new byte[8], XAttrMode.UPSERT);
    }
    assertEquals(NamespaceStatus.TOO_LARGE, fails(() -> ns.setXAttr("/d", "user.one-more",
        new byte[1], XAttrMode.UPSERT)));
    // the largest allowed set still fits a record, and survives a rename
    ns.create("/d/f", CreateOptions.file());
    ns.setXAttr("/d/f", "user.max", new byte[InodeCodec.MAX_XATTR_BYTES - 8],
        XAttrMode.CREATE);
    ns.rename("/d/f", "/g");
    assertEquals(InodeCodec.MAX_XATTR_BYTES - 8, ns.getXAttr("/g", "user.max").length);
  }

  @Test
  void layoutsAreInheritedFromDirectories() throws Exception {
    Layout wide = new Layout(1 << 20, 8, List.of(), "rs:8+3");
    ns.mkdirs("/ckpt", CreateOptions.directory().withLayout(wide));
    assertEquals(wide, ns.getStatus("/ckpt").layout());
    assertEquals(wide, ns.create("/ckpt/a/f", CreateOptions.file()).layout()); // via /ckpt/a
    assertEquals(wide, ns.getStatus("/ckpt/a").layout());
    assertEquals(Layout.DEFAULT, ns.create("/other", CreateOptions.file()).layout());
    Layout own = new Layout(4096, 1, List.of("t1"), "none");
    assertEquals(own, ns.create("/ckpt/own", CreateOptions.file().withLayout(own)).layout());
    // setLayout: a directory's default changes for new files only; a new file gets targets
    Layout narrow = new Layout(64 << 10, 2, List.of(), "raid5:2+1");
    ns.setLayout("/ckpt", narrow);
    assertEquals(narrow, ns.create("/ckpt/new", CreateOptions.file()).layout());
    assertEquals(wide, ns.getStatus("/ckpt/a/f").layout());
    FileStatus placed = ns.setLayout("/ckpt/new", narrow.withTargets(List.of("t1", "t2")));
    assertEquals(List.of("t1", "t2"), placed.layout().targets());
    ns.setLength("/ckpt/new", placed.id(), 0, 10);
    assertEquals(NamespaceStatus.CONFLICT, fails(() -> ns.setLayout("/ckpt/new", narrow)));
    assertThrows(IllegalArgumentException.class, () -> new Layout(1000, 1, List.of(), "none"));
    assertThrows(IllegalArgumentException.class, () -> new Layout(4096, 1, List.of("a", "b"),
        "none"));
    assertThrows(IllegalArgumentException.class, () -> new Layout(4096, 1, List.of(),
        "raid6:4+3"));
  }

  @Test
  void lengthAndVersion() throws Exception {
    FileStatus f = ns.create("/f", CreateOptions.file());
    FileStatus a = ns.setLength("/f", f.id(), 0, 100);
    assertEquals(100, a.length());
    assertEquals(1, a.version());
    assertEquals(NamespaceStatus.CONFLICT, fails(() -> ns.setLength("/f", f.id(), 0, 200)));
    assertEquals(2, ns.setLength("/f", f.id(), -1, 50).version());
    assertEquals(50, ns.getStatus("/f").length());
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.setLength("/f", f.id() + 1000, -1,
        1)));
    ns.mkdirs("/d");
    long dirId = ns.getStatus("/d").id();
    assertEquals(NamespaceStatus.IS_A_DIRECTORY, fails(() -> ns.setLength("/d", dirId, -1, 1)));
    assertThrows(IllegalArgumentException.class, () -> ns.setLength("/f", f.id(), -1, -1));
  }

  @Test
  void coexistsWithStorageNodeRecordsAndCuratorNamespaces() throws Exception {
    client.create().creatingParentsIfNeeded().forPath("/parityfs/nodes/n1",
        "{\"schema\":1}".getBytes(StandardCharsets.UTF_8));
    NamespaceConfig formatting = NamespaceConfig.DEFAULT.toBuilder()
        .ifMissing(NamespaceConfig.IfMissing.FORMAT).build();
    Namespace other = Namespace.open(client, formatting);
    other.create("/x", CreateOptions.file());
    assertEquals("{\"schema\":1}", new String(client.getData().forPath("/parityfs/nodes/n1"),
        StandardCharsets.UTF_8));
    assertTrue(client.getChildren().forPath("/parityfs").containsAll(List.of("nodes", "ns")));
    // a second open sees the same namespace; a chrooted client (Curator namespace) its own
    assertTrue(Namespace.open(client, NamespaceConfig.DEFAULT).exists("/x"));
    CuratorFramework chrooted = client.usingNamespace("prod");
    Namespace prod = Namespace.open(chrooted, formatting);
    assertFalse(prod.exists("/x"));
    prod.create("/y/z", CreateOptions.file());
    prod.rename("/y/z", "/w");
    assertTrue(prod.exists("/w"));
    assertTrue(client.checkExists().forPath("/prod/parityfs/ns/root") != null);
    other.close();
    assertThrows(IllegalStateException.class, () -> other.getStatus("/x"));
  }

  static int countZnodes(CuratorFramework c, String path) throws Exception {
    int n = 1;
    for (String child : c.getChildren().forPath(path)) {
      n += countZnodes(c, path + "/" + child);
    }
    return n;
  }

  @Test
  void mkdirMakesOneLevelAndRefusesATakenName() throws Exception {
    FileStatus d = ns.mkdir("/m", CreateOptions.directory().withPermission(0750));
    assertTrue(d.isDirectory());
    assertEquals(0750, ns.getStatus("/m").permission());
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.mkdir("/m",
        CreateOptions.directory())));
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.mkdir("/none/x",
        CreateOptions.directory())));
    assertFalse(ns.exists("/none"));
    ns.create("/m/f", CreateOptions.file().withLease(false));
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.mkdir("/m/f",
        CreateOptions.directory())));
    assertEquals(NamespaceStatus.PARENT_NOT_DIRECTORY, fails(() -> ns.mkdir("/m/f/x",
        CreateOptions.directory())));
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.mkdir("/",
        CreateOptions.directory())));
    assertTrue(ns.mkdir("/m/sub", CreateOptions.directory()).isDirectory());
  }

  @Test
  void ofConcurrentMkdirsOfOnePathExactlyOneSucceeds() throws Exception {
    for (int round = 0; round < 5; round++) {
      String path = "/race" + round;
      int n = 6;
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(n);
      java.util.concurrent.atomic.AtomicInteger won =
          new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicInteger taken =
          new java.util.concurrent.atomic.AtomicInteger();
      List<Thread> threads = new java.util.ArrayList<>();
      java.util.concurrent.ConcurrentLinkedQueue<Throwable> other =
          new java.util.concurrent.ConcurrentLinkedQueue<>();
      for (int i = 0; i < n; i++) {
        // each its own namespace object (own cache), as separate clients would be
        Namespace mine = Namespace.open(client, ns.config());
        Thread t = new Thread(() -> {
          try {
            start.await();
            mine.mkdir(path, CreateOptions.directory());
            won.incrementAndGet();
          } catch (NamespaceException e) {
            if (e.status() == NamespaceStatus.ALREADY_EXISTS) {
              taken.incrementAndGet();
            } else {
              other.add(e);
            }
          } catch (Exception e) {
            other.add(e);
          }
        });
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join();
      }
      assertTrue(other.isEmpty(), other.toString());
      assertEquals(1, won.get(), "round " + round);
      assertEquals(n - 1, taken.get(), "round " + round);
    }
  }
}

