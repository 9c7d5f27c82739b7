package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.registry.ZkPaths;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Opening a root that holds no namespace: refused by default, formatted only on purpose. */
class MissingNamespaceTest extends ZkFixture {
  @AfterEach
  void removeTargets() throws Exception {
    if (client.checkExists().forPath(ZkPaths.TARGETS) != null) {
      client.delete().deletingChildrenIfNeeded().forPath(ZkPaths.TARGETS);
    }
  }

  private static NamespaceConfig clientConfig() {
    return config().toBuilder().ifMissing(NamespaceConfig.IfMissing.FAIL).build();
  }

  @Test
  void aClientDoesNotFormatAMissingNamespaceAndSaysWhereItLookedAndWhatToDo() throws Exception {
    assertEquals(NamespaceConfig.IfMissing.FAIL, NamespaceConfig.DEFAULT.ifMissing());
    NamespaceConfig config = clientConfig();
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> Namespace.open(client, config));
    assertEquals(NamespaceStatus.NOT_FOUND, e.status());
    String m = e.getMessage();
    assertTrue(m.contains("ZooKeeper " + server.getConnectString()), m);
    assertTrue(m.contains("chroot none"), m);
    assertTrue(m.contains("root " + config.root()), m);
    assertTrue(m.contains("parityfs format"), m);
    assertNull(client.checkExists().forPath(config.root()), "nothing was created");

    // a mistyped chroot: named, and nothing is created under it either
    CuratorFramework typo = client.usingNamespace("prdo");
    m = assertThrows(NamespaceException.class, () -> Namespace.open(typo, config)).getMessage();
    assertTrue(m.contains("chroot /prdo"), m);
    // (Curator itself makes the chroot znode /prdo on first use, empty)
    assertNull(client.checkExists().forPath("/prdo" + config.root()));
  }

  @Test
  void formatCreatesItOnceAndClientsOpenItAfterwards() throws Exception {
    NamespaceConfig config = clientConfig();
    assertTrue(Namespace.format(client, config));
    assertFalse(Namespace.format(client, config), "already there: left as it is");
    try (Namespace ns = Namespace.open(client, config)) {
      assertTrue(ns.getStatus("/").isDirectory());
    }
  }

  @Test
  void formatOverStorageThatHoldsDataStartsTheCounterPastItsIds() throws Exception {
    NamespaceConfig config = clientConfig();
    IdRollbackTest.advertise("t1", 5000); // ZooKeeper lost; the nodes kept their chunks
    assertTrue(Namespace.format(client, config));
    try (Namespace ns = Namespace.open(client, config)) {
      assertTrue(ns.create("/f", CreateOptions.file()).id() > 5000);
    }
  }

  @Test
  void formatIfNoDataFormatsANewClusterButNotOneWhoseTargetsHoldChunks() throws Exception {
    NamespaceConfig fresh = config().toBuilder()
        .ifMissing(NamespaceConfig.IfMissing.FORMAT_IF_NO_DATA).build();
    IdRollbackTest.advertise("empty", 0); // a new node: registered, holding nothing
    Namespace.open(client, fresh).close();
    assertTrue(client.checkExists().forPath(fresh.root()) != null);

    NamespaceConfig lost = config().toBuilder()
        .ifMissing(NamespaceConfig.IfMissing.FORMAT_IF_NO_DATA).build();
    IdRollbackTest.advertise("t1", 77);
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> Namespace.open(client, lost));
    assertEquals(NamespaceStatus.NOT_FOUND, e.status());
    assertTrue(e.getMessage().contains("target t1 holds chunks of file ids up to 77"),
        e.getMessage());
    assertNull(client.checkExists().forPath(lost.root()));
  }
}
