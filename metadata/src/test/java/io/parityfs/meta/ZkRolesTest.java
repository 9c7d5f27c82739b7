package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.registry.ZkPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ZooKeeper rights by role (issue 39 item 3): with a cluster and a client identity, the client
 * reads the registry and writes the namespace, and every registry write it attempts is refused;
 * the cluster writes both, znodes the client made included; anonymous sessions get nothing; and
 * zk-acl moves a cluster made with one identity to rights by role.
 */
class ZkRolesTest extends ZkFixture {
  private static final String CLUSTER = "parityfs:cluster-secret";
  private static final String CLIENT = "client:client-secret";
  private static final ZkRoles ROLES = new ZkRoles(ZkRoles.idOf(CLUSTER), ZkRoles.idOf(CLIENT));

  @TempDir
  Path dir;

  private static CuratorFramework start(ZooKeeperSettings s) throws InterruptedException {
    CuratorFramework c = s.newClient();
    c.start();
    assertTrue(c.blockUntilConnected(10, TimeUnit.SECONDS));
    return c;
  }

  private static ZooKeeperSettings as(String chroot, String digest) {
    return ZooKeeperSettings.of(server.getConnectString()).withChroot(chroot).withDigest(digest)
        .withRoles(ROLES);
  }

  private static void refused(KeeperException.Code code, ThrowingCall call) {
    KeeperException e = assertThrows(KeeperException.class, call::run);
    assertEquals(code, e.code(), e.toString());
  }

  private interface ThrowingCall {
    void run() throws Exception;
  }

  /** Every registry znode the code writes, made by the cluster. */
  private static final List<String> REGISTRY_ZNODES = List.of(ZkPaths.node("n1"),
      ZkPaths.target("t1"), ZkPaths.online("n1"), ZkPaths.offline("t1"), ZkPaths.retired("t1"),
      ZkPaths.progress("t1"), ZkPaths.ROOT + "/movers/t1", ZkPaths.ROOT + "/keeper/latch/x",
      ZkPaths.ROOT + "/manager/latch/x");

  @Test
  void aClientReadsTheRegistryAndWritesOnlyTheNamespace() throws Exception {
    try (CuratorFramework cluster = start(as("/roles", CLUSTER));
        CuratorFramework client = start(as("/roles", CLIENT));
        CuratorFramework anonymous = start(ZooKeeperSettings.of(server.getConnectString())
            .withChroot("/roles"))) {
      byte[] rec = "{}".getBytes(StandardCharsets.UTF_8);
      for (String z : REGISTRY_ZNODES) {
        cluster.create().creatingParentsIfNeeded().forPath(z, rec);
        assertArrayEquals(rec, client.getData().forPath(z), z + " readable by clients");
        refused(KeeperException.Code.NOAUTH, () -> client.setData().forPath(z, new byte[1]));
        refused(KeeperException.Code.NOAUTH, () -> client.delete().forPath(z));
        String parent = z.substring(0, z.lastIndexOf('/'));
        refused(KeeperException.Code.NOAUTH, () -> client.create().forPath(parent + "/rogue"));
        refused(KeeperException.Code.NOAUTH, () -> anonymous.getData().forPath(z));
        cluster.setData().forPath(z, rec);
      }
      // the namespace (made by the cluster, as format does: /parityfs is the registry's):
      // the client's own, and the cluster's writes to what the client made
      refused(KeeperException.Code.NOAUTH, () -> client.create().forPath("/parityfs/ns"));
      cluster.create().forPath("/parityfs/ns");
      client.create().creatingParentsIfNeeded().forPath("/parityfs/ns/dirs/f", rec);
      client.setData().forPath("/parityfs/ns/dirs/f", new byte[2]);
      cluster.setData().forPath("/parityfs/ns/dirs/f", new byte[3]);
      cluster.create().forPath("/parityfs/ns/dirs/g", rec);
      client.delete().forPath("/parityfs/ns/dirs/g");
      refused(KeeperException.Code.NOAUTH, () -> anonymous.getData().forPath("/parityfs/ns/dirs/f"));
      // a namespace on them: the cluster formats, a client creates and writes, the cluster
      // reads it
      NamespaceConfig other = NamespaceConfig.DEFAULT.toBuilder().root("/parityfs/ns2").build();
      Namespace.open(cluster, other.toBuilder().ifMissing(NamespaceConfig.IfMissing.FORMAT)
          .build());
      Namespace ns = Namespace.open(client, other);
      ns.mkdirs("/data");
      FileStatus f = ns.create("/data/x", CreateOptions.file());
      ns.complete("/data/x", f.id(), -1, 5);
      assertEquals(5, Namespace.open(cluster, other).getStatus("/data/x").length());
    }
  }

  @Test
  void theRoleLinesOfADigestFileAndTheirChecks() throws Exception {
    Path f = dir.resolve("client.digest");
    Files.writeString(f, CLIENT + "\n" + ROLES.fileLines());
    ZooKeeperSettings s = ZooKeeperSettings.of("h:1").withDigestFile(f);
    assertEquals(CLIENT, s.digest());
    assertEquals(ROLES, s.roles());
    Path plain = dir.resolve("plain.digest");
    Files.writeString(plain, CLUSTER + "\n");
    assertNull(ZooKeeperSettings.of("h:1").withDigestFile(plain).roles(), "one identity");
    // a digest that is neither role's is refused: its znodes would be nobody's
    assertThrows(IllegalArgumentException.class,
        () -> ZooKeeperSettings.of("h:1").withDigest("other:x").withRoles(ROLES));
    Path half = dir.resolve("half.digest");
    Files.writeString(half, CLIENT + "\nrole.client=" + ROLES.client() + "\n");
    assertThrows(java.io.IOException.class, () -> ZkRoles.read(half));
  }

  @Test
  void zkAclMovesAClusterOfOneIdentityToRightsByRole() throws Exception {
    ZooKeeperSettings one = ZooKeeperSettings.of(server.getConnectString()).withChroot("/moved")
        .withDigest(CLUSTER);
    try (CuratorFramework before = start(one)) {
      before.create().creatingParentsIfNeeded().forPath(ZkPaths.node("n1"));
      before.create().creatingParentsIfNeeded().forPath("/parityfs/ns/dirs/f");
    }
    try (CuratorFramework client = start(as("/moved", CLIENT))) {
      refused(KeeperException.Code.NOAUTH, () -> client.getData().forPath("/parityfs/ns/dirs/f"));
    }
    try (CuratorFramework cluster = start(as("/moved", CLUSTER))) {
      ZkAcls.Outcome o = ZkAcls.apply(cluster, as("/moved", CLUSTER), n -> { });
      assertEquals(0, o.refused(), o.toString());
    }
    try (CuratorFramework client = start(as("/moved", CLIENT))) {
      client.setData().forPath("/parityfs/ns/dirs/f", new byte[1]);
      client.getData().forPath(ZkPaths.node("n1"));
      refused(KeeperException.Code.NOAUTH,
          () -> client.setData().forPath(ZkPaths.node("n1"), new byte[1]));
    }
  }
}
