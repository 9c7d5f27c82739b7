package io.parityfs.node.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.DataFrame;
import io.parityfs.node.protocol.DeleteRequest;
import io.parityfs.node.protocol.DeleteResponse;
import io.parityfs.node.protocol.ListRequest;
import io.parityfs.node.protocol.ListResponse;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.PingRequest;
import io.parityfs.node.protocol.ReadRequest;
import io.parityfs.node.protocol.RebuildMemberRequest;
import io.parityfs.node.protocol.RebuildMemberResponse;
import io.parityfs.node.protocol.Request;
import io.parityfs.node.protocol.Response;
import io.parityfs.node.protocol.StatRequest;
import io.parityfs.node.protocol.StatResponse;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.SyncRequest;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.protocol.WriteRequest;
import io.parityfs.node.protocol.WriteResponse;
import io.parityfs.node.tls.TlsContext;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * The client of storage nodes: one per process, shared by all threads.
 *
 * <ul>
 *   <li><b>Connections.</b> A pool per node (see {@link NodeClientConfig}); requests are pipelined,
 *       each with its own request id, answers matched by id.
 *   <li><b>Timeouts.</b> A request that gets no frame of its answer for {@code requestTimeout}
 *       fails with {@link Status#TIMEOUT}, and its connection is closed (the other requests on it
 *       fail with UNAVAILABLE and, if idempotent, are retried).
 *   <li><b>Retries.</b> Idempotent requests ({@link Opcode#idempotent()}: READ, STAT, LIST,
 *       DELETE, SYNC, PING, NODE_INFO, ARRAY_STATUS, PROGRESS) are retried on a retryable status
 *       with exponential backoff, up to {@code maxAttempts}; a READ resumes after the bytes
 *       already delivered. A WRITE is retried only when its data can be sent again (given as
 *       ByteBuffers) and its mode is REPLACE or OVERWRITE; any request is retried when the
 *       connection could not be opened (nothing was sent).
 *   <li><b>Streams.</b> {@code writeChunk} reads its source in the caller's thread and sends
 *       DATA frames only while the connection is writable; {@code readChunk} queues at most about
 *       {@code readWindow} bytes before it stops reading from the connection.
 *   <li><b>Errors.</b> {@link NodeException} with the status; caller mistakes are
 *       {@link IllegalArgumentException}s.
 *   <li><b>Administration.</b> The admin operations (NODE_INFO, ARRAY_STATUS, FAIL_DRIVE, ...)
 *       are in {@link NodeAdminClient}, over the same connections: {@link #admin()}.
 * </ul>
 *
 * Lifecycle: OPEN until {@link #close()}, which fails what is in flight with UNAVAILABLE.
 */
public final class NodeClient implements Closeable {
  private enum State { OPEN, CLOSED }

  private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
  private final NodeClientConfig config;
  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final TlsContext tls;
  private final ConcurrentHashMap<InetSocketAddress, ConnectionPool> pools =
      new ConcurrentHashMap<>();
  private final NodeAdminClient admin = new NodeAdminClient(this);

  private NodeClient(NodeClientConfig config) {
    this.config = config;
    // Named so that a thread dump or a profile tells the client's I/O threads from the node's.
    this.group = new MultiThreadIoEventLoopGroup(config.ioThreads(),
        new DefaultThreadFactory("pfs-client-io"), NioIoHandler.newFactory());
    int high = config.writeBufferHighWater();
    this.bootstrap = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
            (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()))
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high));
    try {
      this.tls = config.tls().enabled() ? TlsContext.forClient(config.tls()) : null;
    } catch (IOException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new IllegalArgumentException("cannot start TLS: " + e.getMessage(), e);
    }
  }

  public static NodeClient create(NodeClientConfig config) {
    return new NodeClient(Objects.requireNonNull(config, "config"));
  }

  public NodeClientConfig config() {
    return config;
  }

  /** The administrative operations (NODE_INFO, ARRAY_STATUS, ...) over this client's connections. */
  public NodeAdminClient admin() {
    return admin;
  }

  // ------------------------------------------------------------------ data operations

  /**
   * Writes {@code length} bytes (or, with -1, all bytes until end of stream) from a blocking
   * {@code src} to a chunk, streaming them in DATA frames. Not retried (the source cannot be read
   * again), except when no connection could be opened.
   *
   * @param writeFlags {@link WriteRequest#SYNC} or 0
   * @return the chunk after the write
   */
  public ChunkStat writeChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      WriteMode mode, int writeFlags, ReadableByteChannel src, long length) throws IOException {
    Objects.requireNonNull(src, "src");
    WriteRequest.check(target, chunk, mode, writeFlags, offset, length, 0);
    return writeOnce(node, id -> new WriteRequest(id, target, chunk, mode, writeFlags, offset,
        length), src, length);
  }

  /**
   * Writes the remaining bytes of {@code data} (not consumed: positions are left alone) as writer
   * generation 0. Retried for REPLACE and OVERWRITE, which are idempotent.
   */
  public ChunkStat writeChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      WriteMode mode, int writeFlags, ByteBuffer... data) throws IOException {
    return writeChunk(node, target, chunk, offset, mode, writeFlags, 0L, data);
  }

  /**
   * As writer {@code generation} of the chunk's file ({@link WriteRequest#generation()}): a target
   * that has seen a newer one refuses it with STALE_GENERATION (not retried).
   */
  public ChunkStat writeChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      WriteMode mode, int writeFlags, long generation, ByteBuffer... data) throws IOException {
    return writeChunk(node, target, chunk, offset, mode, writeFlags, generation, 0L, data);
  }

  /**
   * With a group tag: the version is stored with (generation, {@code sequence}) when the sequence
   * is not 0 ({@link WriteRequest#sequence()}), and the stat returned carries it. Retried for
   * REPLACE and OVERWRITE, which are idempotent.
   */
  public ChunkStat writeChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      WriteMode mode, int writeFlags, long generation, long sequence, ByteBuffer... data)
      throws IOException {
    return writeChunk(node, target, chunk, offset, mode, writeFlags, generation, sequence,
        generation, data);
  }

  /**
   * With a group tag of another generation than the writer's ({@link
   * WriteRequest#tagGeneration()}): a repairer storing a member of a round an earlier writer
   * stored, with its exact tag, fenced as writer {@code generation}.
   */
  public ChunkStat writeChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      WriteMode mode, int writeFlags, long generation, long sequence, long tagGeneration,
      ByteBuffer... data) throws IOException {
    if (tagGeneration < 0 || tagGeneration > generation
        || tagGeneration != generation && sequence == 0) {
      throw new IllegalArgumentException("tagGeneration (" + tagGeneration + ") must be in 0.."
          + generation + ", and the writer generation without a sequence");
    }
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence (" + sequence + ") must be >= 0");
    }
    long total = 0;
    for (ByteBuffer b : data) {
      total += b.remaining();
    }
    long length = total;
    WriteRequest.check(target, chunk, mode, writeFlags, offset, length, generation);
    boolean idempotent = mode == WriteMode.REPLACE || mode == WriteMode.OVERWRITE;
    for (int attempt = 1; ; attempt++) {
      try {
        return writeOnce(node, id -> new WriteRequest(id, target, chunk, mode, writeFlags, offset,
            length, generation, sequence, tagGeneration), new BuffersChannel(data), length);
      } catch (NodeException e) {
        if (!idempotent || !shouldRetry(e, attempt)) {
          throw e;
        }
        sleepBackoff(attempt);
      }
    }
  }

  /**
   * Reads up to {@code length} bytes (-1: to the end) of a chunk from {@code offset} into a
   * blocking {@code dst}, in the caller's thread. Returns the bytes read (fewer at the end of the
   * chunk). Retried while nothing was written to {@code dst}; a read cut after some bytes is not
   * resumed (the retry could read a newer version of the chunk after bytes of the older one, a
   * state that never existed) but fails with the cut's status.
   */
  public long readChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      long length, WritableByteChannel dst) throws IOException {
    return readChunk(node, target, chunk, offset, length, dst, null, null);
  }

  /**
   * The read; {@code restart}, when given, undoes what was written to {@code dst} so that a read
   * cut after some bytes is retried from {@code offset} (one request, one version of the chunk,
   * whatever attempt succeeds); without it such a read fails.
   */
  private long readChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      long length, WritableByteChannel dst, Runnable restart, ChunkStat[] stat)
      throws IOException {
    Objects.requireNonNull(dst, "dst");
    int flags = stat == null ? 0 : ReadRequest.WITH_STAT;
    new ReadRequest(1, target, chunk, offset, length, flags);
    long delivered = 0;
    for (int attempt = 1; ; attempt++) {
      if (delivered > 0) {
        // a READ pins one version per request only: never resume a cut read at offset + done
        restart.run();
        delivered = 0;
      }
      long done = delivered;
      long want = length < 0 ? -1 : length - done;
      if (want == 0) {
        return done;
      }
      NodeConnection conn = null;
      ReadCall call = null;
      long id = 0;
      try {
        conn = acquire(node);
        call = new ReadCall(conn, config.readWindow());
        id = conn.register(call);
        conn.send(id, new ReadRequest(id, target, chunk, offset + done, want, flags));
        while (true) {
          DataFrame d = call.take(config.requestTimeout().toNanos() * 2);
          try {
            if (stat != null && d.stat() != null) {
              stat[0] = d.stat();
            }
            int n = d.content().readableBytes();
            for (ByteBuffer b : d.content().nioBuffers()) { // the reads it came in, not merged
              writeFully(dst, b);
            }
            delivered += n;
            call.consumed(n);
            if (d.isEnd()) {
              if (stat != null && stat[0] == null) {
                throw new NodeException(Status.PROTOCOL_VIOLATION, "reading " + chunk + " from "
                    + node + ": asked for the chunk's stat, the answer carried none");
              }
              return delivered;
            }
          } finally {
            d.release();
          }
        }
      } catch (NodeException e) {
        if (!shouldRetry(e, attempt)) {
          throw e;
        }
        if (delivered > 0 && restart == null) {
          throw new NodeException(e.status(), "reading " + chunk + " from " + node + ": cut after "
              + delivered + " bytes (" + e.getMessage() + "); not resumed, since the chunk may"
              + " have changed meanwhile", e);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted reading " + chunk + " from " + node);
      } finally {
        if (call != null) {
          conn.forget(id);
          call.abandon();
        }
      }
      sleepBackoff(attempt);
    }
  }

  /**
   * Reads {@code dst.remaining()} bytes (fewer at the end of the chunk) into {@code dst}. Retried;
   * a read cut after some bytes is retried from the start (the bytes of one version, never a
   * mix of two).
   */
  public int readChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      ByteBuffer dst) throws IOException {
    return readChunk(node, target, chunk, offset, dst, null);
  }

  /**
   * As above, returning the stat of the version the bytes were read from, with its group tag
   * (one READ reads one version, named in its first frame: {@link ReadRequest#WITH_STAT}).
   */
  public ChunkStat readChunkWithStat(InetSocketAddress node, TargetId target, ChunkId chunk,
      long offset, ByteBuffer dst) throws IOException {
    return readChunkWithStat(node, target, chunk, offset, dst, null);
  }

  /**
   * As above, telling {@code progress} after every frame how many bytes from {@code dst}'s
   * position hold the chunk's (in this thread; back to 0 when a cut read restarts from its
   * start, which reads the version the first attempt read or a newer one, never an older): so a
   * caller may use the bytes while the rest arrive, as a node's rebuild does. Whether they are
   * the version it wants, it learns from the stat returned at the end.
   */
  public ChunkStat readChunkWithStat(InetSocketAddress node, TargetId target, ChunkId chunk,
      long offset, ByteBuffer dst, IntConsumer progress) throws IOException {
    ChunkStat[] stat = new ChunkStat[1];
    readChunk(node, target, chunk, offset, dst, stat, progress);
    return stat[0];
  }

  private int readChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      ByteBuffer dst, ChunkStat[] stat) throws IOException {
    return readChunk(node, target, chunk, offset, dst, stat, null);
  }

  private int readChunk(InetSocketAddress node, TargetId target, ChunkId chunk, long offset,
      ByteBuffer dst, ChunkStat[] stat, IntConsumer progress) throws IOException {
    BufferSink sink = new BufferSink(dst, progress);
    long n = readChunk(node, target, chunk, offset, dst.remaining(), sink, () -> {
      sink.reset();
      if (stat != null) {
        stat[0] = null;
      }
    }, stat);
    dst.position(dst.position() + (int) n);
    return (int) n;
  }

  public CompletableFuture<ChunkStat> statAsync(
      InetSocketAddress node, TargetId target, ChunkId chunk) {
    new StatRequest(1, target, chunk);
    return call(node, id -> new StatRequest(id, target, chunk), true,
        r -> expect(r, StatResponse.class).stat());
  }

  public ChunkStat stat(InetSocketAddress node, TargetId target, ChunkId chunk) throws IOException {
    return join(statAsync(node, target, chunk));
  }

  /**
   * Deletes a chunk outside any writer generation ({@link DeleteRequest#ANY}: the deletes of a
   * removed file's chunks); returns whether the chunk existed.
   */
  public CompletableFuture<Boolean> deleteAsync(
      InetSocketAddress node, TargetId target, ChunkId chunk) {
    return deleteAsync(node, target, chunk, DeleteRequest.ANY);
  }

  /**
   * Deletes a chunk as writer {@code generation} of its file (see {@link DeleteRequest}): raises
   * the file's fence on the target to it, also when the chunk does not exist; STALE_GENERATION
   * when the target has seen a newer one. Returns whether the chunk existed.
   */
  public CompletableFuture<Boolean> deleteAsync(
      InetSocketAddress node, TargetId target, ChunkId chunk, long generation) {
    new DeleteRequest(1, target, chunk, generation);
    return call(node, id -> new DeleteRequest(id, target, chunk, generation), true,
        r -> expect(r, DeleteResponse.class).existed());
  }

  public boolean delete(InetSocketAddress node, TargetId target, ChunkId chunk) throws IOException {
    return join(deleteAsync(node, target, chunk));
  }

  public boolean delete(InetSocketAddress node, TargetId target, ChunkId chunk, long generation)
      throws IOException {
    return join(deleteAsync(node, target, chunk, generation));
  }

  /**
   * One page of a target's chunks.
   *
   * @param fileId a file, or {@link ListRequest#ALL_FILES}
   * @param cursor 0 for the first page, then the previous page's {@code nextCursor}
   */
  public CompletableFuture<ListResponse> listAsync(
      InetSocketAddress node, TargetId target, long fileId, long cursor, int limit) {
    new ListRequest(1, target, fileId, cursor, limit);
    return call(node, id -> new ListRequest(id, target, fileId, cursor, limit), true,
        r -> expect(r, ListResponse.class));
  }

  public ListResponse list(InetSocketAddress node, TargetId target, long fileId, long cursor,
      int limit) throws IOException {
    return join(listAsync(node, target, fileId, cursor, limit));
  }

  /**
   * Asks {@code node} to rebuild a member of a chunk group across nodes from its peers and store
   * it ({@link RebuildMemberRequest}; {@code request}'s id is replaced by the connection's).
   * Returns the stat of the version stored. A node that predates the opcode answers
   * UNKNOWN_OPCODE; a peer whose certificate is a client's, PERMISSION_DENIED.
   */
  public CompletableFuture<ChunkStat> rebuildMemberAsync(InetSocketAddress node,
      RebuildMemberRequest request) {
    Objects.requireNonNull(request, "request");
    return call(node, id -> new RebuildMemberRequest(id, request.target(), request.chunk(),
        request.generation(), request.tagGeneration(), request.sequence(), request.k(),
        request.m(), request.member(), request.length(), request.groupLength(),
        request.sources()), true, r -> expect(r, RebuildMemberResponse.class).stat());
  }

  public ChunkStat rebuildMember(InetSocketAddress node, RebuildMemberRequest request)
      throws IOException {
    return join(rebuildMemberAsync(node, request));
  }

  public void sync(InetSocketAddress node, TargetId target) throws IOException {
    Objects.requireNonNull(target, "target");
    join(call(node, id -> new SyncRequest(id, target), true, r -> r));
  }

  public CompletableFuture<Void> pingAsync(InetSocketAddress node) {
    return call(node, PingRequest::new, true, r -> null);
  }

  public void ping(InetSocketAddress node) throws IOException {
    join(pingAsync(node));
  }

  // ------------------------------------------------------------------ lifecycle

  /** Closes every connection and the event loops; requests in flight fail with UNAVAILABLE. */
  @Override
  public void close() {
    if (!state.compareAndSet(State.OPEN, State.CLOSED)) {
      return;
    }
    pools.values().forEach(ConnectionPool::close);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /** Connections opened to {@code node} so far. */
  int connectionsOpened(InetSocketAddress node) {
    ConnectionPool p = pools.get(node);
    return p == null ? 0 : p.opened();
  }

  // ------------------------------------------------------------------ internals

  private ConnectionPool pool(InetSocketAddress node) {
    Objects.requireNonNull(node, "node");
    if (state.get() != State.OPEN) {
      throw new IllegalStateException("the client is closed");
    }
    return pools.computeIfAbsent(node, n -> new ConnectionPool(n, bootstrap, config, tls));
  }

  /** A connection, retrying failed connects (nothing was sent, so any request may retry). */
  private NodeConnection acquire(InetSocketAddress node) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return join(pool(node).acquire());
      } catch (NodeException e) {
        if (!shouldRetry(e, attempt)) {
          throw e;
        }
        sleepBackoff(attempt);
      }
    }
  }

  /** Tests: told of every frame a write lends from its caller's direct memory. */
  static volatile BiConsumer<Channel, ByteBuf> LEND_HOOK;

  /**
   * Sends one WRITE and its data frames and waits for the answer. When the source is direct
   * memory ({@link BuffersChannel#direct}), the frames are slices of it, sent without a copy
   * (docs/data-path.md); then this does not return, however the write ends, before the transport
   * has let go of every such frame, so the caller may reuse its buffers at once: a frame still
   * queued would otherwise be checksummed and sent with whatever the caller writes there next.
   */
  private ChunkStat writeOnce(InetSocketAddress node, LongFunction<WriteRequest> request,
      ReadableByteChannel src, long length) throws IOException {
    NodeConnection conn = acquire(node);
    UnaryCall call = new UnaryCall();
    long id = conn.register(call);
    conn.send(id, request.apply(id));
    BuffersChannel zeroCopy = src instanceof BuffersChannel b && b.direct() && length >= 0
        ? b : null;
    List<ByteBuf> lent = zeroCopy == null ? null : new ArrayList<>();
    long sent = 0;
    boolean end = false;
    try {
      while (!end && !call.isDone()) {
        conn.awaitWritable(call);
        if (call.isDone()) {
          break;
        }
        int want = (int) (length < 0 ? config.writeFrameSize()
            : Math.min(config.writeFrameSize(), length - sent));
        ByteBuf buf;
        boolean eof;
        if (zeroCopy != null) {
          ByteBuffer slice = zeroCopy.next(want);
          eof = slice == null;
          buf = eof || !slice.hasRemaining() ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(slice);
          if (buf != Unpooled.EMPTY_BUFFER) {
            lent.add(buf);
            BiConsumer<Channel, ByteBuf> hook = LEND_HOOK;
            if (hook != null) {
              hook.accept(conn.channel(), buf); // tests: may hold the connection's event loop
            }
          }
        } else {
          buf = conn.channel().alloc().directBuffer(Math.max(want, 1));
          try {
            ByteBuffer nio = buf.nioBuffer(0, want);
            eof = fill(src, nio);
            buf.writerIndex(nio.position());
          } catch (IOException | RuntimeException e) {
            buf.release();
            throw e;
          }
        }
        sent += buf.readableBytes();
        if (length >= 0 && eof && sent < length) {
          buf.release();
          throw new NodeException(Status.INVALID_ARGUMENT,
              "source ended after " + sent + " of " + length + " bytes");
        }
        end = length >= 0 ? sent == length : eof;
        call.touch();
        conn.send(id, new DataFrame(id, false, end, buf));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      conn.abort(id, new NodeException(Status.UNAVAILABLE, "interrupted"));
      awaitLetGo(conn, lent);
      throw new InterruptedIOException("interrupted writing to " + node);
    } catch (IOException | RuntimeException e) {
      // The stream is half sent: closing the connection is how a client abandons it.
      conn.abort(id, new NodeException(Status.UNAVAILABLE, "write abandoned: " + e));
      awaitLetGo(conn, lent);
      throw e;
    }
    try {
      return expect(join(call.result), WriteResponse.class).stat();
    } finally {
      awaitLetGo(conn, lent);
    }
  }

  /**
   * Waits until the transport has released every frame of {@code lent} (sent or failed): at once
   * after an answer, which the node gives only once it has every frame; after an error answer the
   * frames still queued go out and are released; if they are not within the request timeout, the
   * connection is closed, which fails and releases them.
   */
  private void awaitLetGo(NodeConnection conn, List<ByteBuf> lent) {
    if (lent == null) {
      return;
    }
    long deadline = System.nanoTime() + config.requestTimeout().toNanos();
    boolean interrupted = false;
    for (ByteBuf b : lent) {
      while (b.refCnt() > 0) {
        if (System.nanoTime() - deadline > 0) {
          conn.channel().close().awaitUninterruptibly();
          if (b.refCnt() > 0) {
            throw new IllegalStateException("a data frame of " + conn.channel()
                + " was not released after its channel closed");
          }
          break;
        }
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          interrupted = true; // the caller's buffers are still lent: wait on, then say so
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Fills {@code nio} from {@code src}; returns whether the source is at its end. */
  private static boolean fill(ReadableByteChannel src, ByteBuffer nio) throws IOException {
    while (nio.hasRemaining()) {
      if (src.read(nio) < 0) {
        return true;
      }
    }
    return false;
  }

  private static void writeFully(WritableByteChannel dst, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      dst.write(b);
    }
  }

  /** One request and its answer, retried when {@code idempotent} (see the class comment). */
  <T> CompletableFuture<T> call(InetSocketAddress node, LongFunction<Request> request,
      boolean idempotent, Function<Response, T> map) {
    CompletableFuture<T> result = new CompletableFuture<>();
    attempt(pool(node), request, idempotent, map, 1, result);
    return result;
  }

  private <T> void attempt(ConnectionPool pool, LongFunction<Request> request, boolean idempotent,
      Function<Response, T> map, int attempt, CompletableFuture<T> result) {
    pool.acquire().whenComplete((conn, connectError) -> {
      if (connectError != null) {
        retryOrFail(pool, request, idempotent, map, attempt, result, cause(connectError), true);
        return;
      }
      UnaryCall call = new UnaryCall();
      long id = conn.register(call);
      if (!call.isDone()) {
        conn.send(id, request.apply(id));
      }
      call.result.whenComplete((response, error) -> {
        if (error != null) {
          retryOrFail(pool, request, idempotent, map, attempt, result, cause(error), false);
          return;
        }
        try {
          result.complete(map.apply(response));
        } catch (UnexpectedResponse e) {
          result.completeExceptionally(e.getCause());
        }
      });
    });
  }

  private <T> void retryOrFail(ConnectionPool pool, LongFunction<Request> request,
      boolean idempotent, Function<Response, T> map, int attempt, CompletableFuture<T> result,
      NodeException e, boolean notSent) {
    if ((idempotent || notSent) && shouldRetry(e, attempt)) {
      group.next().schedule(() -> attempt(pool, request, idempotent, map, attempt + 1, result),
          backoffNanos(attempt), TimeUnit.NANOSECONDS);
    } else {
      result.completeExceptionally(e);
    }
  }

  private boolean shouldRetry(NodeException e, int attempt) {
    return e.retryable() && attempt < config.maxAttempts() && state.get() == State.OPEN;
  }

  private long backoffNanos(int attempt) {
    long base = config.initialBackoff().toNanos() << Math.min(attempt - 1, 20);
    long capped = Math.min(base, config.maxBackoff().toNanos());
    return capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1);
  }

  private void sleepBackoff(int attempt) throws InterruptedIOException {
    try {
      TimeUnit.NANOSECONDS.sleep(backoffNanos(attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while backing off");
    }
  }

  private static NodeException cause(Throwable t) {
    Throwable c = t;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof NodeException ne
        ? ne : new NodeException(Status.INTERNAL, "unexpected failure: " + c, c);
  }

  static <T> T join(CompletableFuture<T> future) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for a node");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof NodeException ne) {
        // A fresh exception, so the stack trace shows the caller.
        throw new NodeException(ne.status(), ne.getMessage().substring(ne.status().name().length()
            + 2), ne);
      }
      throw new NodeException(Status.INTERNAL, "unexpected failure: " + c, c);
    }
  }

  static <R extends Response> R expect(Response r, Class<R> type) {
    if (!type.isInstance(r)) {
      throw new UnexpectedResponse(new NodeException(Status.PROTOCOL_VIOLATION,
          "expected " + type.getSimpleName() + ", got " + r));
    }
    return type.cast(r);
  }

  /** Carries a NodeException out of a mapping function. */
  private static final class UnexpectedResponse extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnexpectedResponse(NodeException cause) {
      super(cause);
    }
  }
}
