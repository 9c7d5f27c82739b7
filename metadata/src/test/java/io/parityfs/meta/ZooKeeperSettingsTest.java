package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;

/** Chroot confinement and digest ACLs: a namespace is usable by its digest identity only. */
class ZooKeeperSettingsTest extends ZkFixture {

  private static CuratorFramework start(ZooKeeperSettings s) throws InterruptedException {
    CuratorFramework c = s.newClient();
    c.start();
    assertTrue(c.blockUntilConnected(10, TimeUnit.SECONDS));
    return c;
  }

  private static final NamespaceConfig FORMATTING = NamespaceConfig.DEFAULT.toBuilder()
      .ifMissing(NamespaceConfig.IfMissing.FORMAT).build();

  @Test
  void aNamespaceUnderAChrootStaysInside() throws Exception {
    ZooKeeperSettings s = ZooKeeperSettings.of(server.getConnectString()).withChroot("/tenant-a");
    try (CuratorFramework c = start(s)) {
      Namespace ns = Namespace.open(c, FORMATTING);
      ns.mkdirs("/data");
      assertNotNull(client.checkExists().forPath("/tenant-a/parityfs/ns"));
      // names can't climb out: ".." is refused, never resolved
      assertEquals(NamespaceStatus.INVALID_PATH, assertThrows(NamespaceException.class,
          () -> ns.mkdirs("/data/../../escape")).status());
      assertEquals(null, client.checkExists().forPath("/escape"));
    }
    for (String bad : List.of("tenant", "/a/", "/a/../b", "/a/.", "//a")) {
      assertThrows(IllegalArgumentException.class,
          () -> ZooKeeperSettings.of("h:1").withChroot(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> ZooKeeperSettings.of("h:1/chroot"));
    assertThrows(IllegalArgumentException.class,
        () -> ZooKeeperSettings.of("h:1").withDigest("nouser"));
  }

  @Test
  void zkAclsCloseANamespaceMadeOpen() throws Exception {
    ZooKeeperSettings base = ZooKeeperSettings.of(server.getConnectString())
        .withChroot("/late");
    ZooKeeperSettings owner = base.withDigest("pfs:s3cret");
    try (CuratorFramework open = start(base)) {
      Namespace ns = Namespace.open(open, FORMATTING);
      ns.mkdirs("/a/b");
      FileStatus f = ns.create("/a/b/f", CreateOptions.file());
      ns.complete("/a/b/f", f.id(), -1, 7);
      assertThrows(IllegalArgumentException.class, () -> ZkAcls.apply(open, base, n -> { }));
    }
    try (CuratorFramework c = start(owner); CuratorFramework stranger = start(base);
        CuratorFramework wrong = start(base.withDigest("pfs:guess"))) {
      ZkAcls.Outcome o = ZkAcls.apply(c, owner, n -> { });
      assertEquals(o.znodes(), o.set());
      assertEquals(0, o.refused());
      assertTrue(o.znodes() > 10, o.toString());
      assertEquals("digest", c.getACL().forPath("/parityfs/ns/root").get(0).getId()
          .getScheme());
      assertEquals("digest", c.usingNamespace(null).getACL().forPath("/late").get(0).getId()
          .getScheme(),
          "the chroot's own znode too");
      NamespaceException e = assertThrows(NamespaceException.class,
          () -> Namespace.open(stranger, NamespaceConfig.DEFAULT).getStatus("/a/b/f"));
      assertEquals(NamespaceStatus.PERMISSION_DENIED, e.status());
      assertThrows(KeeperException.NoAuthException.class,
          () -> stranger.create().forPath("/parityfs/intruder"));
      Namespace mine = Namespace.open(c, NamespaceConfig.DEFAULT);
      assertEquals(7, mine.getStatus("/a/b/f").length());
      mine.mkdirs("/a/after");
      assertEquals(o.znodes() + 0, ZkAcls.apply(c, owner, n -> { }).set() - countNew(c, o),
          "idempotent: the same znodes again, plus the new directory's");
      ZkAcls.Outcome refused = ZkAcls.apply(wrong, base.withDigest("pfs:guess"), n -> { });
      assertEquals(2, refused.refused(), "another identity: the chroot and the top znode");
      assertEquals("/late", refused.firstRefused());
    }
  }

  /** The znodes made since {@code before}: the second pass visits them too. */
  private static long countNew(CuratorFramework c, ZkAcls.Outcome before) throws Exception {
    return count(c, "/parityfs") - before.znodes();
  }

  private static long count(CuratorFramework c, String path) throws Exception {
    long n = 1;
    for (String child : c.getChildren().forPath(path)) {
      n += count(c, path + "/" + child);
    }
    return n;
  }

  @Test
  void digestAclsKeepOtherIdentitiesOut() throws Exception {
    ZooKeeperSettings base = ZooKeeperSettings.of(server.getConnectString())
        .withChroot("/secure");
    try (CuratorFramework owner = start(base.withDigest("pfs:s3cret"));
        CuratorFramework stranger = start(base);
        CuratorFramework wrong = start(base.withDigest("pfs:guess"))) {
      Namespace ns = Namespace.open(owner, FORMATTING);
      FileStatus f = ns.create("/f", CreateOptions.file());
      ns.complete("/f", f.id(), -1, 10);
      assertEquals(10, ns.getStatus("/f").length());
      // every znode the namespace made (multi ops included) carries the creator-only ACL
      List<ACL> acl = owner.getACL().forPath("/parityfs/ns/root");
      assertEquals(ZooDefs.Perms.ALL, acl.get(0).getPerms());
      assertEquals("digest", acl.get(0).getId().getScheme());
      String entry = new ZNodes("/parityfs/ns").entry(ZNodes.ROOT_ID, 64, "f");
      assertEquals("digest", owner.getACL().forPath(entry).get(0).getId().getScheme());
      for (CuratorFramework other : List.of(stranger, wrong)) {
        assertThrows(KeeperException.NoAuthException.class,
            () -> other.getData().forPath(entry));
        NamespaceException e = assertThrows(NamespaceException.class,
            () -> Namespace.open(other, NamespaceConfig.DEFAULT).getStatus("/f"));
        assertEquals(NamespaceStatus.PERMISSION_DENIED, e.status());
        assertTrue(e.getMessage().contains("NOAUTH"), e.getMessage());
      }
      assertFalse(base.withDigest("pfs:s3cret").toString().contains("s3cret"));
    }
  }
}
