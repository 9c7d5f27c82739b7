package io.parityfs.node.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.parityfs.node.NodeServer;
import io.parityfs.node.NodeServices;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.metrics.NodeMetrics;
import io.parityfs.node.protocol.FrameDecoder;
import io.parityfs.node.protocol.FrameEncoder;
import io.parityfs.node.protocol.Role;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.tls.TlsContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The storage node's wire protocol server (docs/protocol.md) on Netty: epoll when available, NIO
 * otherwise. Each connection's pipeline is
 *
 * <pre>
 * IdleStateHandler → [SslHandler] → FrameTracker → FrameDecoder(NODE) → FrameEncoder →
 *     [PeerAuth] → ConnectionHandler
 *     (the decoder hands DATA requests' CRC checks on to the chunk writer: WriteStream)
 * </pre>
 *
 * <p><b>TLS</b> (docs/security.md), when {@code tls} is on: TLS 1.3 with a client certificate of
 * the cluster CA required; the handshake must end within {@link #HANDSHAKE_MILLIS}, and {@link
 * PeerAuth} reads the peer's role and refuses the opcodes it does not cover. The TLS files are
 * read again when they change (rotation without a restart: new connections take them). Off, the
 * node warns at start: every peer may do everything.
 *
 * <p><b>Threading.</b> Event loops ({@code ioThreads}) decode, route and encode and never block.
 * Every call into the array runs on the node's worker pool ({@code workerThreads} threads; its
 * queue holds at most one task per request in hand, so it is bounded by {@code
 * maxRequestsPerNode}). A WRITE's DATA frames reach its chunk writer in order, one task at a time;
 * requests are otherwise answered in whatever order they finish, as the protocol allows.
 *
 * <p><b>Load.</b> Per connection: auto-read off at {@code maxRequestsPerConnection} requests or
 * {@code maxBytesPerConnection} WRITE bytes in hand, on again below half. Per node: a request
 * beyond {@code maxRequestsPerNode}, or a WRITE while {@code maxBytesPerNode} are in hand, is
 * answered BUSY before it has any effect. Two WRITEs (or a WRITE and a DELETE) of one chunk at
 * once: the second is CONFLICT.
 *
 * <p><b>Lifecycle</b> LATENT → STARTED → DRAINING → CLOSED. {@link #close()}: stop accepting;
 * new requests are answered SHUTTING_DOWN; wait up to {@code drainTimeout} for the requests in
 * hand; close the connections (open chunk writers are aborted: nothing becomes visible); wait for
 * the worker pool to finish; stop the event loops.
 */
public final class NettyNodeServer implements NodeServer {
  private static final System.Logger LOG = System.getLogger(NettyNodeServer.class.getName());

  private enum State { LATENT, STARTED, DRAINING, CLOSED }

  /** The longest a TLS handshake may take before the connection is closed. */
  static final long HANDSHAKE_MILLIS = 10_000;
  /** A peer's refusals are logged at most once per this many milliseconds. */
  private static final long REFUSAL_LOG_MILLIS = 60_000;

  private final NodeServerConfig config;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicInteger writers = new AtomicInteger();
  /**
   * The chunks a WRITE stream holds ({@code target/object}), each with the streams waiting their
   * turn (FIFO): one writer per chunk at a time. Guarded by itself.
   */
  private final Map<String, ArrayDeque<WriteStream>> claims = new HashMap<>();
  private final Set<ConnectionHandler> connections = ConcurrentHashMap.newKeySet();
  final AtomicInteger pauses = new AtomicInteger();
  final AtomicInteger idleCloses = new AtomicInteger();
  private volatile NodeServices services;
  private volatile AdminOps admin;
  private volatile MemberRebuilder rebuilder;
  private EventLoopGroup boss;
  private EventLoopGroup workers;
  private ThreadPoolExecutor pool;
  private ExecutorService background;
  private ChannelGroup channels;
  private Channel server;
  private String transport;
  private volatile TlsContext tls;
  private final Map<String, Long> refusalsLogged = new ConcurrentHashMap<>();
  /** Connections admitted and not yet closed: on the node, and by peer address. */
  private final AtomicInteger admitted = new AtomicInteger();
  private final Map<InetAddress, Integer> admittedByPeer = new ConcurrentHashMap<>();
  /** Bytes of partial frames over every connection ({@link FrameTracker}). */
  private final AtomicLong partialBytes = new AtomicLong();
  /** The places for LIST requests running at once ({@link #startList}). */
  private final Semaphore lists;

  public NettyNodeServer(NodeServerConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.lists = new Semaphore(config.maxListsInProgress());
  }

  public NodeServerConfig config() {
    return config;
  }

  @Override
  public InetSocketAddress start(String host, int port, NodeServices services)
      throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("server already started or closed");
    }
    this.services = services;
    if (config.tls().enabled()) {
      try {
        tls = TlsContext.forServer(config.tls());
      } catch (IOException | RuntimeException e) {
        state.set(State.CLOSED);
        throw new IOException("cannot start TLS: " + e.getMessage(), e);
      }
    } else {
      LOG.log(System.Logger.Level.WARNING, "TLS is off (security.tls = off): any host that"
          + " reaches this node's port may read, write and delete every chunk and run the admin"
          + " opcodes; run it so only on a trusted network (docs/security.md)");
    }
    boolean epoll = config.nativeTransport() && Epoll.isAvailable();
    transport = epoll ? "epoll" : "nio";
    var factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    boss = new MultiThreadIoEventLoopGroup(1, threads("pfs-node-accept"), factory);
    workers = new MultiThreadIoEventLoopGroup(config.ioThreads(), threads("pfs-node-io"), factory);
    pool = new ThreadPoolExecutor(config.workerThreads(), config.workerThreads(), 60,
        TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads("pfs-node-worker"));
    background = Executors.newCachedThreadPool(threads("pfs-node-task"));
    admin = new AdminOps(services, background);
    rebuilder = new MemberRebuilder(this, services, config.tls());
    channels = new DefaultChannelGroup("pfs-node", GlobalEventExecutor.INSTANCE);
    Class<? extends ServerChannel> channelClass =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    int high = config.writeBufferHighWater();
    long idleNanos = config.idleTimeout().toNanos();
    ServerBootstrap b = new ServerBootstrap()
        .group(boss, workers)
        .channel(channelClass)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high))
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            InetAddress peer = ch.remoteAddress().getAddress();
            String over = admit(peer);
            if (over != null) {
              // before the TLS handshake and any buffer: a flood of connections costs little
              refuseConnection(ch, over);
              ch.close();
              return;
            }
            ch.closeFuture().addListener(f -> release(peer));
            channels.add(ch);
            FrameTracker tracker = new FrameTracker(NettyNodeServer.this);
            ConnectionHandler handler = new ConnectionHandler(NettyNodeServer.this,
                NettyNodeServer.this.services, tracker);
            connections.add(handler);
            ch.pipeline().addLast("idle", new IdleStateHandler(idleNanos, 0, 0,
                TimeUnit.NANOSECONDS));
            TlsContext t = tls;
            if (t != null) {
              SslHandler ssl = t.newHandler(ch.alloc(), null, 0);
              ssl.setHandshakeTimeoutMillis(HANDSHAKE_MILLIS);
              ch.pipeline().addLast("tls", ssl);
            }
            ch.pipeline().addLast("tracker", tracker);
            ch.pipeline().addLast("decoder", new FrameDecoder(Role.NODE, true));
            ch.pipeline().addLast("encoder", FrameEncoder.INSTANCE);
            if (t != null) {
              ch.pipeline().addLast("auth", new PeerAuth(NettyNodeServer.this));
            }
            ch.pipeline().addLast("node", handler);
          }
        });
    try {
      server = b.bind(host, port).sync().channel();
    } catch (Exception e) {
      shutdownThreads();
      state.set(State.CLOSED);
      throw new IOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    InetSocketAddress bound = (InetSocketAddress) server.localAddress();
    LOG.log(System.Logger.Level.INFO, "node server listening on {0} ({1}, {2} I/O threads, {3}"
        + " workers, {4})", bound, transport, config.ioThreads(), config.workerThreads(),
        tls == null ? "plaintext" : "mutual TLS 1.3, " + TlsContext.providerName());
    return bound;
  }

  /** The node's TLS context, or null when TLS is off (or before start). */
  public TlsContext tls() {
    return tls;
  }

  /**
   * Counts a new connection from {@code peer} in; null when it is within the caps, else which
   * cap it would pass (and it is not counted).
   */
  private String admit(InetAddress peer) {
    int all = admitted.incrementAndGet();
    int mine = admittedByPeer.merge(peer, 1, Integer::sum);
    if (all > config.maxConnections()) {
      release(peer);
      return "server.maxConnections (" + config.maxConnections() + ") connections open on the"
          + " node";
    }
    if (mine > config.maxConnectionsPerPeer()) {
      release(peer);
      return "server.maxConnectionsPerPeer (" + config.maxConnectionsPerPeer() + ") connections"
          + " open from " + peer.getHostAddress();
    }
    return null;
  }

  private void release(InetAddress peer) {
    admitted.decrementAndGet();
    admittedByPeer.computeIfPresent(peer, (k, n) -> n == 1 ? null : n - 1);
  }

  private void refuseConnection(SocketChannel ch, String cap) {
    metrics().refused("connections");
    if (shouldLogRefusal(ch.remoteAddress())) {
      LOG.log(System.Logger.Level.WARNING, "peer {0} refused: past {1}", ch.remoteAddress(), cap);
    }
  }

  /** Counts and logs (once a minute per peer) a refusal of the peer of {@code ctx}. */
  void refuse(ChannelHandlerContext ctx, String reason, String message) {
    metrics().refused(reason);
    if (shouldLogRefusal(ctx.channel().remoteAddress())) {
      LOG.log(System.Logger.Level.WARNING, "peer {0} refused: {1}",
          ctx.channel().remoteAddress(), message);
    }
  }

  /**
   * Adds {@code delta} to the bytes of partial frames on the node; false (and nothing added)
   * when a growth would take them past {@code server.maxPartialFrameBytes}.
   */
  boolean holdPartial(long delta) {
    if (delta == 0) {
      return true;
    }
    long sum = partialBytes.addAndGet(delta);
    if (delta > 0 && sum > config.maxPartialFrameBytes()) {
      partialBytes.addAndGet(-delta);
      return false;
    }
    return true;
  }

  /**
   * Takes a place for one LIST ({@code server.maxListsInProgress}), waiting up to {@code
   * server.listWait} for one (a worker thread); false when none came free.
   */
  boolean startList() {
    try {
      return lists.tryAcquire(config.listWait().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  void endList() {
    lists.release();
  }

  /** Bytes of frames received in part, over every connection (for tests and metrics). */
  public long partialFrameBytes() {
    return partialBytes.get();
  }

  /** Connections counted against the caps now. */
  public int admittedConnections() {
    return admitted.get();
  }

  /** Whether a refusal of a peer at {@code address} is to be logged now (once a minute). */
  boolean shouldLogRefusal(SocketAddress address) {
    String host = address instanceof InetSocketAddress a ? a.getHostString() : String.valueOf(
        address);
    long now = System.currentTimeMillis();
    if (refusalsLogged.size() > 4096) {
      refusalsLogged.values().removeIf(t -> now - t > REFUSAL_LOG_MILLIS);
    }
    Long last = refusalsLogged.get(host);
    if (last != null && now - last < REFUSAL_LOG_MILLIS) {
      return false;
    }
    refusalsLogged.put(host, now);
    return true;
  }

  /** {@code epoll} or {@code nio} (null before start). */
  public String transport() {
    return transport;
  }

  /** Requests accepted and not yet answered in full, on the whole node. */
  public int requestsInHand() {
    return requests.get();
  }

  /** WRITE data bytes received and not yet handed to the array, on the whole node. */
  public long bytesInHand() {
    return bytes.get();
  }

  /** Chunk writers open now. */
  public int openWriters() {
    return writers.get();
  }

  /** Open connections. */
  public int connectionCount() {
    return connections.size();
  }

  /** Times a connection was paused (auto-read off) for backpressure. */
  public int backpressurePauses() {
    return pauses.get();
  }

  @Override
  public void close() throws IOException {
    if (!state.compareAndSet(State.STARTED, State.DRAINING)) {
      state.compareAndSet(State.LATENT, State.CLOSED);
      return;
    }
    server.close().awaitUninterruptibly();
    long deadline = System.nanoTime() + config.drainTimeout().toNanos();
    while (requests.get() > 0 && System.nanoTime() < deadline) {
      sleep(10);
    }
    int left = requests.get();
    channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    // The connections' inactive events abort their open writers on the worker pool.
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while ((!connections.isEmpty() || writers.get() > 0) && System.nanoTime() < until) {
      sleep(10);
    }
    shutdownThreads();
    state.set(State.CLOSED);
    LOG.log(System.Logger.Level.INFO, "node server closed ({0} request(s) cut short)", left);
  }

  private void shutdownThreads() {
    if (rebuilder != null) {
      rebuilder.close();
    }
    if (pool != null) {
      pool.shutdown();
      try {
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
          pool.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (background != null) {
      services.targets().forEach(t -> t.array().scrubber().stop());
      background.shutdownNow();
    }
    if (workers != null) {
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  // ---- for the connections ----

  NodeMetrics metrics() {
    return services.metrics();
  }

  AdminOps admin() {
    return admin;
  }

  /** What runs REBUILD_MEMBER requests (null before start). */
  MemberRebuilder rebuilder() {
    return rebuilder;
  }

  /** Members this node rebuilt for re-protection (REBUILD_MEMBER) since it started. */
  public long membersRebuilt() {
    MemberRebuilder r = rebuilder;
    return r == null ? 0 : r.rebuilt();
  }

  void worker(Runnable task) {
    pool.execute(task);
  }

  /**
   * Admits a new request: null, or the status to refuse it with (before it has any effect):
   * SHUTTING_DOWN while draining, BUSY over the node's limits.
   */
  Status admit(boolean write) {
    if (state.get() != State.STARTED) {
      return Status.SHUTTING_DOWN;
    }
    if (write && bytes.get() >= config.maxBytesPerNode()) {
      return Status.BUSY;
    }
    if (requests.incrementAndGet() > config.maxRequestsPerNode()) {
      requests.decrementAndGet();
      return Status.BUSY;
    }
    return null;
  }

  /** A request admitted by {@link #admit} is over. */
  void finished(PendingRequest p, Status status) {
    requests.decrementAndGet();
    services.metrics().observe(p.op(), status.name(), System.nanoTime() - p.startNanos,
        p.bytesIn, p.bytesOut);
  }

  void bytesReceived(int n) {
    bytes.addAndGet(n);
  }

  void bytesConsumed(int n) {
    bytes.addAndGet(-n);
  }

  /**
   * Claims chunk {@code key} for {@code stream}: true when it is free (the stream holds it now);
   * otherwise the stream waits its turn behind the holder and the streams already waiting, and
   * is handed the claim ({@link WriteStream#claimGranted}) when they release it.
   */
  boolean claimOrQueue(String key, WriteStream stream) {
    synchronized (claims) {
      ArrayDeque<WriteStream> waiting = claims.get(key);
      if (waiting == null) {
        claims.put(key, new ArrayDeque<>());
        return true;
      }
      waiting.add(stream);
      return false;
    }
  }

  /** Claims chunk {@code key} only if it is free (no waiting): a DELETE does not queue. */
  boolean claimChunk(String key) {
    synchronized (claims) {
      if (claims.containsKey(key)) {
        return false;
      }
      claims.put(key, new ArrayDeque<>());
      return true;
    }
  }

  /**
   * Takes {@code stream} out of the queue for {@code key}: true when it was still waiting (it
   * never held the claim); false when it has been handed the claim, which it then releases.
   */
  boolean withdrawClaim(String key, WriteStream stream) {
    synchronized (claims) {
      ArrayDeque<WriteStream> waiting = claims.get(key);
      return waiting != null && waiting.remove(stream);
    }
  }

  /** Releases chunk {@code key}, handing it to the next stream waiting for it, if any. */
  void releaseChunk(String key) {
    WriteStream next;
    synchronized (claims) {
      ArrayDeque<WriteStream> waiting = claims.get(key);
      if (waiting == null) {
        return;
      }
      next = waiting.poll();
      if (next == null) {
        claims.remove(key);
      }
    }
    if (next != null) {
      next.claimGranted();
    }
  }

  void writerOpened() {
    writers.incrementAndGet();
  }

  void writerClosed() {
    writers.decrementAndGet();
  }

  void connectionClosed(ConnectionHandler h) {
    connections.remove(h);
  }

  /** The connection handlers (tests look at their backpressure state). */
  Set<ConnectionHandler> connections() {
    return connections;
  }
}
