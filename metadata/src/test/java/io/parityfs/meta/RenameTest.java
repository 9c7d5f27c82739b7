package io.parityfs.meta;

import static io.parityfs.meta.NamespaceTest.fails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** rename's rules from filesystem.md, and that a directory of any size moves in one multi. */
class RenameTest extends ZkFixture {
  Namespace ns;

  @BeforeEach
  void open() throws Exception {
    ns = newNamespace();
  }

  @Test
  void fileRenames() throws Exception {
    long id = ns.create("/a/f", CreateOptions.file()).id();
    assertEquals("/a/g", ns.rename("/a/f", "/a/g"));
    assertFalse(ns.exists("/a/f"));
    assertEquals(id, ns.getStatus("/a/g").id());
    assertEquals("/a/g", ns.rename("/a/g", "/a/g")); // onto itself: no-op, success
    assertEquals("/a/g", ns.rename("/a/g", "/a")); // into its own parent: itself, no-op
    ns.mkdirs("/b");
    assertEquals("/b/g", ns.rename("/a/g", "/b")); // into an existing directory
    assertEquals(id, ns.getStatus("/b/g").id());
    assertEquals("/g2", ns.rename("/b/g", "/g2")); // to the root level
    assertEquals("/b/g2", ns.rename("/g2", "/b/")); // trailing slash: the directory
  }

