package io.parityfs.node.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.parityfs.node.protocol.FrameDecoder;
import io.parityfs.node.protocol.FrameEncoder;
import io.parityfs.node.protocol.Role;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.tls.TlsContext;
import io.parityfs.node.tls.TlsRole;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLHandshakeException;

/**
 * The connections to one node. A request goes on the least loaded connection; a new connection is
 * opened (one at a time) when every connection has {@code maxInFlightPerConnection} requests and
 * the pool is below {@code maxConnectionsPerNode}. Closed connections leave the pool. Thread safe.
 */
final class ConnectionPool {
  private final InetSocketAddress node;
  private final Bootstrap bootstrap;
  private final NodeClientConfig config;
  private final List<NodeConnection> connections = new ArrayList<>(); // guarded by this
  private CompletableFuture<NodeConnection> connecting; // guarded by this
  private boolean closed; // guarded by this
  private int opened; // guarded by this

  /**
   * @param bootstrap the client's, without a handler (each pool adds its own: a TLS handler
   *     checks the node's certificate against the node's own address)
   * @param tls the client's TLS context, or null for plaintext
   */
  ConnectionPool(InetSocketAddress node, Bootstrap bootstrap, NodeClientConfig config,
      TlsContext tls) {
    this.node = node;
    this.config = config;
    long timeoutNanos = config.requestTimeout().toNanos();
    this.bootstrap = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        if (tls != null) {
          SslHandler ssl = tls.newHandler(ch.alloc(), node.getHostString(), node.getPort());
          ssl.setHandshakeTimeoutMillis(config.connectTimeout().toMillis());
          ch.pipeline().addLast("tls", ssl);
        }
        ch.pipeline().addLast("decoder", new FrameDecoder(Role.CLIENT));
        ch.pipeline().addLast("encoder", FrameEncoder.INSTANCE);
        ch.pipeline().addLast("calls", new NodeConnection(timeoutNanos));
      }
    });
  }

  synchronized CompletableFuture<NodeConnection> acquire() {
    if (closed) {
      return CompletableFuture.failedFuture(
          new NodeException(Status.UNAVAILABLE, "client is closed"));
    }
    connections.removeIf(c -> !c.isUsable());
    NodeConnection best =
        connections.stream().min(Comparator.comparingInt(NodeConnection::inFlight)).orElse(null);
    boolean room = connections.size() < config.maxConnectionsPerNode();
    if (best != null) {
      if (best.inFlight() >= config.maxInFlightPerConnection() && room && connecting == null) {
        connect(); // for the requests to come; this one goes on the busy connection
      }
      return CompletableFuture.completedFuture(best);
    }
    return connecting != null ? connecting : connect();
  }

  /** Connections opened so far (for tests and metrics). */
  synchronized int opened() {
    return opened;
  }

  synchronized int size() {
    connections.removeIf(c -> !c.isUsable());
    return connections.size();
  }

  private CompletableFuture<NodeConnection> connect() {
    CompletableFuture<NodeConnection> future = new CompletableFuture<>();
    connecting = future;
    opened++;
    ChannelFuture tcp = bootstrap.connect(node);
    // with TLS, a connection is usable once the handshake ended and the peer is a node
    tcp.addListener(t -> {
      SslHandler ssl = t.isSuccess() ? tcp.channel().pipeline().get(SslHandler.class) : null;
      if (ssl == null) {
        ready(tcp, tcp, future);
        return;
      }
      ssl.handshakeFuture().addListener(h -> {
        Optional<TlsRole> role = h.isSuccess()
            ? TlsContext.peerRole(ssl.engine().getSession()) : Optional.empty();
        if (h.isSuccess() && role.orElse(null) != TlsRole.NODE) {
          tcp.channel().close();
          ready(tcp, tcp.channel().newFailedFuture(new SSLHandshakeException("the peer's"
              + " certificate (" + TlsContext.peerName(ssl.engine().getSession()) + ") is not"
              + " a node's: its role is " + role.map(TlsRole::label).orElse("none"))), future);
        } else {
          ready(tcp, h, future);
        }
      });
    });
    return future;
  }

  /** Completes {@code future} with the connection of {@code tcp} once {@code f} ended. */
  private void ready(ChannelFuture tcp, Future<?> f,
      CompletableFuture<NodeConnection> future) {
    NodeConnection conn = null;
    synchronized (this) {
      connecting = null;
      if (f.isSuccess()) {
        Channel ch = tcp.channel();
        conn = ch.pipeline().get(NodeConnection.class);
        if (closed) {
          ch.close();
          conn = null;
        } else {
          connections.add(conn);
        }
      }
    }
    if (conn != null) {
      future.complete(conn);
      return;
    }
    if (f != tcp) {
      tcp.channel().close(); // connected, but the handshake or the node's role failed
    }
    NodeException refused = f != tcp ? NodeConnection.refusedCertificate(node, f.cause()) : null;
    future.completeExceptionally(refused != null ? refused : new NodeException(Status.UNAVAILABLE,
        "cannot connect to " + node + ": " + (f.cause() == null ? "client closed"
            : (f != tcp ? "TLS: " : "") + f.cause()), f.cause()));
  }

  void close() {
    List<NodeConnection> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(connections);
      connections.clear();
    }
    for (NodeConnection c : all) {
      c.channel().close().awaitUninterruptibly();
    }
  }
}
