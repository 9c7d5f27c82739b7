package io.parityfs.node.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.Request;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.tls.TlsContext;
import io.parityfs.node.tls.TlsRole;
import java.util.Locale;
import java.util.Optional;

/**
 * The authorization step of a TLS connection (docs/security.md), between the frame codec and the
 * {@link ConnectionHandler}. When the handshake ends (the CA, the validity and the revocation
 * list are already checked by it) the peer's role is read from its certificate; a failed
 * handshake, or a certificate with no single role, closes the connection before any request is
 * read. Then every request whose opcode needs more than the peer's role ({@link
 * TlsRole#needed}) is answered PERMISSION_DENIED and goes no further. Refusals are counted
 * ({@code parityfs_node_refused_total}) and logged at most once per peer address a minute.
 * Event loop confined.
 */
final class PeerAuth extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(PeerAuth.class.getName());

  private final NettyNodeServer server;
  private TlsRole role;

  PeerAuth(NettyNodeServer server) {
    this.server = server;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent done) {
      if (!done.isSuccess()) {
        refuse(ctx, "handshake", "TLS handshake failed: " + done.cause());
        ctx.close();
      } else {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        Optional<TlsRole> r = TlsContext.peerRole(ssl.engine().getSession());
        if (r.isEmpty()) {
          refuse(ctx, "no_role", "certificate " + TlsContext.peerName(ssl.engine().getSession())
              + " names no role (" + TlsRole.URI_PREFIX + "client|node|admin)");
          ctx.close();
        } else {
          role = r.get();
        }
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Request r) {
      TlsRole needed = TlsRole.needed(r.opcode());
      if (role == null || !role.covers(needed)) {
        ReferenceCountUtil.release(msg);
        if (role == null) { // no request passes a handshake: closed already, or about to be
          ctx.close();
          return;
        }
        refuse(ctx, "permission", r.opcode() + " from a " + role.label() + " certificate");
        server.metrics().observe(r.opcode().name().toLowerCase(Locale.ROOT),
            Status.PERMISSION_DENIED.name(), 0, 0, 0);
        ctx.writeAndFlush(new ErrorResponse(r.requestId(), r.opcode(), Status.PERMISSION_DENIED,
            r.opcode() + " needs an " + needed.label() + " certificate; this peer's is "
            + role.label()));
        return;
      }
    } else if (role == null) {
      ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    ctx.fireChannelRead(msg);
  }

  private void refuse(ChannelHandlerContext ctx, String reason, String message) {
    server.refuse(ctx, reason, message);
  }
}
