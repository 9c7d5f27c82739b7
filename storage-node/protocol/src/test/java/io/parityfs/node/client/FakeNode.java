package io.parityfs.node.client;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.parityfs.node.protocol.*;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node for client tests: the real codec over loopback, chunks in a map, and knobs for the
 * misbehaviours the client must survive.
 */
final class FakeNode implements Closeable {
  final Map<ChunkId, byte[]> chunks = new ConcurrentHashMap<>();
  final AtomicInteger accepted = new AtomicInteger();
  final AtomicInteger requests = new AtomicInteger();
  final AtomicInteger maxInFlightOnOneConnection = new AtomicInteger();
  final AtomicInteger sawUnwritable = new AtomicInteger();
  /** Connections closed on their first request. */
  final AtomicInteger dropConnections = new AtomicInteger();
  /** READs whose connection is closed after their first DATA frame (not the last). */
  final AtomicInteger cutReadsAfterFirstFrame = new AtomicInteger();
  /** Runs when a READ was cut so (e.g. a write replacing the chunk meanwhile). */
  volatile Runnable onCut = () -> {};
  /** Requests answered BUSY before any is served. */
  final AtomicInteger busyAnswers = new AtomicInteger();
  volatile boolean silent;
  /** Completed when a {@link #silent} node has received a frame and left it unanswered. */
  final CompletableFuture<Void> ignored = new CompletableFuture<>();
  volatile long statDelayMillis;

  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final Channel server;

