package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Mode bits, owners, groups, the superuser, umask and the sticky bit, HDFS's way. */
class PermissionTest extends ZkFixture {
  Namespace admin;
  Namespace alice;
  Namespace bob;
  Namespace carol;

  @BeforeEach
  void open() throws Exception {
    admin = newNamespace();
    alice = admin.as(Caller.of("alice", "staff"));
    bob = admin.as(Caller.of("bob", "staff"));
    carol = admin.as(Caller.of("carol", "other"));
    admin.mkdirs("/home", CreateOptions.directory().withPermission(0755));
    admin.mkdirs("/home/alice");
    admin.setOwner("/home/alice", "alice", "staff");
    admin.mkdirs("/tmp");
    admin.setPermission("/tmp", 01777);
  }

  static void denied(Executable op) {
    NamespaceException e = assertThrows(NamespaceException.class, op);
    assertEquals(NamespaceStatus.PERMISSION_DENIED, e.status(), e.getMessage());
  }

  @Test
  void rootBelongsToTheSuperuserAndOnlyItCreatesThere() throws Exception {
    FileStatus root = admin.getStatus("/");
    assertEquals("root", root.owner());
    assertEquals("supergroup", root.group());
    assertEquals(0755, root.permission());
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> alice.create("/x", CreateOptions.file()));
    assertEquals(NamespaceStatus.PERMISSION_DENIED, e.status());
    assertTrue(e.getMessage().contains("user=alice, access=WRITE_EXECUTE, inode=\"/\":root:"
        + "supergroup:drwxr-xr-x"), e.getMessage());
    denied(() -> alice.mkdirs("/y"));
    assertFalse(admin.exists("/x"));
  }

  @Test
  void createGetsTheCallerTheParentsGroupAndTheUmask() throws Exception {
    FileStatus f = alice.create("/home/alice/f", CreateOptions.file().withPermission(0666));
    assertEquals("alice", f.owner());
    assertEquals("staff", f.group());
    assertEquals(0644, f.permission()); // 0666 & ~022
    Namespace strict = admin.as(Caller.of("alice", "staff").withUmask(077));
    assertEquals(0600, strict.create("/home/alice/g", CreateOptions.file().withPermission(0666))
        .permission());
    // missing parents are made u+wx whatever the mode asked for
    alice.mkdirs("/home/alice/a/b", CreateOptions.directory().withPermission(0500));
    assertEquals(0700, alice.getStatus("/home/alice/a").permission());
    assertEquals(0500, alice.getStatus("/home/alice/a/b").permission());
    // another owner, or a group alice is not in, needs a superuser
    denied(() -> alice.create("/home/alice/h", CreateOptions.file().withOwner("bob", null)));
    denied(() -> alice.create("/home/alice/h", CreateOptions.file().withOwner(null, "wheel")));
    assertEquals("bob", admin.create("/home/alice/h", CreateOptions.file()
        .withOwner("bob", "wheel")).owner());
  }

  @Test
  void readWriteAndTraverseBits() throws Exception {
    alice.create("/home/alice/private", CreateOptions.file().withPermission(0600));
    alice.create("/home/alice/shared", CreateOptions.file());
    alice.setPermission("/home/alice/shared", 0664);
    // group staff may read and write shared, others may read it; private is alice's only
    assertEquals("alice", bob.openForRead("/home/alice/shared").owner());
    denied(() -> bob.openForRead("/home/alice/private"));
    assertEquals(0600, bob.getStatus("/home/alice/private").permission()); // stat needs only x
    bob.setTimes("/home/alice/shared", 5, 5);
    denied(() -> carol.setTimes("/home/alice/shared", 5, 5));
    // without x on the directory nothing below is reachable, not even for NOT_FOUND
    alice.setPermission("/home/alice", 0700);
    denied(() -> bob.getStatus("/home/alice/shared"));
    denied(() -> bob.getStatus("/home/alice/missing"));
    denied(() -> bob.exists("/home/alice/shared"));
    denied(() -> bob.list("/home/alice", null, 10));
    // listing needs r and x on the directory
    alice.setPermission("/home/alice", 0711);
    assertEquals(0664, bob.getStatus("/home/alice/shared").permission());
    denied(() -> bob.list("/home/alice", null, 10));
    alice.setPermission("/home/alice", 0755);
    assertEquals(2, bob.listAll("/home/alice").size());
  }

  @Test
  void deleteAndRenameNeedWriteOnTheParents() throws Exception {
    alice.create("/home/alice/f", CreateOptions.file());
    denied(() -> bob.delete("/home/alice/f", false));
    denied(() -> bob.rename("/home/alice/f", "/tmp/f"));
    admin.mkdirs("/home/bob");
    admin.setOwner("/home/bob", "bob", "staff");
    denied(() -> alice.rename("/home/alice/f", "/home/bob/f")); // no w on the destination
    assertEquals("/tmp/f", alice.rename("/home/alice/f", "/tmp/f"));
    assertTrue(alice.delete("/tmp/f", false));
    // a recursive delete needs rwx on the directory itself too
    alice.mkdirs("/home/alice/d/e");
    alice.setPermission("/home/alice/d", 0555);
    denied(() -> alice.delete("/home/alice/d", true));
    alice.setPermission("/home/alice/d", 0755);
    assertTrue(alice.delete("/home/alice/d", true));
  }

  @Test
  void stickyBitKeepsOthersFromRemovingOrRenaming() throws Exception {
    alice.create("/tmp/a", CreateOptions.file().withPermission(0666));
    assertEquals(0644, alice.getStatus("/tmp/a").permission());
    alice.setPermission("/tmp/a", 0666);
    denied(() -> bob.delete("/tmp/a", false));
    denied(() -> bob.rename("/tmp/a", "/tmp/b"));
    bob.setTimes("/tmp/a", 7, 7); // writing the file itself is the mode's business
    assertEquals("/tmp/b", alice.rename("/tmp/a", "/tmp/b"));
    assertTrue(admin.delete("/tmp/b", false));
    assertEquals("drwxrwxrwt", "d" + AccessChecker.modeString(01777));
    assertEquals("-rw-r--r-T", "-" + AccessChecker.modeString(01644));
  }

  @Test
  void modeOwnerAndGroupChanges() throws Exception {
    alice.create("/home/alice/f", CreateOptions.file());
    denied(() -> bob.setPermission("/home/alice/f", 0777));
    assertEquals(0600, alice.setPermission("/home/alice/f", 0600).permission());
    denied(() -> alice.setOwner("/home/alice/f", "bob", null)); // giving away needs a superuser
    denied(() -> alice.setOwner("/home/alice/f", null, "other")); // not her group
    denied(() -> bob.setOwner("/home/alice/f", null, "staff")); // not his file
    Namespace multi = admin.as(Caller.of("alice", "staff", "other"));
    assertEquals("other", multi.setOwner("/home/alice/f", null, "other").group());
    assertEquals("bob", admin.setOwner("/home/alice/f", "bob", "staff").owner());
    // a member of the superuser group is a superuser
    Namespace ops = admin.as(Caller.of("ops", "supergroup"));
    assertEquals("carol", ops.setOwner("/home/alice/f", "carol", null).owner());
  }

  @Test
  void xattrNamespaces() throws Exception {
    alice.create("/home/alice/f", CreateOptions.file());
    alice.setXAttr("/home/alice/f", "user.tag", new byte[] {1}, XAttrMode.UPSERT);
    denied(() -> bob.setXAttr("/home/alice/f", "user.tag", new byte[] {2}, XAttrMode.UPSERT));
    denied(() -> alice.setXAttr("/home/alice/f", "trusted.x", new byte[] {1}, XAttrMode.UPSERT));
    admin.setXAttr("/home/alice/f", "trusted.x", new byte[] {3}, XAttrMode.UPSERT);
    // a user sees user. attributes only; the superuser sees all
    assertEquals(Map.of("user.tag", 1), sizes(bob.getXAttrs("/home/alice/f")));
    assertEquals(2, admin.getXAttrs("/home/alice/f").size());
    assertArrayEquals(new byte[] {3}, admin.getXAttr("/home/alice/f", "trusted.x"));
    alice.setPermission("/home/alice/f", 0600);
    denied(() -> bob.getXAttrs("/home/alice/f"));
  }

  @Test
  void checksOffStoreButDoNotEnforce() throws Exception {
    Namespace open = Namespace.open(client, config().toBuilder().permissions(false).build());
    Namespace eve = open.as(Caller.of("eve"));
    FileStatus f = eve.create("/anywhere", CreateOptions.file().withPermission(0600));
    assertEquals("eve", f.owner());
    Namespace mallory = open.as(Caller.of("mallory"));
    assertTrue(mallory.delete("/anywhere", false));
    assertEquals("x", mallory.setOwner("/", "x", null).owner());
  }

  private static Map<String, Integer> sizes(Map<String, byte[]> m) {
    Map<String, Integer> out = new java.util.TreeMap<>();
    m.forEach((k, v) -> out.put(k, v.length));
    return out;
  }
}