  @Test
  void renameFailures() throws Exception {
    ns.create("/d/f", CreateOptions.file());
    ns.create("/d/other", CreateOptions.file());
    ns.create("/e/f", CreateOptions.file());
    ns.mkdirs("/d/sub/deeper");
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.rename("/missing", "/x")));
    assertEquals(NamespaceStatus.INVALID_RENAME, fails(() -> ns.rename("/", "/x")));
    // onto an existing file
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.rename("/d/f", "/d/other")));
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.rename("/d/sub", "/d/other")));
    // into a directory that already has the name
    assertEquals(NamespaceStatus.ALREADY_EXISTS, fails(() -> ns.rename("/d/f", "/e")));
    // into itself or a descendant
    assertEquals(NamespaceStatus.INVALID_RENAME, fails(() -> ns.rename("/d", "/d/sub")));
    assertEquals(NamespaceStatus.INVALID_RENAME, fails(() -> ns.rename("/d", "/d/sub/deeper/x")));
    assertEquals(NamespaceStatus.INVALID_RENAME, fails(() -> ns.rename("/d", "/d/new")));
    // missing destination parent, a file as destination parent
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.rename("/d/f", "/nope/f")));
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.rename("/d/f", "/nope/deeper/f")));
    assertEquals(NamespaceStatus.PARENT_NOT_DIRECTORY,
        fails(() -> ns.rename("/d/f", "/d/other/f")));
    // nothing moved
    for (String p : List.of("/d/f", "/d/other", "/e/f", "/d/sub/deeper")) {
      assertTrue(ns.exists(p), p);
    }
    // the root as destination: move into it
    assertEquals("/sub", ns.rename("/d/sub", "/"));
    assertTrue(ns.exists("/sub/deeper"));
    assertEquals("/d", ns.rename("/d", "/")); // already there: no-op
  }

  @Test
  void aDeepWideDirectoryMovesInOneTransaction() throws Exception {
    // depth 30, plus 20 subdirectories of 10 files each
    StringBuilder deep = new StringBuilder("/big");
    for (int i = 0; i < 30; i++) {
      deep.append("/level").append(i);
    }
    ns.create(deep + "/leaf", CreateOptions.file());
    for (int d = 0; d < 20; d++) {
      for (int f = 0; f < 10; f++) {
        ns.create("/big/w" + d + "/f" + f, CreateOptions.file());
      }
    }
    ns.mkdirs("/dst/inner");
    // make sure the destination bucket exists, so the rename is exactly one write
    ns.create("/dst/inner/moved", CreateOptions.file());
    ns.delete("/dst/inner/moved", false);
    String dirs = ns.config().root() + "/dirs";
    int znodes = NamespaceTest.countZnodes(client, dirs);
    long bigId = ns.getStatus("/big").id();
    long before = touch();
    assertEquals("/dst/inner/moved", ns.rename("/big", "/dst/inner/moved"));
    long after = touch();
    assertEquals(before + 2, after, "the rename was more than one ZooKeeper transaction");
    assertEquals(znodes, NamespaceTest.countZnodes(client, dirs));
    assertEquals(bigId, ns.getStatus("/dst/inner/moved").id());
    assertTrue(ns.getStatus("/dst/inner/moved" + deep.substring(4) + "/leaf").isFile());
    assertEquals(20 + 1, ns.listAll("/dst/inner/moved").size());
    assertEquals(10, ns.listAll("/dst/inner/moved/w19").size());
    assertFalse(ns.exists("/big"));
    // and back, with a new name
    ns.rename("/dst/inner/moved", "/big2");
    assertTrue(ns.exists("/big2/w0/f9"));
  }

  /** Writes a marker znode and returns the zxid of that write. */
  private static long touch() throws Exception {
    String marker = "/zxid-marker";
    if (client.checkExists().forPath(marker) == null) {
      client.create().forPath(marker);
    }
    Stat stat = client.setData().forPath(marker, new byte[0]);
    return stat.getMzxid();
  }

  @Test
  void renameKeepsAttributesAndChildrenKeyedById() throws Exception {
    ns.mkdirs("/src/kids");
    ns.setXAttr("/src", "user.k", new byte[] {7}, XAttrMode.CREATE);
    ns.setPermission("/src", 0700);
    ns.create("/src/kids/f", CreateOptions.file());
    FileStatus before = ns.getStatus("/src");
    ns.rename("/src", "/renamed");
    FileStatus after = ns.getStatus("/renamed");
    assertEquals(before.id(), after.id());
    assertEquals(0700, after.permission());
    assertEquals(7, ns.getXAttr("/renamed", "user.k")[0]);
    assertTrue(ns.exists("/renamed/kids/f"));
    // a new directory at the old name is empty: children hang off ids, not paths
    ns.mkdirs("/src");
    assertEquals(List.of(), ns.listAll("/src"));
  }

  @Test
  void posixRenameReplacesInOneStep() throws Exception {
    long f = ns.create("/p/f", CreateOptions.file()).id();
    long g = ns.create("/p/g", CreateOptions.file()).id();
    // a file onto a file: the source takes the name, the old destination is gone
    assertEquals("/p/g", ns.renameReplacing("/p/f", "/p/g"));
    assertFalse(ns.exists("/p/f"));
    assertEquals(f, ns.getStatus("/p/g").id());
    assertNotEquals(g, ns.getStatus("/p/g").id());
    // onto a missing name: an exact rename (never "into" anything)
    ns.mkdirs("/q");
    assertEquals("/q/h", ns.renameReplacing("/p/g", "/q/h"));
    // a directory onto an empty directory replaces it; onto itself: nothing
    ns.mkdirs("/r/sub");
    ns.create("/r/sub/x", CreateOptions.file());
    ns.mkdirs("/empty");
    long r = ns.getStatus("/r").id();
    assertEquals("/empty", ns.renameReplacing("/r", "/empty"));
    assertEquals(r, ns.getStatus("/empty").id());
    assertTrue(ns.exists("/empty/sub/x"));
    assertFalse(ns.exists("/r"));
    assertEquals("/empty", ns.renameReplacing("/empty", "/empty"));
    // the wrong kinds, a non-empty directory, the root: refused, nothing changed
    ns.create("/file", CreateOptions.file());
    ns.mkdirs("/full/y");
    assertEquals(NamespaceStatus.IS_A_DIRECTORY, fails(() -> ns.renameReplacing("/file",
        "/empty")));
    assertEquals(NamespaceStatus.NOT_A_DIRECTORY, fails(() -> ns.renameReplacing("/empty",
        "/file")));
    assertEquals(NamespaceStatus.NOT_EMPTY, fails(() -> ns.renameReplacing("/q", "/full")));
    assertEquals(NamespaceStatus.INVALID_RENAME, fails(() -> ns.renameReplacing("/q", "/")));
    assertEquals(NamespaceStatus.INVALID_RENAME, fails(() -> ns.renameReplacing("/empty",
        "/empty/sub/z")));
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.renameReplacing("/nope", "/x")));
    for (String p : List.of("/file", "/empty/sub/x", "/full/y", "/q/h")) {
      assertTrue(ns.exists(p), p);
    }
  }

  @Test
  void posixRenameNeverShowsNeitherName() throws Exception {
    // a reader polling the destination sees the old file or the new one, never nothing
    ns.create("/w/dst", CreateOptions.file());
    // another client on the same namespace (its own session and cache)
    org.apache.curator.framework.CuratorFramework other = newClient();
    Namespace reader = Namespace.open(other, ns.config());
    java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger missing =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger polls =
        new java.util.concurrent.atomic.AtomicInteger();
    Thread t = new Thread(() -> {
      while (!stop.get()) {
        try {
          reader.sync();
          polls.incrementAndGet();
          if (!reader.exists("/w/dst")) {
            missing.incrementAndGet();
          }
        } catch (NamespaceException e) {
          missing.incrementAndGet();
        }
      }
    });
    t.start();
    try {
      for (int i = 0; i < 30; i++) {
        ns.create("/w/src", CreateOptions.file());
        ns.renameReplacing("/w/src", "/w/dst");
      }
    } finally {
      stop.set(true);
      t.join();
      reader.close();
      other.close();
    }
    assertTrue(polls.get() > 30, "the reader polled " + polls.get() + " times");
    assertEquals(0, missing.get());
  }
}

