package io.parityfs.node.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.parityfs.node.protocol.Status;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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

  ConnectionPool(InetSocketAddress node, Bootstrap bootstrap, NodeClientConfig config) {
    this.node = node;
    this.bootstrap = bootstrap;
    this.config = config;
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
    ChannelFuture cf = bootstrap.connect(node);
    cf.addListener(f -> {
      NodeConnection conn = null;
      synchronized (this) {
        connecting = null;
        if (f.isSuccess()) {
          Channel ch = cf.channel();
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
      } else {
        future.completeExceptionally(new NodeException(Status.UNAVAILABLE,
            "cannot connect to " + node + ": " + (f.cause() == null ? "client closed" : f.cause()),
            f.cause()));
      }
    });
    return future;
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
