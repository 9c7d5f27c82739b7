package io.parityfs.integration;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback for the partition tests: it listens on a loopback address and
 * forwards every connection to a target, through a {@link Mode} that can change at any time
 * and applies to connections open and new. Threads are daemons, two per connection; a test's
 * connections are few.
 *
 * <p>{@link Mode#BLACKHOLE} is the fault that TCP resets never show: connections stay
 * established (new ones are accepted too), bytes sent are taken and dropped silently, nothing
 * comes back, and neither end's close crosses; only a peer's timeout ends it. The one-way modes
 * drop one direction only. {@link Mode#RESET} closes every connection with an RST (SO_LINGER
 * 0) and resets new ones at once.
 */
final class TcpProxy implements AutoCloseable {
  /** What happens to the bytes of a connection. */
  enum Mode {
    /** Forwarded both ways. */
    PASS,
    /** Dropped both ways; connections stay open. */
    BLACKHOLE,
    /** What the connecting side sends is dropped; what the target sends is forwarded. */
    DROP_TO_TARGET,
    /** What the target sends is dropped; what the connecting side sends is forwarded. */
    DROP_FROM_TARGET,
    /** Every connection is reset, now and when it is made. */
    RESET;

    boolean drops(boolean toTarget) {
      return this == BLACKHOLE || (toTarget ? this == DROP_TO_TARGET : this == DROP_FROM_TARGET);
    }
  }

  private final String name;
  private final InetSocketAddress target;
  private final ServerSocket server;
  private final List<Socket> sockets = new ArrayList<>();
  private final AtomicLong dropped = new AtomicLong();
  private volatile Mode mode = Mode.PASS;
  private volatile boolean closed;
  /** Runs after a connection to the target is made, before it is registered (tests). */
  volatile Runnable beforeRegister = () -> {};

  /**
   * Listens on {@code listen} (loopback; port 0: any) and forwards to {@code target}
   * (loopback).
   */
  TcpProxy(String name, InetSocketAddress listen, InetSocketAddress target) throws IOException {
    if (!listen.getAddress().isLoopbackAddress() || !target.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException("loopback only: " + listen + " -> " + target);
    }
    this.name = name;
    this.target = target;
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(listen, 50);
    Thread t = new Thread(this::accept, "proxy " + name);
    t.setDaemon(true);
    t.start();
  }

  /** A proxy on 127.0.0.1, any free port, to {@code target}. */
  static TcpProxy to(String name, InetSocketAddress target) throws IOException {
    return new TcpProxy(name, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        target);
  }

  int port() {
    return server.getLocalPort();
  }

  /** Bytes dropped so far (in any mode that drops). */
  long dropped() {
    return dropped.get();
  }

  /**
   * Switches the mode; RESET resets every open connection now, including one being accepted
   * at this moment (the mode is set under the same lock as a connection is registered, so a
   * connection is either registered before, and reset here, or sees RESET and is reset there).
   */
  void mode(Mode m) {
    System.out.println("[proxy " + name + "] " + mode + " -> " + m);
    List<Socket> open = List.of();
    synchronized (sockets) {
      mode = m;
      if (m == Mode.RESET) {
        open = new ArrayList<>(sockets);
        sockets.clear();
      }
    }
    open.forEach(TcpProxy::reset);
  }

  Mode mode() {
    return mode;
  }

  private void accept() {
    while (!closed) {
      Socket from;
      try {
        from = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (mode == Mode.RESET) {
        reset(from);
        continue;
      }
      Socket to = new Socket();
      try {
        to.connect(target, 5000);
      } catch (IOException e) {
        reset(from); // the target is down: as a refused connection would
        closeQuietly(to);
        continue;
      }
      beforeRegister.run();
      boolean resetNow;
      synchronized (sockets) {
        // RESET set while this connection was being made: mode() did not see it
        resetNow = mode == Mode.RESET;
        if (!resetNow) {
          sockets.add(from);
          sockets.add(to);
        }
      }
      if (resetNow) {
        reset(from);
        reset(to);
        continue;
      }
      pump(from, to, true);
      pump(to, from, false);
    }
  }

  private void pump(Socket in, Socket out, boolean toTarget) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[64 << 10];
      try (InputStream i = in.getInputStream()) {
        OutputStream o = out.getOutputStream();
        int n;
        while ((n = i.read(buf)) >= 0) {
          if (mode.drops(toTarget)) {
            dropped.addAndGet(n);
          } else {
            o.write(buf, 0, n);
            o.flush();
          }
        }
        if (!mode.drops(toTarget)) {
          out.shutdownOutput(); // the close crosses, unless the direction is cut
        }
      } catch (IOException e) {
        if (!mode.drops(toTarget) && mode != Mode.RESET) {
          reset(out); // a reset on one side resets the other
        }
      }
    }, "proxy " + name + (toTarget ? " ->" : " <-"));
    t.setDaemon(true);
    t.start();
  }

  private static void reset(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (IOException e) {
      // closed already
    }
    closeQuietly(s);
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // nothing to do
    }
    List<Socket> open;
    synchronized (sockets) {
      open = new ArrayList<>(sockets);
      sockets.clear();
    }
    open.forEach(TcpProxy::closeQuietly);
  }
}
