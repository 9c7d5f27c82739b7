package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The ZooKeeper server restarts between operations: Curator reconnects, the namespace works. */
class RestartTest extends ZkFixture {
  @Test
  void operationsWorkAcrossAServerRestart() throws Exception {
    Namespace ns = newNamespace();
    FileStatus f = ns.create("/before/f", CreateOptions.file());
    ns.setLength("/before/f", f.id(), 0, 123);
    long session = client.getZookeeperClient().getZooKeeper().getSessionId();
    server.restart();
    // the first calls block in Curator's retry loop until the client reconnects
    assertEquals(123, ns.getStatus("/before/f").length());
    FileStatus g = ns.create("/after/g", CreateOptions.file());
    assertTrue(g.id() > f.id());
    ns.rename("/before", "/after/before");
    assertEquals(2, ns.listAll("/after").size());
    assertEquals(2, ns.setLength("/after/before/f", f.id(), 1, 456).version());
    assertTrue(ns.delete("/after", true));
    assertEquals(0, ns.listAll("/").size());
    // the session survived the restart (it had not expired)
    assertEquals(session, client.getZookeeperClient().getZooKeeper().getSessionId());
  }
}
