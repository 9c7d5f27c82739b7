package io.parityfs.meta.targets;

import io.parityfs.testkit.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * One embedded ZooKeeper per test class; each test gets a Curator namespace of its own (a
 * cluster's chroot), a clock it moves, and nodes it starts and stops.
 */
abstract class RegistryFixture {
  static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  static TestingServer server;
  static CuratorFramework root;

  String namespace;
  CuratorFramework client;
  final MutableClock clock = new MutableClock(1_767_225_600_000L);
  final List<TestNode> nodes = new ArrayList<>();
  final List<TargetRegistry> registries = new ArrayList<>();

  @BeforeAll
  static void startServer() throws Exception {
    server = new TestingServer(true);
    root = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
        .sessionTimeoutMs(30_000).connectionTimeoutMs(10_000)
        .retryPolicy(new ExponentialBackoffRetry(100, 10)).build();
    root.start();
    if (!root.blockUntilConnected(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no ZooKeeper");
    }
  }

  @AfterAll
  static void stopServer() throws Exception {
    root.close();
    server.close();
  }

  @BeforeEach
  void newCluster() {
    namespace = "cluster" + CLUSTERS.incrementAndGet();
    client = root.usingNamespace(namespace);
  }

  @AfterEach
  void closeAll() {
    registries.forEach(TargetRegistry::close);
    for (TestNode n : nodes) {
      try {
        n.stop();
      } catch (RuntimeException e) {
        // already stopped
      }
    }
  }

  TestNode node(int port) {
    TestNode n = new TestNode(server.getConnectString(), namespace, "10.0.0." + port, 7110);
    nodes.add(n);
    return n;
  }

  TargetRegistry openRegistry() throws Exception {
    TargetRegistry r = TargetRegistry.open(client, TargetRegistryConfig.builder()
        .offlineTimeout(TIMEOUT).clock(clock).build());
    registries.add(r);
    return r;
  }

  static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
    Eventually.until(what, Duration.ofSeconds(10), condition);
  }
}
