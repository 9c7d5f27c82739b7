package io.parityfs.node.client;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.FrameError;
import io.parityfs.node.protocol.Message;
import io.parityfs.node.protocol.Status;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection to a node and the requests pipelined on it, matched to their answers by request
 * id. The last handler of the client pipeline. Thread safety: {@link #register} and
 * {@link #send} from any thread; frames arrive on the event loop.
 */
final class NodeConnection extends ChannelInboundHandlerAdapter {
  private volatile InetSocketAddress node;
  private final long timeoutNanos;
  private final ConcurrentHashMap<Long, Call> calls = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final Object writability = new Object();
  private volatile Channel channel;
  /** Whether the node has sent anything on this connection (event loop only). */
  private boolean answered;
  private int readPausers; // event loop only

  NodeConnection(long timeoutNanos) {
    this.timeoutNanos = timeoutNanos;
  }

  InetSocketAddress node() {
    return node;
  }

  Channel channel() {
    return channel;
  }

  /** Set when the connection is being closed after a timeout: no new request may use it. */
  private volatile boolean retired;

  int inFlight() {
    return calls.size();
  }

  boolean isUsable() {
    Channel ch = channel;
    return ch != null && ch.isActive() && !retired;
  }

  /** Adds a call; returns its request id. */
  long register(Call call) {
    long id = ids.incrementAndGet();
    calls.put(id, call);
    call.touch();
    if (!isUsable()) {
      forget(id).ifPresent(c -> c.fail(unavailable("connection is closed")));
      return id;
    }
    scheduleTimeout(id, call, timeoutNanos);
    return id;
  }

  /** Sends a frame of call {@code id}; a failed write fails the call and closes the connection. */
  void send(long id, Message m) {
    Channel ch = channel;
    ch.writeAndFlush(m).addListener(f -> {
      if (!f.isSuccess()) {
        forget(id).ifPresent(c -> c.fail(unavailable("write failed: " + f.cause())));
        ch.close();
      }
    });
  }

  /** Removes a call without completing it (its late frames are then dropped). */
  Optional<Call> forget(long id) {
    return Optional.ofNullable(calls.remove(id));
  }

  /** Fails {@code id} and closes the connection: how a client abandons a stream half sent. */
  void abort(long id, NodeException e) {
    forget(id).ifPresent(c -> c.fail(e));
    channel.close();
  }

  /** Blocks the caller until the channel is writable, or the call is over, or the channel closed. */
  void awaitWritable(Call call) throws InterruptedException {
    synchronized (writability) {
      while (!channel.isWritable() && channel.isActive() && !call.isDone()) {
        writability.wait(50);
      }
    }
  }

  void pauseReading() {
    channel.eventLoop().execute(() -> {
      if (readPausers++ == 0) {
        channel.config().setAutoRead(false);
      }
    });
  }

  void resumeReading() {
    channel.eventLoop().execute(() -> {
      if (--readPausers == 0) {
        channel.config().setAutoRead(true);
      }
    });
  }

  private void scheduleTimeout(long id, Call call, long delayNanos) {
    channel.eventLoop().schedule(() -> checkTimeout(id, call), delayNanos, TimeUnit.NANOSECONDS);
  }

  private void checkTimeout(long id, Call call) {
    if (calls.get(id) != call) {
      return;
    }
    long idle = System.nanoTime() - call.lastActivityNanos();
    if (!call.waitingOnNode()) {
      call.touch();
      scheduleTimeout(id, call, timeoutNanos);
    } else if (idle >= timeoutNanos) {
      // Retired before the caller hears of the timeout, so that its next request cannot be
      // handed this connection while it is closing (it would fail UNAVAILABLE, not be retried).
      retired = true;
      forget(id).ifPresent(c -> c.fail(new NodeException(Status.TIMEOUT,
          "no answer from " + node + " in " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms")));
      // The state of the conversation is unknown now: start afresh on another connection.
      channel.close();
    } else {
      scheduleTimeout(id, call, timeoutNanos - idle);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    channel = ctx.channel();
    if (ctx.channel().remoteAddress() instanceof InetSocketAddress remote) {
      node = remote;
    }
    super.channelActive(ctx);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    answered = true;
    if (msg instanceof FrameError e) {
      if (e.fatal()) {
        failAll(unavailable("bad frame from the node: " + e.message()));
        ctx.close();
      } else {
        forget(e.requestId()).ifPresent(c -> c.fail(new NodeException(e.status(), e.message())));
      }
      return;
    }
    if (msg instanceof ErrorResponse e && e.requestId() == 0) {
      // The node condemned the connection (it closes it next).
      failAll(new NodeException(e.status(), "node " + node + ": " + e.message()));
      ctx.close();
      return;
    }
    if (!(msg instanceof Message m)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    Call call = calls.get(m.requestId());
    if (call == null) {
      ReferenceCountUtil.release(m); // a late answer to an abandoned call
      return;
    }
    call.touch();
    if (call.onMessage(m)) {
      calls.remove(m.requestId(), call);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    synchronized (writability) {
      writability.notifyAll();
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    failAll(unavailable(answered ? "connection closed" : closedUnanswered(ctx)));
    synchronized (writability) {
      writability.notifyAll();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    NodeException refused = refusedCertificate(node, cause);
    failAll(refused != null ? refused : unavailable("connection failed: " + cause));
    ctx.close();
  }

  /**
   * The TLS alerts by which a node refuses the client's own certificate (RFC 8446 §6.2): the
   * client cannot fix them by retrying or reading elsewhere, every node refuses the same.
   */
  private static final java.util.List<String> CERTIFICATE_ALERTS = java.util.List.of(
      "certificate_revoked", "certificate_expired", "bad_certificate", "unknown_ca",
      "certificate_unknown", "unsupported_certificate", "certificate_required",
      "access_denied");

  /**
   * PERMISSION_DENIED naming the alert when {@code cause} (or one of its causes) is a TLS alert
   * by which {@code node} refused this client's certificate, e.g. "certificate_revoked" for a
   * certificate in the CA's revocation list; null for any other failure. In TLS 1.3 the node
   * checks the client's certificate after the client considers the handshake done, so the
   * alert arrives on an open connection, not as a handshake failure.
   */
  static NodeException refusedCertificate(Object node, Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException && t.getMessage() != null) {
        String m = t.getMessage().toLowerCase(java.util.Locale.ROOT);
        for (String alert : CERTIFICATE_ALERTS) {
          if (m.contains(alert)) {
            return new NodeException(Status.PERMISSION_DENIED, "node " + node + " refused this"
                + " client's certificate (TLS alert " + alert + ")" + ("certificate_revoked"
                .equals(alert) ? ": it is in the CA's revocation list (parityfs ca revoke):"
                + " issue a new one" : ": check it is this cluster CA's, valid and of role"
                + " client or admin") + " (docs/security.md)", t);
          }
        }
      }
    }
    return null;
  }

  /** Why a connection the node closed before any answer may have been refused. */
  private static String closedUnanswered(ChannelHandlerContext ctx) {
    boolean tls = ctx.pipeline().get(SslHandler.class) != null;
    return "connection closed before any answer: " + (tls
        ? "the node refused this client's certificate, or is past its connection caps"
        + " (server.maxConnections, server.maxConnectionsPerPeer; its log says which)"
        : "a node with TLS on (security.tls) closes plaintext connections: give this client the"
        + " cluster's certificates (fs.pfs.tls.*, parityfs --tls-*); or the node is past its"
        + " connection caps");
  }

  private void failAll(NodeException e) {
    for (Long id : calls.keySet()) {
      forget(id).ifPresent(c -> c.fail(e));
    }
  }

  private NodeException unavailable(String why) {
    return new NodeException(Status.UNAVAILABLE, "node " + node + ": " + why);
  }
}
