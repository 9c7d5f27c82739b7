package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The proxy's modes, against a server on loopback that records what arrives: dropped bytes are
 * dropped (not delayed: what passes after a mode change arrives first), one-way modes cut one
 * direction, and RESET resets.
 */
@Timeout(30)
class TcpProxyTest {
  private ServerSocket server;
  private TcpProxy proxy;
  private Socket accepted;
  private final BlockingQueue<Integer> received = new ArrayBlockingQueue<>(1024);

  @BeforeEach
  void start() throws IOException {
    server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    proxy = TcpProxy.to("test", new InetSocketAddress(InetAddress.getLoopbackAddress(),
        server.getLocalPort()));
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    server.close();
  }

  private Socket connect() throws Exception {
    Socket c = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    c.setSoTimeout(10_000); // a read that the proxy never answers fails instead of hanging
    accepted = server.accept();
    Thread t = new Thread(() -> {
      try (InputStream in = accepted.getInputStream()) {
        int b;
        while ((b = in.read()) >= 0) {
          received.add(b);
        }
      } catch (IOException e) {
        // reset
      }
    });
    t.setDaemon(true);
    t.start();
    return c;
  }

  private void awaitDropped(long n) throws InterruptedException {
    while (proxy.dropped() < n) {
      Thread.sleep(10);
    }
  }

  @Test
  void passForwardsBothWays() throws Exception {
    try (Socket c = connect()) {
      c.getOutputStream().write('a');
      assertEquals('a', received.poll(10, TimeUnit.SECONDS));
      accepted.getOutputStream().write('b');
      assertEquals('b', c.getInputStream().read());
    }
  }

  @Test
  void blackholeDropsBothWaysAndKeepsTheConnection() throws Exception {
    try (Socket c = connect()) {
      proxy.mode(TcpProxy.Mode.BLACKHOLE);
      c.getOutputStream().write('x');
      awaitDropped(1);
      accepted.getOutputStream().write('y');
      awaitDropped(2);
      proxy.mode(TcpProxy.Mode.PASS);
      c.getOutputStream().write('a');
      assertEquals('a', received.poll(10, TimeUnit.SECONDS), "x was dropped, not delayed");
      accepted.getOutputStream().write('b');
      assertEquals('b', c.getInputStream().read(), "y was dropped, not delayed");
    }
  }

  @Test
  void oneWayModesCutOneDirection() throws Exception {
    try (Socket c = connect()) {
      proxy.mode(TcpProxy.Mode.DROP_FROM_TARGET);
      c.getOutputStream().write('a');
      assertEquals('a', received.poll(10, TimeUnit.SECONDS));
      accepted.getOutputStream().write('y');
      awaitDropped(1);
      proxy.mode(TcpProxy.Mode.DROP_TO_TARGET);
      c.getOutputStream().write('x');
      awaitDropped(2);
      accepted.getOutputStream().write('b');
      assertEquals('b', c.getInputStream().read());
      proxy.mode(TcpProxy.Mode.PASS);
      c.getOutputStream().write('c');
      assertEquals('c', received.poll(10, TimeUnit.SECONDS), "x was dropped");
    }
  }

  /**
   * RESET set while a connection is being made, after the target accepted it but before the
   * proxy registered it: before, mode() reset the registered ones only and this connection was
   * then pumped as if nothing happened (a repeat run hung here for good).
   */
  @Test
  void resetWhileAConnectionIsBeingMadeResetsItToo() throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    CountDownLatch resetSet = new CountDownLatch(1);
    proxy.beforeRegister = () -> {
      connected.countDown();
      try {
        resetSet.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    try (Socket c = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      c.setSoTimeout(10_000);
      try (Socket a = server.accept()) {
        assertTrue(connected.await(10, TimeUnit.SECONDS));
        proxy.mode(TcpProxy.Mode.RESET);
        resetSet.countDown();
        boolean reset;
        try {
          reset = c.getInputStream().read() < 0;
        } catch (SocketException e) {
          reset = true;
        }
        assertTrue(reset);
      }
    }
  }

  @Test
  void resetResetsOpenAndNewConnections() throws Exception {
    try (Socket c = connect()) {
      proxy.mode(TcpProxy.Mode.RESET);
      boolean reset;
      try {
        reset = c.getInputStream().read() < 0;
      } catch (SocketException e) {
        reset = true;
      }
      assertTrue(reset);
    }
    try (Socket c = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      c.setSoTimeout(10_000);
      boolean reset;
      try {
        reset = c.getInputStream().read() < 0;
      } catch (SocketException e) {
        reset = true;
      }
      assertTrue(reset, "a new connection is reset too");
    }
  }
}