  FakeNode() throws InterruptedException {
    server = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            accepted.incrementAndGet();
            ch.pipeline().addLast(new FrameDecoder(Role.NODE), FrameEncoder.INSTANCE, new Handler());
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  @Override
  public void close() {
    server.close().awaitUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
  }

  private final class Handler extends ChannelInboundHandlerAdapter {
    private final Map<Long, Object[]> writes = new HashMap<>(); // request, bytes
    private final ArrayDeque<Runnable> blockedStreams = new ArrayDeque<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private boolean first = true;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (first) {
        first = false;
        if (dropConnections.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          ReferenceCountUtil.release(msg);
          ctx.close();
          return;
        }
      }
      if (msg instanceof FrameError e) {
        ctx.writeAndFlush(e.toResponse());
        if (e.fatal()) {
          ctx.close();
        }
        return;
      }
      if (silent) {
        ReferenceCountUtil.release(msg);
        ignored.complete(null);
        return;
      }
      if (msg instanceof DataFrame d) {
        try {
          data(ctx, d);
        } finally {
          d.release();
        }
        return;
      }
      Request r = (Request) msg;
      requests.incrementAndGet();
      if (busyAnswers.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        ctx.writeAndFlush(new ErrorResponse(r.requestId(), r.opcode(), Status.BUSY, "busy"));
        if (r instanceof WriteRequest w) {
          writes.put(w.requestId(), null); // discard its DATA
        }
        return;
      }
      Response answer = answer(ctx, r);
      if (answer == null) {
        return;
      }
      if (r instanceof StatRequest && statDelayMillis > 0) {
        maxInFlightOnOneConnection.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        ctx.executor().schedule(() -> {
          inFlight.decrementAndGet();
          ctx.writeAndFlush(answer);
        }, statDelayMillis, TimeUnit.MILLISECONDS);
      } else {
        ctx.writeAndFlush(answer);
      }
    }

    private Response answer(ChannelHandlerContext ctx, Request r) {
      long id = r.requestId();
      if (r instanceof WriteRequest w) {
        writes.put(id, new Object[] {w, new ByteArrayOutputStream()});
        return null;
      } else if (r instanceof ReadRequest rr) {
        byte[] c = chunks.get(rr.chunk());
        if (c == null) {
          return notFound(r, rr.chunk());
        }
        int from = (int) Math.min(rr.offset(), c.length);
        int to = rr.length() < 0 ? c.length : (int) Math.min(c.length, from + rr.length());
        if (to - from > (64 << 10)
            && cutReadsAfterFirstFrame.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          ctx.writeAndFlush(new DataFrame(id, true, false, Unpooled.copiedBuffer(c, from,
              64 << 10))).addListener(f -> {
                onCut.run();
                ctx.close();
              });
          return null;
        }
        stream(ctx, id, c, from, to);
        return null;
      } else if (r instanceof StatRequest s) {
        byte[] c = chunks.get(s.chunk());
        return c == null ? notFound(r, s.chunk()) : new StatResponse(id, stat(c));
      } else if (r instanceof DeleteRequest d) {
        return new DeleteResponse(id, chunks.remove(d.chunk()) != null);
      } else if (r instanceof ListRequest l) {
        List<ListEntry> all = new ArrayList<>();
        chunks.forEach((k, v) -> {
          if ((l.fileId() < 0 || k.fileId() == l.fileId()) && k.objectId() >= l.cursor()) {
            all.add(new ListEntry(k, v.length, 1, 0));
          }
        });
        all.sort((a, b) -> Long.compare(a.chunk().objectId(), b.chunk().objectId()));
        List<ListEntry> page = all.subList(0, Math.min(l.limit(), all.size()));
        long next = all.size() > l.limit() ? all.get(l.limit()).chunk().objectId() : ListResponse.END;
        return new ListResponse(id, page, next);
      } else if (r instanceof SyncRequest || r instanceof PingRequest) {
        return new AckResponse(id, r.opcode());
      } else if (r instanceof NodeInfoRequest) {
        return new AdminResponse(id, Opcode.NODE_INFO, "{\"nodeId\":\"fake\"}");
      } else if (r instanceof FailDriveRequest f && f.slot() == 99) {
        return new ErrorResponse(id, r.opcode(), Status.ILLEGAL_STATE, "no slot 99");
      }
      return new AdminResponse(id, r.opcode(), "{}");
    }

    private void data(ChannelHandlerContext ctx, DataFrame d) {
      long id = d.requestId();
      if (!writes.containsKey(id)) {
        ctx.writeAndFlush(new ErrorResponse(id, Opcode.DATA, Status.PROTOCOL_VIOLATION, "no WRITE"));
        return;
      }
      Object[] w = writes.get(id);
      if (w == null) { // answered already: discard up to END
        if (d.isEnd()) {
          writes.remove(id);
        }
        return;
      }
      ByteArrayOutputStream bytes = (ByteArrayOutputStream) w[1];
      byte[] b = new byte[d.content().readableBytes()];
      d.content().getBytes(d.content().readerIndex(), b);
      bytes.writeBytes(b);
      if (!d.isEnd()) {
        return;
      }
      writes.remove(id);
      WriteRequest req = (WriteRequest) w[0];
      byte[] old = chunks.get(req.chunk());
      if (req.mode() == WriteMode.CREATE && old != null) {
        ctx.writeAndFlush(new ErrorResponse(id, Opcode.WRITE, Status.ALREADY_EXISTS,
            "chunk " + req.chunk() + " exists"));
        return;
      }
      byte[] data = bytes.toByteArray();
      if (req.mode() == WriteMode.APPEND && old != null) {
        byte[] n = java.util.Arrays.copyOf(old, old.length + data.length);
        System.arraycopy(data, 0, n, old.length, data.length);
        data = n;
      }
      chunks.put(req.chunk(), data);
      ctx.writeAndFlush(new WriteResponse(id, stat(data)));
    }

    private void stream(ChannelHandlerContext ctx, long id, byte[] c, int from, int to) {
      int pos = from;
      while (true) {
        while (ctx.channel().isWritable()) {
          int n = Math.min(256 << 10, to - pos);
          boolean last = pos + n == to;
          ctx.write(new DataFrame(id, true, last, Unpooled.copiedBuffer(c, pos, n)));
          pos += n;
          if (last) {
            ctx.flush();
            return;
          }
        }
        // A flush may drain the buffer and make the channel writable again at once (the
        // writability event then fires inside flush): check again before parking the stream.
        ctx.flush();
        if (!ctx.channel().isWritable()) {
          break;
        }
      }
      sawUnwritable.incrementAndGet();
      int resume = pos;
      blockedStreams.add(() -> stream(ctx, id, c, resume, to));
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      while (ctx.channel().isWritable() && !blockedStreams.isEmpty()) {
        blockedStreams.poll().run();
      }
    }

    private ErrorResponse notFound(Request r, ChunkId c) {
      return new ErrorResponse(r.requestId(), r.opcode(), Status.NOT_FOUND, "chunk " + c);
    }

    private ChunkStat stat(byte[] c) {
      return new ChunkStat(c.length, 1, 1000, 2000);
    }
  }
}
