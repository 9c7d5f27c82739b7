package io.parityfs.meta;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One embedded ZooKeeper and one Curator client per test class; a fresh namespace per test. */
abstract class ZkFixture {
  static TestingServer server;
  static CuratorFramework client;
  private static final AtomicInteger ROOTS = new AtomicInteger();

  @BeforeAll
  static void startServer() throws Exception {
    server = new TestingServer(true);
    client = newClient();
  }

  @AfterAll
  static void stopServer() throws Exception {
    client.close();
    server.close();
  }

  static CuratorFramework newClient() throws InterruptedException {
    return newClient(30_000);
  }

  static CuratorFramework newClient(int sessionTimeoutMs) throws InterruptedException {
    CuratorFramework c = CuratorFrameworkFactory.builder()
        .connectString(server.getConnectString())
        .sessionTimeoutMs(sessionTimeoutMs)
        .connectionTimeoutMs(10_000)
        .retryPolicy(new ExponentialBackoffRetry(100, 10))
        .build();
    c.start();
    if (!c.blockUntilConnected(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no ZooKeeper");
    }
    return c;
  }

  /** A namespace under a root of its own, so tests of one class do not see each other. */
  static Namespace newNamespace() throws NamespaceException {
    return Namespace.open(client, config());
  }

  static NamespaceConfig config() {
    return NamespaceConfig.builder().root("/parityfs/ns" + ROOTS.incrementAndGet()).build();
  }
}
