package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.testkit.Eventually;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What operations do while ZooKeeper is unreachable: wait (bounded), or fail when lost. */
class ConnectionTest extends ZkFixture {
  CuratorFramework c;

  @AfterEach
  void restore() throws Exception {
    if (c != null) {
      c.close();
    }
    server.restart(); // idempotent enough: a running server restarts
    client.blockUntilConnected(10, TimeUnit.SECONDS);
  }

  private CountDownLatch on(CuratorFramework cf, ConnectionState state) {
    CountDownLatch l = new CountDownLatch(1);
    cf.getConnectionStateListenable().addListener((x, s) -> {
      if (s == state) {
        l.countDown();
      }
    });
    return l;
  }

  /** Whether {@code t} is inside {@link ConnectionGate#await}, waiting for the connection. */
  private static boolean waitsInGate(Thread t) {
    return t.getState() == Thread.State.TIMED_WAITING
        && Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals("await")
            && f.getClassName().equals(ConnectionGate.class.getName()));
  }

  @Test
  void suspendedOperationsWaitForTheConnection() throws Exception {
    c = newClient(30_000);
    Namespace ns = Namespace.open(c, config().toBuilder().suspendedWaitMillis(20_000).build());
    CountDownLatch suspended = on(c, ConnectionState.SUSPENDED);
    server.stop();
    assertTrue(suspended.await(20, TimeUnit.SECONDS));
    CompletableFuture<Boolean> op = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        op.complete(ns.mkdirs("/made/while/down"));
      } catch (NamespaceException | RuntimeException e) {
        op.completeExceptionally(e);
      }
    }, "mkdirs-while-down");
    caller.setDaemon(true);
    caller.start();
    // observed, not assumed from elapsed time: the operation is parked in the connection gate
    Eventually.until("the operation waits in the connection gate", () -> waitsInGate(caller));
    assertFalse(op.isDone(), "the operation waits while suspended");
    server.restart();
    assertTrue(op.get(30, TimeUnit.SECONDS));
    assertTrue(ns.exists("/made/while/down"));
  }

  @Test
  void theWaitIsBounded() throws Exception {
    c = newClient(30_000);
    Namespace ns = Namespace.open(c, config().toBuilder().suspendedWaitMillis(300).build());
    CountDownLatch suspended = on(c, ConnectionState.SUSPENDED);
    server.stop();
    assertTrue(suspended.await(20, TimeUnit.SECONDS));
    long t0 = System.nanoTime();
    NamespaceException e = assertThrows(NamespaceException.class, () -> ns.getStatus("/x"));
    assertEquals(NamespaceStatus.UNAVAILABLE, e.status());
    assertTrue(e.getMessage().contains("suspended for more than 300 ms"), e.getMessage());
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void lostSessionFailsOperationsAndReleasesLeases() throws Exception {
    c = newClient(2_000);
    Namespace ns = Namespace.open(c, config().toBuilder().suspendedWaitMillis(60_000).build());
    FileStatus f = ns.create("/open", CreateOptions.file());
    CountDownLatch lost = on(c, ConnectionState.LOST);
    server.stop();
    assertTrue(lost.await(30, TimeUnit.SECONDS), "Curator declares the session lost");
    NamespaceException e = assertThrows(NamespaceException.class, () -> ns.getStatus("/open"));
    assertEquals(NamespaceStatus.UNAVAILABLE, e.status());
    assertTrue(e.getMessage().contains("session lost"), e.getMessage());
    CountDownLatch back = on(c, ConnectionState.RECONNECTED);
    server.restart();
    assertTrue(back.await(30, TimeUnit.SECONDS));
    // a new session: the old lease is not ours any more
    NamespaceException l = assertThrows(NamespaceException.class,
        () -> ns.complete("/open", f.id(), -1, 1));
    assertEquals(NamespaceStatus.LEASE_EXPIRED, l.status(), l.getMessage());
    assertTrue(ns.recoverLease("/open", file -> 0));
  }
}
