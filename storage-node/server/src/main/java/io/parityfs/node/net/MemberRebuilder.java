package io.parityfs.node.net;

import io.parityfs.node.NodeServices;
import io.parityfs.node.TargetView;
import io.parityfs.node.chunk.ChunkInfo;
import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.node.chunk.ChunkStoreException;
import io.parityfs.node.chunk.ChunkWriter;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.RebuildMemberRequest;
import io.parityfs.node.protocol.RebuildMemberResponse;
import io.parityfs.node.protocol.RebuildSource;
import io.parityfs.node.protocol.Response;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * REBUILD_MEMBER on the destination node (docs/across-nodes.md §5): reads the K sources a
 * {@link RebuildMemberRequest} names from their nodes (as a client, with this node's own
 * certificate; a source on one of this node's own targets from its chunk store), checks that
 * each is the version of the round named (its tag and length), restores the member with this
 * node's Reed-Solomon codec (each source zero-padded to the group's length, as the client's
 * group codec pads them, so the bytes are the same), and stores it on the target with the
 * round's tag, fenced as the request's writer generation. A source of another round, or one that
 * cannot be read, fails the request and nothing is written.
 *
 * <p>Rebuilds run on their own pool ({@link #THREADS} threads; more wait their turn), not on the
 * worker pool: a rebuild waits for its peers' reads, and two nodes rebuilding from each other
 * must never wait for a worker the other's reads need. The sources of one rebuild are read in
 * parallel. Thread-safe; the peer client and the codec are made on first use.
 */
final class MemberRebuilder implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(MemberRebuilder.class.getName());
  /**
   * Rebuilds of this node running at once (system property {@code
   * parityfs.node.rebuildThreads}, default 8): each holds K+1 buffers of the group's length,
   * within {@link #MEMORY}.
   */
  static final int THREADS = Math.max(1, Integer.getInteger("parityfs.node.rebuildThreads", 8));
  /**
   * Bytes of buffers the rebuilds of this node hold and keep for reuse at most (system property
   * {@code parityfs.node.rebuildMemory}, default a quarter of the heap, at most 1 GiB): with 8
   * MiB chunks and ec:4+1 a rebuild holds 40 MiB, so the default runs {@link #THREADS} at once;
   * wider or longer groups run fewer (see {@link RebuildBuffers}).
   */
  static final long MEMORY = Math.max(1, Long.getLong("parityfs.node.rebuildMemory",
      Math.min(Runtime.getRuntime().maxMemory() / 4, 1L << 30)));
  /**
   * Bytes of the member decoded and stored in one step while the sources still arrive (a
   * multiple of every cell size up to 1 MiB).
   */
  private static final int SLICE = 1 << 20;
  /** How long a rebuild waits for a WRITE stream of the same chunk to end. */
  private static final Duration CLAIM_WAIT = Duration.ofSeconds(10);

  private final NettyNodeServer server;
  private final NodeServices services;
  private final TlsConfig tls;
  private final ThreadPoolExecutor pool;
  private final ExecutorService reads;
  private final RebuildBuffers buffers = new RebuildBuffers(MEMORY);
  private final AtomicLong rebuilt = new AtomicLong();
  private final AtomicLong rebuiltBytes = new AtomicLong();
  private volatile NodeClient peers;
  private volatile ParityCodecFactory codecs;

  MemberRebuilder(NettyNodeServer server, NodeServices services, TlsConfig tls) {
    this.server = server;
    this.services = services;
    this.tls = tls;
    this.pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), daemons("pfs-node-rebuild"));
    this.pool.allowCoreThreadTimeOut(true);
    this.reads = Executors.newCachedThreadPool(daemons("pfs-node-rebuild-read"));
  }

  /** Members this node rebuilt and stored since it started; for tests and metrics. */
  long rebuilt() {
    return rebuilt.get();
  }

  /** Bytes of the members this node rebuilt and stored. */
  long rebuiltBytes() {
    return rebuiltBytes.get();
  }

  /** Runs {@code r} on the rebuild pool and hands its answer to {@code answer}. */
  void submit(RebuildMemberRequest r, TargetView target, Consumer<Response> answer) {
    pool.execute(() -> {
      Response out;
      try {
        out = new RebuildMemberResponse(r.requestId(), rebuild(r, target));
      } catch (Exception e) {
        out = new ErrorResponse(r.requestId(), Opcode.REBUILD_MEMBER, WireStatus.of(e),
            WireStatus.message(e));
      }
      answer.accept(out);
    });
  }

  private ChunkStat rebuild(RebuildMemberRequest r, TargetView target) throws Exception {
    ChunkStore chunks = target.chunks();
    if (r.groupLength() > chunks.maxChunkSize()) {
      throw new ChunkStoreException(Status.INVALID_ARGUMENT, "REBUILD_MEMBER of chunk "
          + r.chunk() + ": a group of " + r.groupLength() + " bytes is longer than this"
          + " target's chunks (" + chunks.maxChunkSize() + ")");
    }
    int n = r.k() + r.m();
    int group = (int) r.groupLength();
    int length = (int) r.length();
    List<RebuildSource> sources = r.sources();
    ByteBuffer[] shards = new ByteBuffer[n];
    // K sources and the member: reused between rebuilds, within the node's budget
    ByteBuffer[] held = buffers.take(sources.size() + 1, group);
    Arrivals arrived = new Arrivals(sources.size());
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    boolean[] readsEnded = {false};
    try {
      for (int i = 0; i < sources.size(); i++) {
        RebuildSource s = sources.get(i);
        ByteBuffer into = held[i];
        // zeros past the source's own bytes, as the group codec pads a short member
        int own = s.isZeros() ? 0 : (int) Math.min(s.length(), group);
        Arrays.fill(into.array(), own, group, (byte) 0);
        shards[s.member()] = into;
        arrived.expect(i, own);
        if (!s.isZeros()) {
          int source = i;
          CompletableFuture<Void> read = CompletableFuture.runAsync(() -> {
            try {
              read(r, s, into.duplicate().limit((int) s.length()), got -> arrived.got(source, got));
            } catch (IOException e) {
              throw new CompletionException(e);
            }
          }, reads);
          read.whenComplete((v, e) -> {
            if (e != null) {
              arrived.failed(e);
            }
          });
          pending.add(read);
        }
      }
      ByteBuffer member = held[sources.size()];
      ParityCodec codec = codec(r.k(), r.m());
      ChunkInfo info = store(r, target, writer -> {
        // decode and store the member a slice at a time as the sources arrive, so that the
        // drives write while the network reads
        for (int done = 0; done < length; ) {
          int to = Math.min(length, done + SLICE);
          arrived.await(to);
          ByteBuffer[] slices = new ByteBuffer[n];
          for (int j = 0; j < n; j++) {
            if (shards[j] != null) {
              slices[j] = shards[j].duplicate().position(done).limit(to).slice();
            }
          }
          ByteBuffer out = member.duplicate().position(done).limit(to).slice();
          slices[r.member()] = out;
          codec.reconstruct(slices, new int[] {r.member()});
          writer.write(out.duplicate().clear());
          done = to;
        }
        // every source read to its end and checked against the round before the commit: a
        // source of another round aborts the write, and nothing becomes visible
        try {
          CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
          throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
          readsEnded[0] = pending.stream().allMatch(CompletableFuture::isDone);
        }
      });
      rebuilt.incrementAndGet();
      rebuiltBytes.addAndGet(r.length());
      return ConnectionHandler.stat(info);
    } finally {
      if (readsEnded[0] || pending.isEmpty()) {
        buffers.give(held);
      } else {
        // a read may still be writing into them: never reuse them
        pending.forEach(p -> p.cancel(false));
        buffers.discard(held);
      }
    }
  }

  /**
   * How far each source of one rebuild has arrived: the decode of a slice waits until every
   * source holds its bytes up to the slice's end (its zeros past its own length need nothing),
   * or a read failed.
   */
  private static final class Arrivals {
    private final int[] own;
    private final int[] got;
    private Throwable failure;

    Arrivals(int sources) {
      own = new int[sources];
      got = new int[sources];
    }

    synchronized void expect(int source, int bytes) {
      own[source] = bytes;
    }

    synchronized void got(int source, int bytes) {
      got[source] = bytes; // back to 0 when a cut read restarts (BufferSink.reset)
      notifyAll();
    }

    synchronized void failed(Throwable e) {
      if (failure == null) {
        failure = e;
      }
      notifyAll();
    }

    synchronized void await(int to) throws Exception {
      while (true) {
        if (failure != null) {
          Throwable cause = failure instanceof CompletionException c && c.getCause() != null
              ? c.getCause() : failure;
          throw cause instanceof Exception e ? e : new IllegalStateException(cause);
        }
        boolean all = true;
        for (int i = 0; i < own.length && all; i++) {
          all = got[i] >= Math.min(to, own[i]);
        }
        if (all) {
          return;
        }
        wait();
      }
    }
  }

  /**
   * Reads source {@code s} into {@code into} (exactly its length), telling {@code progress} the
   * bytes in {@code into} as they arrive, and checks its round at the end.
   */
  private void read(RebuildMemberRequest r, RebuildSource s, ByteBuffer into,
      IntConsumer progress) throws IOException {
    ChunkId id = new ChunkId(r.chunk().fileId(), s.chunkIndex());
    String what = "source member " + s.member() + " (chunk " + s.chunkIndex() + " on target "
        + s.target() + ")";
    long generation;
    long sequence;
    long length;
    var local = services.target(s.target().uuid().toString());
    if (local.isPresent()) {
      ChunkStore store = local.get().chunks();
      ChunkInfo info = store.stat(id).orElseThrow(() -> new ChunkStoreException(
          Status.OBJECT_LOST, "REBUILD_MEMBER of chunk " + r.chunk() + ": " + what
              + " does not exist; nothing was written"));
      generation = info.tagGeneration();
      sequence = info.tagSequence();
      length = info.length();
      if (sameRound(s, generation, sequence, length)) {
        while (into.hasRemaining()) {
          if (store.read(id, info.version(), into.position(), into) <= 0) {
            break;
          }
          progress.accept(into.position());
        }
      }
    } else {
      ChunkStat stat;
      try {
        stat = peers().readChunkWithStat(InetSocketAddress.createUnresolved(s.host(), s.port()),
            s.target(), id, 0, into, progress);
      } catch (NodeException e) {
        throw new ChunkStoreException(Status.OBJECT_LOST, "REBUILD_MEMBER of chunk "
            + r.chunk() + ": " + what + " on " + s.host() + ":" + s.port() + " could not be"
            + " read (" + e.status() + ": " + e.getMessage() + "); nothing was written", e);
      }
      generation = stat == null ? 0 : stat.generation();
      sequence = stat == null ? 0 : stat.sequence();
      length = stat == null ? -1 : stat.length();
    }
    if (!sameRound(s, generation, sequence, length)) {
      throw new ChunkStoreException(Status.CONFLICT, "REBUILD_MEMBER of chunk " + r.chunk()
          + ": " + what + " carries tag (" + generation + ", " + sequence + ") and " + length
          + " bytes, not the round's (" + s.generation() + ", " + s.sequence() + ") and "
          + s.length() + " bytes: rounds are never mixed; nothing was written");
    }
    if (into.hasRemaining()) {
      throw new ChunkStoreException(Status.OBJECT_LOST, "REBUILD_MEMBER of chunk " + r.chunk()
          + ": " + what + " gave " + into.position() + " of its " + s.length() + " bytes;"
          + " nothing was written");
    }
  }

  private static boolean sameRound(RebuildSource s, long generation, long sequence,
      long length) {
    return generation == s.generation() && sequence == s.sequence() && length == s.length();
  }

  /** What {@link #store} writes into the open writer, before it commits. */
  private interface Feed {
    void into(ChunkWriter writer) throws Exception;
  }

  /**
   * Stores the member (a REPLACE write with the round's tag) as {@code feed} writes it, one
   * writer of the chunk at once; commits only when {@code feed} returns, aborts when it throws.
   */
  private ChunkInfo store(RebuildMemberRequest r, TargetView target, Feed feed)
      throws Exception {
    String claim = target.id() + "/" + r.chunk().objectId();
    long deadline = System.nanoTime() + CLAIM_WAIT.toNanos();
    while (!server.claimChunk(claim)) {
      if (System.nanoTime() > deadline) {
        throw new ChunkStoreException(Status.CONFLICT, "chunk " + r.chunk() + " is being"
            + " written by another stream (waited " + CLAIM_WAIT.toMillis() + " ms)");
      }
      Thread.sleep(5);
    }
    ChunkWriter writer = null;
    try {
      writer = target.chunks().openWrite(r.chunk(), 0, WriteMode.REPLACE, r.generation(),
          r.sequence(), r.tagGeneration());
      feed.into(writer);
      return writer.commit();
    } finally {
      if (writer != null) {
        writer.abort(); // harmless after the commit
      }
      server.releaseChunk(claim);
    }
  }

  private NodeClient peers() {
    NodeClient c = peers;
    if (c == null) {
      synchronized (this) {
        if (peers == null) {
          peers = NodeClient.create(NodeClientConfig.builder().tls(tls).build());
        }
        c = peers;
      }
    }
    return c;
  }

  private ParityCodec codec(int k, int m) {
    synchronized (this) {
      if (codecs == null) {
        codecs = ParityCodecFactory.builder().backend(CodecBackend.AUTO).build();
      }
    }
    return codecs.codec(CodecGeometry.reedSolomon(k, m));
  }

  @Override
  public void close() {
    pool.shutdownNow();
    reads.shutdownNow();
    synchronized (this) {
      if (peers != null) {
        peers.close();
      }
      if (codecs != null) {
        codecs.close();
      }
    }
    if (rebuilt.get() > 0) {
      LOG.log(System.Logger.Level.INFO, "rebuilt {0} member(s), {1} bytes, for re-protection",
          rebuilt.get(), rebuiltBytes.get());
    }
  }

  private static java.util.concurrent.ThreadFactory daemons(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
