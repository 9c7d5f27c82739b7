package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Symbolic links in the namespace: a link is an entry whose target is its content; the
 * namespace never follows one (lstat semantics) and reports a link met on the way to a path,
 * or opened, as UNRESOLVED_LINK naming the link, for the caller to resolve. Links have no chunks,
 * so deleting or replacing one queues nothing; their records are schema 5, refused by older code.
 */
class SymlinkTest extends ZkFixture {
  private Namespace ns;

  @BeforeEach
  void open() throws Exception {
    ns = newNamespace();
    ns.mkdirs("/data/ckpt-1000");
    ns.create("/data/ckpt-1000/shard-0", CreateOptions.file().withLease(false));
  }

  private static NamespaceException fails(NamespaceStatus status, String path,
      org.junit.jupiter.api.function.Executable op) {
    NamespaceException e = assertThrows(NamespaceException.class, op);
    assertEquals(status, e.status(), e.getMessage());
    assertEquals(path, e.path(), e.getMessage());
    return e;
  }

  @Test
  void aLinkIsAnEntryThatShowsItsTargetAndIsNeverFollowed() throws Exception {
    FileStatus l = ns.createSymlink("ckpt-1000", "/data/latest", CreateOptions.file());
    assertTrue(l.isSymlink());
    assertFalse(l.isFile() || l.isDirectory());
    assertEquals("ckpt-1000", l.linkTarget());
    assertEquals(9, l.length()); // the target's bytes, as lstat shows
    assertEquals(0777, l.permission());
    assertEquals(l.linkTarget(), ns.getStatus("/data/latest").linkTarget());
    assertEquals("ckpt-1000", ns.readLink("/data/latest"));
    assertTrue(ns.exists("/data/latest"));
    List<FileStatus> listed = ns.listAll("/data");
    assertEquals(List.of("/data/ckpt-1000", "/data/latest"),
        listed.stream().map(FileStatus::path).toList());
    assertEquals(FileType.SYMLINK, listed.get(1).type());
    assertEquals("ckpt-1000", listed.get(1).linkTarget());
    // another session reads the same link
    try (Namespace other = Namespace.open(client, ns.config())) {
      assertEquals("ckpt-1000", other.readLink("/data/latest"));
    }
    // readLink of what is not a link
    fails(NamespaceStatus.INVALID_PATH, "/data/ckpt-1000", () -> ns.readLink("/data/ckpt-1000"));
    // an absolute target, a dangling one, and a target with spaces and non-ASCII bytes
    assertEquals("/nowhere/at all/é", ns.createSymlink("/nowhere/at all/é", "/dangling",
        CreateOptions.file()).linkTarget());
    assertEquals("/nowhere/at all/é".getBytes(StandardCharsets.UTF_8).length,
        ns.getStatus("/dangling").length());
  }

