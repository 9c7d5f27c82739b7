package io.parityfs.meta;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One embedded ZooKeeper and one Curator client per test class; a fresh namespace per test
 * (its configuration formats it on first open).
 */
public abstract class ZkFixture {
  protected static TestingServer server;
  protected static CuratorFramework client;
  private static final AtomicInteger ROOTS = new AtomicInteger();

  @BeforeAll
  public static void startServer() throws Exception {
    server = new TestingServer(true);
    client = newClient();
  }

  @AfterAll
  public static void stopServer() throws Exception {
    client.close();
    server.close();
  }

  protected static CuratorFramework newClient() throws InterruptedException {
    return newClient(30_000);
  }

  protected static CuratorFramework newClient(int sessionTimeoutMs) throws InterruptedException {
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
  protected static Namespace newNamespace() throws NamespaceException {
    return Namespace.open(client, config());
  }

  protected static NamespaceConfig config() {
    return NamespaceConfig.builder().root("/parityfs/ns" + ROOTS.incrementAndGet())
        .ifMissing(NamespaceConfig.IfMissing.FORMAT).build();
  }

  /** The bytes of the entry znode of {@code path}, a child of the root directory. */
  protected static byte[] rawEntry(Namespace ns, String path) throws Exception {
    FileStatus s = ns.getStatus(path);
    ZNodes zn = new ZNodes(ns.config().root());
    // the root directory's entries: find the entry znode by its name
    for (String shard : client.getChildren().forPath(zn.dirs)) {
      for (String dir : client.getChildren().forPath(zn.dirs + "/" + shard)) {
        String c = zn.dirs + "/" + shard + "/" + dir;
        for (String bucket : client.getChildren().forPath(c)) {
          for (String name : client.getChildren().forPath(c + "/" + bucket)) {
            byte[] data = client.getData().forPath(c + "/" + bucket + "/" + name);
            if (InodeCodec.decode(data, path).id() == s.id()) {
              return data;
            }
          }
        }
      }
    }
    throw new AssertionError("no entry for " + path);
  }
}
