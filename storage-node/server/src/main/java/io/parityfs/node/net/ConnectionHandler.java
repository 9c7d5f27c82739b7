package io.parityfs.node.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.parityfs.node.NodeServices;
import io.parityfs.node.TargetView;
import io.parityfs.node.chunk.ChunkEntry;
import io.parityfs.node.chunk.ChunkInfo;
import io.parityfs.node.chunk.ChunkPage;
import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.AckResponse;
import io.parityfs.node.protocol.AdminResponse;
import io.parityfs.node.protocol.ArrayStatusRequest;
import io.parityfs.node.protocol.ArrayTaskRequest;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.DataFrame;
import io.parityfs.node.protocol.DeleteRequest;
import io.parityfs.node.protocol.DeleteResponse;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.FailDriveRequest;
import io.parityfs.node.protocol.FrameError;
import io.parityfs.node.protocol.ListEntry;
import io.parityfs.node.protocol.ListRequest;
import io.parityfs.node.protocol.ListResponse;
import io.parityfs.node.protocol.NodeInfoRequest;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.PingRequest;
import io.parityfs.node.protocol.ProgressRequest;
import io.parityfs.node.protocol.ReadRequest;
import io.parityfs.node.protocol.RebuildMemberRequest;
import io.parityfs.node.protocol.ReplaceDriveRequest;
import io.parityfs.node.protocol.Request;
import io.parityfs.node.protocol.Response;
import io.parityfs.node.protocol.StatRequest;
import io.parityfs.node.protocol.StatResponse;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.SyncRequest;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The last handler of a node connection: routes requests and DATA frames, keeps the connection's
 * requests in hand, and applies backpressure. Event loop confined, except the methods named
 * {@code ...FromWorker}, {@link #emit} and {@link #consumed}, which worker tasks call and which hop
 * onto the event loop.
 *
 * <ul>
 *   <li><b>Inbound.</b> While the connection has {@code maxRequestsPerConnection} requests or
 *       {@code maxBytesPerConnection} WRITE bytes in hand, auto-read is off; it comes back below
 *       half of both.
 *   <li><b>Outbound.</b> READ streams produce a frame only while the channel is writable (at
 *       most {@link #MAX_READS_PRODUCING} frames of the connection at once), and park otherwise
 *       until {@link #channelWritabilityChanged}. While the channel is not writable, auto-read is
 *       off too: a client that does not read its answers cannot make the node queue more.
 *   <li><b>Sequence errors.</b> DATA for no open WRITE, or a request id already in flight:
 *       PROTOCOL_VIOLATION. After an error answer to a WRITE, its DATA frames are dropped up to
 *       END (the ids of the last 1,024 such streams are kept: a client may stop without END).
 * </ul>
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(ConnectionHandler.class.getName());
  private static final int MAX_DISCARDING = 1024;
  /** READ frames of one connection read ahead at once (so at most this many past high water). */
  static final int MAX_READS_PRODUCING = 4;

  private final NettyNodeServer server;
  private final NodeServices services;
  private final NodeServerConfig config;
  private final FrameTracker tracker;
  private final Map<Long, PendingRequest> inFlight = new HashMap<>();
  private final Map<Long, WriteStream> writes = new HashMap<>();
  private final LinkedHashSet<Long> discarding = new LinkedHashSet<>();
  private final ArrayDeque<ReadStream> parked = new ArrayDeque<>();
  /** READ frames being read by workers or waiting to be written (the event loop writes). */
  private volatile int producing;
  private volatile int readerIdleEvents; // READER_IDLE events, closing or not (the loop writes)
  private final AtomicLong bytes = new AtomicLong();
  private ChannelHandlerContext ctx;
  private volatile boolean paused;
  private boolean closed;

  ConnectionHandler(NettyNodeServer server, NodeServices services, FrameTracker tracker) {
    this.server = server;
    this.services = services;
    this.config = server.config();
    this.tracker = tracker;
  }

  /** Whether the node stopped reading this connection (backpressure); for tests. */
  boolean paused() {
    return paused;
  }

  /** No READ frame being produced and the channel not writable, so none starts; for tests. */
  boolean readsStalled() {
    return producing == 0 && !ctx.channel().isWritable();
  }

  /** How often this connection was idle for {@code idleTimeout}, closed or kept; for tests. */
  int readerIdleEvents() {
    return readerIdleEvents;
  }

  /** WRITE bytes received and not yet handed to the array. */
  long bytesInHand() {
    return bytes.get();
  }

  /** Bytes queued for sending and not yet taken by the socket (0 once closed). */
  long outboundBytes() {
    var b = ctx.channel().unsafe().outboundBuffer();
    return b == null ? 0 : b.totalPendingWriteBytes();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  // ------------------------------------------------------------------ inbound

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closed) {
      ReferenceCountUtil.release(msg);
    } else if (msg instanceof DataFrame d) {
      onData(d);
    } else if (msg instanceof Request r) {
      onRequest(r);
    } else if (msg instanceof FrameError e) {
      onFrameError(e);
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private void onFrameError(FrameError e) {
    server.metrics().observe(e.opcode().name().toLowerCase(Locale.ROOT),
        e.status().name(), 0, 0, 0);
    if (e.fatal()) {
      closed = true;
      LOG.log(System.Logger.Level.INFO, "connection {0}: {1}, closing", ctx.channel().remoteAddress(),
          e.message());
      ctx.writeAndFlush(e.toResponse()).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    if (e.opcode() == Opcode.DATA) {
      WriteStream w = writes.get(e.requestId());
      if (w != null) {
        w.fail(e.status(), e.message()); // a bad DATA frame spoils its whole stream
        return;
      }
      if (discarding.contains(e.requestId())) {
        return;
      }
    }
    if (e.opcode() == Opcode.WRITE) {
      discard(e.requestId());
    }
    ctx.writeAndFlush(e.toResponse());
  }

  private void onData(DataFrame d) {
    long id = d.requestId();
    WriteStream w = writes.get(id);
    int n = d.content().readableBytes();
    if (w == null) {
      if (discarding.contains(id)) {
        if (d.isEnd()) {
          discarding.remove(id);
        }
      } else {
        server.metrics().observe("data", Status.PROTOCOL_VIOLATION.name(), 0, n, 0);
        ctx.writeAndFlush(new ErrorResponse(id, Opcode.DATA, Status.PROTOCOL_VIOLATION,
            "DATA for request " + id + ", which is no open WRITE"));
      }
      d.release();
      return;
    }
    if (d.isEnd()) {
      writes.remove(id);
    }
    if (w.failed()) {
      d.release();
      if (!d.isEnd()) {
        writes.remove(id);
        discard(id);
      }
      return;
    }
    w.received += n;
    long total = w.request.totalLength();
    if (total >= 0 && w.received > total) {
      d.release();
      w.fail(Status.INVALID_ARGUMENT, "WRITE of chunk " + w.request.chunk() + ": more than the "
          + total + " bytes announced");
      return;
    }
    bytes.addAndGet(n);
    server.bytesReceived(n);
    w.enqueue(d);
    maybePause();
  }

  private void onRequest(Request r) {
    long id = r.requestId();
    if (inFlight.containsKey(id) || writes.containsKey(id)) {
      server.metrics().observe(r.opcode().name().toLowerCase(Locale.ROOT),
          Status.PROTOCOL_VIOLATION.name(), 0, 0, 0);
      ctx.writeAndFlush(new ErrorResponse(id, r.opcode(), Status.PROTOCOL_VIOLATION,
          "request id " + id + " is already in flight"));
      return;
    }
    discarding.remove(id);
    Status refused = server.admit(r instanceof WriteRequest);
    if (refused != null) {
      refuse(r, refused, refused == Status.BUSY ? "node overloaded; nothing was done"
          : "node shutting down; nothing was done");
      return;
    }
    PendingRequest p = new PendingRequest(id, r.opcode());
    inFlight.put(id, p);
    maybePause();
    if (r instanceof PingRequest) {
      finish(p, new AckResponse(id, Opcode.PING));
      return;
    }
    try {
      dispatch(r, p);
    } catch (UnknownTarget e) {
      if (r instanceof WriteRequest) {
        discard(id);
      }
      finish(p, new ErrorResponse(id, r.opcode(), Status.UNKNOWN_TARGET, e.getMessage()));
    }
  }

  private void refuse(Request r, Status status, String message) {
    if (r instanceof WriteRequest) {
      discard(r.requestId());
    }
    server.metrics().observe(r.opcode().name().toLowerCase(Locale.ROOT), status.name(), 0, 0, 0);
    ctx.writeAndFlush(new ErrorResponse(r.requestId(), r.opcode(), status, message));
  }

  private void dispatch(Request r, PendingRequest p) {
    long id = r.requestId();
    if (r instanceof WriteRequest w) {
      TargetView t = target(w.target());
      String claim = t.id() + "/" + w.chunk().objectId();
      WriteStream s = new WriteStream(w, p, t.chunks(), this, server, claim);
      writes.put(id, s);
      if (server.claimOrQueue(claim, s)) {
        s.start();
      } else {
        s.waitForClaim(ctx.executor(), config.claimWait()); // behind the chunk's current writer
      }
    } else if (r instanceof ReadRequest rr) {
      TargetView t = target(rr.target());
      scheduleRead(new ReadStream(rr, p, t.chunks(), this, ctx.alloc(), config.readFrameSize()));
    } else if (r instanceof RebuildMemberRequest rb) {
      // its own pool: a rebuild waits for its peers' reads (MemberRebuilder)
      server.rebuilder().submit(rb, target(rb.target()), a -> finishFromWorker(p, a, null));
    } else {
      List<TargetView> targets = targets(r);
      server.worker(() -> {
        Response answer;
        try {
          answer = execute(r, targets);
        } catch (Exception e) {
          answer = new ErrorResponse(id, r.opcode(), WireStatus.of(e), WireStatus.message(e));
        }
        finishFromWorker(p, answer, null);
      });
    }
  }

  /** The targets a non-streaming request names (all for the nil id, where allowed). */
  private List<TargetView> targets(Request r) {
    TargetId t = null;
    if (r instanceof StatRequest s) {
      t = s.target();
    } else if (r instanceof DeleteRequest d) {
      t = d.target();
    } else if (r instanceof ListRequest l) {
      t = l.target();
    } else if (r instanceof SyncRequest s) {
      t = s.target();
    } else if (r instanceof ArrayStatusRequest a) {
      t = a.target();
    } else if (r instanceof ProgressRequest pr) {
      t = pr.target();
    } else if (r instanceof FailDriveRequest f) {
      t = f.target();
    } else if (r instanceof ReplaceDriveRequest rd) {
      t = rd.target();
    } else if (r instanceof ArrayTaskRequest a) {
      t = a.target();
    }
    if (t == null) {
      return List.of();
    }
    return t.isAll() ? List.copyOf(services.targets()) : List.of(target(t));
  }

  private TargetView target(TargetId t) {
    return services.target(t.uuid().toString())
        .orElseThrow(() -> new UnknownTarget("no target " + t + " on this node"));
  }

  /** Runs a non-streaming request (worker thread). */
  private Response execute(Request r, List<TargetView> targets) throws Exception {
    long id = r.requestId();
    AdminOps admin = server.admin();
    if (r instanceof StatRequest s) {
      Optional<ChunkInfo> info = targets.get(0).chunks().stat(s.chunk());
      return info.<Response>map(i -> new StatResponse(id, stat(i))).orElseGet(() ->
          new ErrorResponse(id, Opcode.STAT, Status.NOT_FOUND, "chunk " + s.chunk()
              + " does not exist"));
    } else if (r instanceof DeleteRequest d) {
      return delete(id, targets.get(0), d.chunk(), d.generation());
    } else if (r instanceof ListRequest l) {
      if (!server.startList()) {
        return new ErrorResponse(id, Opcode.LIST, Status.BUSY, "LIST: "
            + server.config().maxListsInProgress() + " listings in progress on this node"
            + " (server.maxListsInProgress) for " + server.config().listWait().toMillis()
            + " ms (server.listWait); nothing was done");
      }
      try {
        return list(l, targets.get(0).chunks());
      } finally {
        server.endList();
      }
    } else if (r instanceof SyncRequest) {
      for (TargetView t : targets) {
        t.chunks().sync();
      }
      return new AckResponse(id, Opcode.SYNC);
    } else if (r instanceof NodeInfoRequest) {
      return new AdminResponse(id, Opcode.NODE_INFO, admin.nodeInfo());
    } else if (r instanceof ArrayStatusRequest) {
      return new AdminResponse(id, Opcode.ARRAY_STATUS, admin.arrayStatus(targets));
    } else if (r instanceof ProgressRequest) {
      return new AdminResponse(id, Opcode.PROGRESS, admin.progress(targets));
    } else if (r instanceof FailDriveRequest f) {
      return new AdminResponse(id, Opcode.FAIL_DRIVE, admin.failDrive(targets.get(0), f.slot(),
          (f.flags() & FailDriveRequest.FORCE) != 0));
    } else if (r instanceof ReplaceDriveRequest rd) {
      return new AdminResponse(id, Opcode.REPLACE_DRIVE, admin.replaceDrive(targets.get(0),
          rd.slot(), rd.path(), (rd.flags() & ReplaceDriveRequest.FORCE) != 0));
    } else if (r instanceof ArrayTaskRequest a) {
      return new AdminResponse(id, a.opcode(), admin.arrayTask(targets.get(0), a.opcode(),
          a.slot()));
    }
    return new ErrorResponse(id, r.opcode(), Status.UNKNOWN_OPCODE, r.opcode() + " is not served");
  }

  /**
   * DELETE. A chunk that a WRITE stream of this node is writing is CONFLICT (the array would make
   * the delete wait for the stream's END on a worker thread, which the stream may itself need).
   */
  private Response delete(long id, TargetView t, ChunkId chunk, long generation)
      throws Exception {
    String claim = t.id() + "/" + chunk.objectId();
    if (generation != DeleteRequest.ANY) {
      // the fence goes up even when the chunk is being written: that stream's commit (of an
      // older generation) is then refused, and the delete may be retried
      t.chunks().raiseFence(chunk.fileId(), generation);
    }
    if (!server.claimChunk(claim)) {
      return new ErrorResponse(id, Opcode.DELETE, Status.CONFLICT, "chunk " + chunk
          + " is being written");
    }
    try {
      return new DeleteResponse(id, t.chunks().delete(chunk, generation));
    } finally {
      server.releaseChunk(claim);
    }
  }

  /** LIST: the cursor is the object id to start from (0: the first), opaque to clients. */
  private static Response list(ListRequest l, ChunkStore chunks) throws Exception {
    OptionalLong file = l.fileId() == ListRequest.ALL_FILES ? OptionalLong.empty()
        : OptionalLong.of(l.fileId());
    ChunkId after = l.cursor() == 0 ? null : ChunkId.ofObjectId(l.cursor() - 1);
    ChunkPage page = chunks.list(file, after, l.limit());
    List<ListEntry> entries = new ArrayList<>(page.chunks().size());
    for (ChunkEntry e : page.chunks()) {
      entries.add(new ListEntry(e.id(), e.info().length(), wireVersion(e.info().version()),
          e.info().createdMillis()));
    }
    long next = page.next().map(c -> c.objectId() == -1L ? ListResponse.END : c.objectId() + 1)
        .orElse(ListResponse.END);
    return new ListResponse(l.requestId(), entries, next);
  }

  /**
   * The wire form of a chunk's state. Wire versions start at 1 (the array's at 0). The version's
   * creation is the last modification; the chunk's first creation is not kept, so both times are
   * the latest version's.
   */
  static ChunkStat stat(ChunkInfo i) {
    return new ChunkStat(i.length(), wireVersion(i.version()), i.createdMillis(),
        i.createdMillis(), i.tagGeneration(), i.tagSequence());
  }

  static long wireVersion(long arrayVersion) {
    return arrayVersion + 1;
  }

  // ------------------------------------------------------------------ answers

  /** Answers {@code p} (event loop): sends {@code r} unless null, then forgets the request. */
  private void finish(PendingRequest p, Response r) {
    if (inFlight.remove(p.id) != p) {
      if (r != null) {
        ReferenceCountUtil.release(r);
      }
      return;
    }
    Status status = r == null ? Status.UNAVAILABLE : r.status();
    if (r != null && !closed) {
      ctx.writeAndFlush(r);
    }
    server.finished(p, status);
    if (ctx.channel().isWritable()) {
      maybeResume();
    } else {
      maybePause(); // a client that does not read its answers: stop reading its requests
    }
  }

  /** A worker's answer to {@code p}; {@code stream}, when the request was a WRITE. */
  void finishFromWorker(PendingRequest p, Response r, WriteStream stream) {
    ctx.executor().execute(() -> {
      if (stream != null && writes.get(p.id) == stream) {
        writes.remove(p.id); // failed before its END: drop the rest of its frames
        discard(p.id);
      }
      finish(p, r);
    });
  }

  /**
   * Lets {@code s} produce its next frame when the channel is writable and fewer than {@link
   * #MAX_READS_PRODUCING} frames of this connection are being read; otherwise parks it (in
   * order) until {@link #channelWritabilityChanged} or another frame is done.
   */
  private void scheduleRead(ReadStream s) {
    parked.add(s);
    runParked();
  }

  private void runParked() {
    while (!closed && producing < MAX_READS_PRODUCING && ctx.channel().isWritable()
        && !parked.isEmpty()) {
      producing++;
      server.worker(parked.poll());
    }
  }

  /** A READ stream's next frame, from a worker. */
  void emit(ReadStream s, ByteBuf data, boolean last, ChunkStat stat, int crc) {
    ctx.executor().execute(() -> {
      producing--;
      if (closed || !ctx.channel().isActive()) {
        data.release();
        finish(s.pending, null);
        return;
      }
      s.pending.bytesOut += data.readableBytes();
      ctx.write(new DataFrame(s.pending.id, true, last, data, stat).withPayloadCrc(crc));
      // A flush may drain the buffer and fire the writability event at once; scheduleRead
      // checks isWritable() itself afterwards, so no stream parks on a writable channel.
      ctx.flush();
      if (last) {
        finish(s.pending, null, Status.OK);
        runParked();
      } else {
        scheduleRead(s);
      }
      maybePause();
    });
  }

  /** A READ stream ended by an error, from a worker. */
  void readFailed(ReadStream s, Response error) {
    ctx.executor().execute(() -> {
      producing--;
      finish(s.pending, error);
      runParked();
    });
  }

  private void finish(PendingRequest p, Response r, Status status) {
    if (inFlight.remove(p.id) == p) {
      server.finished(p, status);
      maybeResume();
    }
  }

  /** WRITE bytes handed to the array (any thread). */
  void consumed(int n) {
    long left = bytes.addAndGet(-n);
    server.bytesConsumed(n);
    if (paused && left <= config.maxBytesPerConnection() / 2) {
      ctx.executor().execute(this::maybeResume);
    }
  }

  private void discard(long id) {
    discarding.add(id);
    if (discarding.size() > MAX_DISCARDING) {
      Iterator<Long> it = discarding.iterator();
      it.next();
      it.remove();
    }
  }

  // ------------------------------------------------------------------ backpressure

  private void maybePause() {
    if (!paused && (inFlight.size() >= config.maxRequestsPerConnection()
        || bytes.get() >= config.maxBytesPerConnection() || !ctx.channel().isWritable())) {
      paused = true;
      ctx.channel().config().setAutoRead(false);
      server.pauses.incrementAndGet();
    }
  }

  private void maybeResume() {
    if (paused && !closed && inFlight.size() <= config.maxRequestsPerConnection() / 2
        && bytes.get() <= config.maxBytesPerConnection() / 2 && ctx.channel().isWritable()) {
      paused = false;
      ctx.channel().config().setAutoRead(true);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    runParked();
    if (ctx.channel().isWritable()) {
      maybeResume();
    } else {
      maybePause();
    }
    ctx.fireChannelWritabilityChanged();
  }

  // ------------------------------------------------------------------ lifecycle

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    boolean readerIdle = evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE;
    readerIdleEvents += readerIdle ? 1 : 0;
    if (readerIdle && !paused && (tracker.midFrame() || !writes.isEmpty())) {
      LOG.log(System.Logger.Level.INFO, "connection {0}: idle for {1} with {2}, closing",
          ctx.channel().remoteAddress(), config.idleTimeout(),
          writes.isEmpty() ? "a partial frame" : writes.size() + " open WRITE(s)");
      server.idleCloses.incrementAndGet();
      ctx.close();
      return;
    }
    ReferenceCountUtil.release(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closed = true;
    for (WriteStream w : writes.values()) {
      w.cancel(); // the writer is aborted: nothing becomes visible
    }
    writes.clear();
    for (ReadStream s; (s = parked.poll()) != null; ) {
      finish(s.pending, null);
    }
    server.connectionClosed(this);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.log(System.Logger.Level.INFO, "connection {0}: {1}, closing",
        ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }

  /** A target id the node does not serve. */
  private static final class UnknownTarget extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnknownTarget(String message) {
      super(message, null, false, false);
    }
  }
}