  @Test
  void aLinkOnTheWayOrOpenedIsUnresolvedForTheCallerToFollow() throws Exception {
    ns.createSymlink("ckpt-1000", "/data/latest", CreateOptions.file());
    // on the way to a path: every kind of operation names the link
    NamespaceException e = fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.getStatus("/data/latest/shard-0"));
    assertTrue(e.getMessage().contains("ckpt-1000"), e.getMessage());
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.exists("/data/latest/shard-0"));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.create("/data/latest/shard-1", CreateOptions.file()));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.create("/data/latest/shard-1", CreateOptions.file().withOverwrite(true)));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.mkdirs("/data/latest/sub"));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.mkdir("/data/latest/sub", CreateOptions.directory()));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.list("/data/latest/x", null, 10));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.rename("/data/ckpt-1000/shard-0", "/data/latest/moved"));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.delete("/data/latest/shard-0", false));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.createSymlink("x", "/data/latest/l2", CreateOptions.file()));
    // the link itself: opened, appended to, overwritten by a create, given a layout
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest", () -> ns.openForRead("/data/latest"));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest", () -> ns.append("/data/latest"));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest",
        () -> ns.create("/data/latest", CreateOptions.file().withOverwrite(true)));
    fails(NamespaceStatus.UNRESOLVED_LINK, "/data/latest", () -> ns.setLayout("/data/latest",
        new Layout(1 << 20, 1, List.of(), "raid6:4+2")));
    // without overwrite a create, a mkdir and a second link find the name taken
    fails(NamespaceStatus.ALREADY_EXISTS, "/data/latest",
        () -> ns.create("/data/latest", CreateOptions.file()));
    fails(NamespaceStatus.ALREADY_EXISTS, "/data/latest",
        () -> ns.mkdir("/data/latest", CreateOptions.directory()));
    fails(NamespaceStatus.ALREADY_EXISTS, "/data/latest", () -> ns.mkdirs("/data/latest"));
    fails(NamespaceStatus.ALREADY_EXISTS, "/data/latest",
        () -> ns.createSymlink("other", "/data/latest", CreateOptions.file()));
    assertEquals("ckpt-1000", ns.readLink("/data/latest"));
  }

  @Test
  void renameMovesAndReplacesTheLinkNotItsTargetAndDeletesQueueNothing() throws Exception {
    DeleteQueue queue = DeleteQueue.open(client, ns.config());
    ns.createSymlink("ckpt-1000", "/data/latest", CreateOptions.file());
    ns.mkdirs("/data/ckpt-2000");
    // the atomic "latest" switch training jobs do: a new link renamed over the old one
    ns.createSymlink("ckpt-2000", "/data/latest.tmp", CreateOptions.file());
    assertEquals("/data/latest", ns.renameReplacing("/data/latest.tmp", "/data/latest"));
    assertEquals("ckpt-2000", ns.readLink("/data/latest"));
    assertNull(ns.statusOrNull("/data/latest.tmp"));
    assertTrue(ns.getStatus("/data/ckpt-1000").isDirectory(), "the old target stays");
    ns.rename("/data/latest", "/data/ckpt-2000");
    assertEquals("ckpt-2000", ns.readLink("/data/ckpt-2000/latest"));
    assertTrue(ns.delete("/data/ckpt-2000/latest", false));
    assertNull(ns.statusOrNull("/data/ckpt-2000/latest"));
    assertTrue(ns.getStatus("/data/ckpt-1000/shard-0").isFile());
    // a recursive delete of a tree with links removes them; only files queue chunk deletes
    ns.createSymlink("../ckpt-1000/shard-0", "/data/ckpt-2000/s0", CreateOptions.file());
    ns.createSymlink("/data", "/data/ckpt-2000/up", CreateOptions.file());
    assertTrue(ns.delete("/data/ckpt-2000", true));
    assertEquals(0, queue.size());
    assertTrue(ns.getStatus("/data/ckpt-1000/shard-0").isFile());
    // a file renamed over a link replaces the link only
    ns.createSymlink("ckpt-1000", "/data/l", CreateOptions.file());
    FileStatus f = ns.create("/data/f", CreateOptions.file().withLease(false));
    ns.renameReplacing("/data/f", "/data/l");
    assertEquals(f.id(), ns.getStatus("/data/l").id());
    assertEquals(0, queue.size());
  }

  @Test
  void targetsAreCheckedAndParentsMadeOnRequest() throws Exception {
    fails(NamespaceStatus.INVALID_PATH, "/l", () -> ns.createSymlink("", "/l",
        CreateOptions.file()));
    fails(NamespaceStatus.INVALID_PATH, "/l", () -> ns.createSymlink("a\0b", "/l",
        CreateOptions.file()));
    fails(NamespaceStatus.INVALID_PATH, "/l", () -> ns.createSymlink("x".repeat(4096), "/l",
        CreateOptions.file()));
    assertEquals(4095, ns.createSymlink("x".repeat(4095), "/l", CreateOptions.file()).length());
    fails(NamespaceStatus.NOT_FOUND, "/a/b",
        () -> ns.createSymlink("t", "/a/b/l", CreateOptions.file().withCreateParents(false)));
    ns.createSymlink("t", "/a/b/l", CreateOptions.file().withCreateParents(true));
    assertTrue(ns.getStatus("/a/b").isDirectory());
    fails(NamespaceStatus.PARENT_NOT_DIRECTORY, "/data/ckpt-1000/shard-0",
        () -> ns.createSymlink("t", "/data/ckpt-1000/shard-0/l", CreateOptions.file()));
    fails(NamespaceStatus.ALREADY_EXISTS, "/", () -> ns.createSymlink("t", "/",
        CreateOptions.file()));
  }

  @Test
  void linksAreCheckedAgainstPermissionsAndOwnedByTheirCreator() throws Exception {
    ns.mkdirs("/home/alice", CreateOptions.directory().withOwner("alice", "staff")
        .withPermission(0755));
    Namespace alice = ns.as(Caller.of("alice", "staff"));
    Namespace bob = ns.as(Caller.of("bob", "staff"));
    FileStatus l = alice.createSymlink("/data", "/home/alice/d", CreateOptions.file());
    assertEquals("alice", l.owner());
    assertEquals(0777, l.permission());
    assertThrows(NamespaceException.class,
        () -> bob.createSymlink("/data", "/home/alice/e", CreateOptions.file()));
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> bob.createSymlink("/data", "/home/alice/e", CreateOptions.file()));
    assertEquals(NamespaceStatus.PERMISSION_DENIED, e.status());
    assertEquals("/data", bob.readLink("/home/alice/d"));
  }

  @Test
  void aLinkRecordIsSchemaFiveAndOlderSchemasStillRead() throws Exception {
    ns.createSymlink("ckpt-1000", "/data/latest", CreateOptions.file());
    String json = new String(rawEntry(ns, "/data/latest"), StandardCharsets.UTF_8);
    assertTrue(json.startsWith("{\"schema\":5,"), json);
    assertTrue(json.contains("\"type\":\"SYMLINK\""), json);
    assertTrue(json.endsWith(",\"target\":\"ckpt-1000\"}"), json);
    // files and directories are written as before, without a target
    String file = new String(rawEntry(ns, "/data/ckpt-1000/shard-0"), StandardCharsets.UTF_8);
    assertTrue(file.startsWith("{\"schema\":2,") && !file.contains("\"target\""), file);
    // a record that claims a target without being a link (or the reverse) is refused
    String bad = file.substring(0, file.length() - 1) + ",\"target\":\"x\"}";
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> InodeCodec.decode(bad.getBytes(StandardCharsets.UTF_8), "/bad"));
    assertEquals(NamespaceStatus.CORRUPT, e.status());
  }
}
