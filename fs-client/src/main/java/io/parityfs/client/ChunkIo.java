package io.parityfs.client;

import io.parityfs.client.across.GroupCodec;
import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.chunks.StoredChunk;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.ListEntry;
import io.parityfs.node.protocol.ListResponse;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One chunk's transfers. Chunk {@code i} of file {@code id} lives on {@code
 * layout.targets[i % stripeCount]} as chunk {@code (id, i)}. Every write replaces the whole
 * chunk (REPLACE: one new version, atomic on the node, and safe to retry), so a stream never
 * leaves a torn chunk behind; every transfer's frames carry CRC32C, checked at both ends, and
 * the node's array checks its own per-cell CRC32C on every read.
 *
 * <p><b>A node that moved.</b> Every request names its target, and a node that does not serve
 * it answers UNKNOWN_TARGET, so a transfer never lands on the wrong node, whoever listens at an
 * address. A node that restarted on another address may not be in this client's registry view
 * yet: when a transfer gets no node at the view's address (UNAVAILABLE, TIMEOUT or
 * SHUTTING_DOWN once the node client's own retries are spent) or the node there does not serve
 * the target (UNKNOWN_TARGET), the target's records are read again from ZooKeeper, and if they
 * name another address the transfer is sent there, once. Every transfer here is idempotent
 * (REPLACE writes, reads, lists, deletes), so sending it again is safe.
 *
 * <p><b>Failures</b> are {@link ClientException}s whose status is the node's answer mapped by
 * {@link ClientStatus#of(io.parityfs.node.protocol.Status)} (a full target NO_SPACE, a fenced
 * writer a {@link FencedException}), naming the chunk and the target; the node's
 * {@link NodeException} is the cause.
 */
final class ChunkIo implements MemberIo, AutoCloseable {
  /**
   * Tests: run before every group member write, with its target and chunk index (also before a
   * member a node rebuilds for this client, {@link #rebuildOnNode}).
   */
  static volatile java.util.function.ObjIntConsumer<String> MEMBER_WRITE_HOOK;
  /** Tests: targets treated as unreachable ({@link #cutOff}). */
  private volatile java.util.Set<String> cutOff = java.util.Set.of();

  private static final Logger LOG = LoggerFactory.getLogger(ChunkIo.class);

  private final NodeClient nodes;
  private final TargetLocator locator;
  private final Suspects suspects;
  /**
   * Runs the transfers a caller fans out and waits for: the copies after the first of a
   * mirrored chunk (the first goes in the caller's thread), the member reads of a degraded ec
   * read. Its own pool, so a transfer thread that waits for them never waits on itself.
   */
  private final ExecutorService fanOut;
  /**
   * The group sequences of this client's writes across nodes: one counter for all, so that it
   * grows with every write of a file by one writer generation (a generation is one writer's).
   */
  private final AtomicLong sequences = new AtomicLong();
  /** The parity codecs of ec layouts, made on first use (the GPU one where this client has it). */
  private final ConcurrentHashMap<Across, GroupCodec> groupCodecs = new ConcurrentHashMap<>();
  private volatile ParityCodecFactory codecs;

  ChunkIo(NodeClient nodes, TargetLocator locator, Suspects suspects) {
    this.nodes = nodes;
    this.locator = locator;
    this.suspects = suspects;
    AtomicInteger n = new AtomicInteger();
    this.fanOut = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "pfs-copy-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public void close() {
    fanOut.shutdownNow();
    ParityCodecFactory f = codecs;
    if (f != null) {
      f.close();
    }
  }

  /** The next group sequence of this client's writes (docs/across-nodes.md §3). */
  @Override
  public long nextSequence() {
    return sequences.incrementAndGet();
  }

  /**
   * The parity code of an ec:K+M layout, on the codec the factory chooses ({@code auto}: the
   * GPU when this client has one and it is faster, else the CPU), made on first use.
   */
  @Override
  public GroupCodec groupCodec(Across across) {
    return groupCodecs.computeIfAbsent(across, a -> {
      synchronized (groupCodecs) {
        if (codecs == null) {
          codecs = ParityCodecFactory.builder().backend(CodecBackend.AUTO).build();
        }
      }
      return new GroupCodec(a, codecs.codec(GroupCodec.geometry(a)));
    });
  }

  /** The chunk size of {@code layout} as a client buffer's size; FILE_TOO_LARGE when too large. */
  static int bufferSize(Layout layout, String path) throws IOException {
    if (layout.chunkSize() > Integer.MAX_VALUE - 8) {
      throw new ClientException(ClientStatus.FILE_TOO_LARGE, path, "chunk size "
          + layout.chunkSize() + " of " + path + " is too large for a client buffer");
    }
    return (int) layout.chunkSize();
  }

  static String targetOf(Layout layout, long index) {
    return copyTargets(layout, index).get(0);
  }

  /**
   * The targets holding chunk {@code index}: its copies in copy order for {@code mirror:N}
   * (docs/across-nodes.md §2), else its one target.
   */
  static List<String> copyTargets(Layout layout, long index) {
    if (layout.targets().size() < layout.stripeCount()) {
      throw new IllegalStateException("layout has " + layout.targets().size()
          + " targets for a stripe count of " + layout.stripeCount() + ": not placed");
    }
    ChunkMap map = ChunkMap.of(layout);
    List<String> out = new ArrayList<>(map.copies());
    for (int c = 0; c < map.copies(); c++) {
      out.add(layout.targets().get(map.copyPosition(index, c)));
    }
    return out;
  }

  /**
   * Stores {@code data} (its remaining bytes, not consumed) as the whole chunk, as writer
   * {@code generation} of the file.
   *
   * @param stale where copies of a mirrored chunk left out go, their targets down (null: every
   *     copy must be stored)
   * @throws FencedException when the target has seen a newer generation of the file: this
   *     writer's lease was recovered or the file reopened; nothing was stored
   * @throws ClientException with the status of the node's answer (NO_SPACE: the target is full)
   */
  void write(long fileId, long generation, Layout layout, int index, ByteBuffer data,
      StaleMembers stale) throws IOException {
    long sequence = layout.across().isNone() ? 0 : sequences.incrementAndGet();
    List<String> copies = copyTargets(layout, index);
    if (copies.size() == 1) {
      writeMember(copies.get(0), fileId, generation, sequence, index, data);
      return;
    }
    // mirror:N: the copies in parallel, under one tag; acknowledged when all are stored, or
    // (stale given) when enough are and the others' targets are down: those are recorded
    boolean[] out = leaveOut(copies, stale);
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int c = 0; c < copies.size(); c++) {
      String target = copies.get(c);
      writes.add(out[c] ? null : CompletableFuture.runAsync(() -> {
        try {
          writeMember(target, fileId, generation, sequence, index, data);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      }, fanOut));
    }
    String what = "chunk " + index + " of file " + fileId;
    CompletableFuture<Void> done = (stale != null ? stale : StaleMembers.every(copies.size()))
        .settle(index, copies, writes, 0, what);
    try {
      done.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof IOException io ? io
          : new ClientException(ClientStatus.IO_ERROR, null, what + ": " + e.getCause(), e);
    }
  }

  /**
   * Which of a group's member targets a write leaves out from the start: those known down or
   * suspect ({@link Suspects}), when the others are enough ({@link StaleMembers#least()}); none
   * when {@code stale} is null or they are not.
   */
  boolean[] leaveOut(List<String> targets, StaleMembers stale) {
    return leaveOut(targets, stale, stale == null ? 0 : stale.least());
  }

  /** {@link #leaveOut(List, StaleMembers)} for a write that needs {@code least} of them. */
  boolean[] leaveOut(List<String> targets, StaleMembers stale, int least) {
    boolean[] out = new boolean[targets.size()];
    if (stale == null) {
      return out;
    }
    int down = 0;
    for (int i = 0; i < out.length; i++) {
      out[i] = !healthy(targets.get(i));
      down += out[i] ? 1 : 0;
    }
    if (down > 0 && out.length - down < least) {
      java.util.Arrays.fill(out, false); // try them all: the registry or the window may lag
    }
    return out;
  }

  /**
   * {@link #writeMember(String, long, long, long, int, ByteBuffer)} with the tag (tagGeneration,
   * sequence), fenced as writer {@code generation}: a repairer joining a round an earlier writer
   * stored, with its exact tag (audit N1).
   */
  @Override
  public void writeMember(String target, long fileId, long generation, long sequence,
      long tagGeneration, int index, ByteBuffer data) throws IOException {
    java.util.function.ObjIntConsumer<String> hook = MEMBER_WRITE_HOOK;
    if (hook != null) {
      hook.accept(target, index); // tests: may block this member's write
    }
    ChunkId chunk = new ChunkId(fileId, index);
    onTarget(target, at -> nodes.writeChunk(at.node(), at.wireId(), chunk, 0,
        WriteMode.REPLACE, 0, generation, sequence, tagGeneration, data), (at, e) -> {
          if (e.status() == Status.STALE_GENERATION) {
            return new FencedException(chunk, at.targetId(), "writing chunk " + index
                + " of file " + fileId + " to target " + at.targetId() + ": this writer"
                + " (generation " + generation + ") was fenced: its lease was recovered or the"
                + " file was reopened by another writer; nothing after its last hflush is the"
                + " file's (" + e.getMessage() + ")", e);
          }
          return ClientException.of(e, chunk, at.targetId(), "writing chunk " + index
              + " of file " + fileId + " to target " + at.targetId() + " on " + at.node() + ": "
              + e.getMessage());
        });
  }

  /**
   * Whether members are rebuilt by their destination nodes where they can (system property
   * {@code parityfs.rebuildOnNodes}, default true; false: by this client, as before REBUILD_MEMBER,
   * for a comparison or a node whose rebuilds misbehave).
   */
  static final boolean REBUILD_ON_NODES =
      Boolean.parseBoolean(System.getProperty("parityfs.rebuildOnNodes", "true"));
  /** Targets whose nodes cannot rebuild members themselves (older nodes, a client certificate). */
  private final java.util.Set<String> noNodeRebuild = ConcurrentHashMap.newKeySet();
  /** Members rebuilt by their destination nodes (REBUILD_MEMBER); for tests and reports. */
  final AtomicLong rebuiltOnNodes = new AtomicLong();

  /**
   * Asks the node of target {@code onto} to rebuild member {@code member} of an ec:K+M group
   * from {@code sources} itself and store it as chunk {@code index} with the round's tag
   * (tagGeneration, sequence), fenced as writer {@code generation} (REBUILD_MEMBER,
   * docs/across-nodes.md §5): the K sources go from their nodes to that node, not through this
   * client. Returns the bytes it stored, or -1 when its node cannot (it predates the opcode, or
   * this client's certificate may not ask it): the caller rebuilds the member itself, and this
   * client does not ask that target again.
   *
   * @throws FencedException when the target has seen a newer generation of the file
   * @throws ClientException for any other failure (a source of another round: CONFLICT)
   */
  @Override
  public long rebuildOnNode(String onto, long fileId, long generation, long sequence,
      long tagGeneration, int index, int k, int m, int member, long length, long groupLength,
      List<RebuildSource> sources) throws IOException {
    if (!REBUILD_ON_NODES || noNodeRebuild.contains(onto)) {
      return -1;
    }
    java.util.function.ObjIntConsumer<String> hook = MEMBER_WRITE_HOOK;
    if (hook != null) {
      hook.accept(onto, index); // tests: a member the node writes for this client
    }
    List<io.parityfs.node.protocol.RebuildSource> wire = new ArrayList<>(sources.size());
    for (RebuildSource s : sources) {
      if (s.target() == null) {
        wire.add(io.parityfs.node.protocol.RebuildSource.zeros(s.member(), s.index()));
        continue;
      }
      TargetLocator.Location at = locator.locate(s.target());
      wire.add(new io.parityfs.node.protocol.RebuildSource(s.member(), at.wireId(),
          at.node().getHostString(), at.node().getPort(), s.index(), tagGeneration, sequence,
          s.length()));
    }
    ChunkId chunk = new ChunkId(fileId, index);
    try {
      ChunkStat stat = onTarget(onto, at -> nodes.rebuildMember(at.node(),
          new io.parityfs.node.protocol.RebuildMemberRequest(0, at.wireId(), chunk, generation,
              tagGeneration, sequence, k, m, member, length, groupLength, wire)), (at, e) -> {
                if (e.status() == Status.STALE_GENERATION) {
                  return new FencedException(chunk, at.targetId(), "rebuilding chunk " + index
                      + " of file " + fileId + " on target " + at.targetId() + ": generation "
                      + generation + " was fenced (" + e.getMessage() + ")", e);
                }
                return ClientException.of(e, chunk, at.targetId(), "rebuilding chunk " + index
                    + " of file " + fileId + " on target " + at.targetId() + " (" + at.node()
                    + "): " + e.getMessage());
              });
      rebuiltOnNodes.incrementAndGet();
      return stat.length();
    } catch (ClientException e) {
      if (e.getCause() instanceof NodeException ne && (ne.status() == Status.UNKNOWN_OPCODE
          || ne.status() == Status.PERMISSION_DENIED)) {
        noNodeRebuild.add(onto);
        LOG.info("target {}: its node does not rebuild members itself ({}): this client"
            + " rebuilds them", onto, ne.status());
        return -1;
      }
      throw e;
    }
  }

  /**
   * Deletes chunk {@code index} of the file as writer {@code generation} (fenced as a write),
   * every copy of it.
   */
  void delete(long fileId, long generation, Layout layout, int index) throws IOException {
    delete(fileId, generation, layout, index, null);
  }

  /**
   * {@link #delete(long, long, Layout, int)}; for a file with protection across nodes, a copy
   * on a target that is down is added to {@code stale} (its chunk or group) instead of failing,
   * so catch-up deletes it once the target is back ({@code io.parityfs.keeper.Repairer}'s trim).
   */
  void delete(long fileId, long generation, Layout layout, int index, StaleMembers stale)
      throws IOException {
    long unit = ChunkMap.of(layout).group(index);
    for (String target : copyTargets(layout, index)) {
      deleteMember(target, fileId, index, generation, layout.across().isNone() ? null : stale,
          unit);
    }
  }

  /** Deletes one member; a target that is down goes in {@code stale} (if given) as {@code unit}. */
  void deleteMember(String target, long fileId, int index, long generation, StaleMembers stale,
      long unit) throws IOException {
    try {
      delete(target, fileId, index, generation);
    } catch (ClientException e) {
      if (stale == null || !StaleMembers.targetDown(e)) {
        throw e;
      }
      stale.add(target, unit);
    }
  }

  /**
   * Reads into {@code dst} (up to its remaining bytes) from {@code offset} of the chunk. For
   * {@code mirror:N}, from the first copy that answers: copies on targets the registry knows to
   * be offline, or whose node failed a transfer in the last seconds ({@link Suspects}), are
   * tried last, so a reader does not wait a timeout per chunk on a node known to be down.
   *
   * <p>Members the file's repair record names ({@code stale}: a write left them out while
   * their targets were down) are never read: another copy, or a decode from the group's other
   * members, serves them.
   *
   * @return the bytes read: fewer only at the end of the chunk
   */
  @Override
  public int read(long fileId, Layout layout, Repairs stale, int index, long offset,
      ByteBuffer dst) throws IOException {
    List<String> copies = copyTargets(layout, index);
    if (layout.across().isErasureCoded()) {
      return readCoded(fileId, layout, stale, index, offset, dst, copies.get(0));
    }
    if (copies.size() == 1) {
      return readCopy(copies.get(0), fileId, index, offset, dst);
    }
    copies = new ArrayList<>(copies);
    copies.removeIf(t -> stale.stale(t, index));
    if (copies.isEmpty()) {
      throw new ClientException(ClientStatus.DATA_LOST, null, "chunk " + index + " of file "
          + fileId + ": every copy is in the file's repair record (" + stale + ")");
    }
    return MirrorReads.read(this, fileId, index, offset, dst,
        suspects.healthyFirst(copies, locator));
  }

  /**
   * A data chunk of an ec:K+M file: from its target when that is healthy and answers, else
   * decoded from K other members of its group ({@link GroupReads}).
   */
  private int readCoded(long fileId, Layout layout, Repairs stale, int index, long offset,
      ByteBuffer dst, String target) throws IOException {
    if (stale.stale(target, ChunkMap.of(layout).group(index))) {
      return new GroupReads(this).read(fileId, layout, stale, index, offset, dst);
    }
    boolean healthy = suspects.healthy(target, locator);
    ClientException direct = null;
    if (healthy) {
      try {
        return readDirect(target, fileId, index, offset, dst);
      } catch (ClientException e) {
        if (!servedElsewhere(e)) {
          throw e;
        }
        noteFailure(target, e);
        direct = e;
      }
    }
    try {
      return new GroupReads(this).read(fileId, layout, stale, index, offset, dst);
    } catch (IOException e) {
      if (!healthy) {
        try {
          return readDirect(target, fileId, index, offset, dst); // the registry may lag
        } catch (ClientException again) {
          direct = again;
        }
      }
      if (direct != null) {
        e.addSuppressed(direct);
      }
      throw e;
    }
  }

  /** {@link #readCopy} that leaves {@code dst} as it was when it fails. */
  private int readDirect(String target, long fileId, int index, long offset, ByteBuffer dst)
      throws IOException {
    ByteBuffer into = dst.duplicate();
    int n = readCopy(target, fileId, index, offset, into);
    dst.position(into.position());
    return n;
  }

  /** Whether {@code target} is worth trying first ({@link Suspects#healthy}). */
  @Override
  public boolean healthy(String target) {
    return !cutOff.contains(target) && suspects.healthy(target, locator);
  }

  @Override
  public boolean reachable(String target) {
    return !cutOff.contains(target) && Suspects.online(target, locator);
  }

  /**
   * Tests: the targets this client treats as unreachable from now on (every transfer to them
   * fails UNAVAILABLE at once), as if their nodes were down, so a model test can read with any
   * M nodes "down" without stopping them.
   */
  void cutOff(java.util.Set<String> targets) {
    cutOff = java.util.Set.copyOf(targets);
  }

  /** The pool for transfers a caller fans out and waits for (see {@link #fanOut}). */
  @Override
  public ExecutorService fanOut() {
    return fanOut;
  }

  /**
   * Reads chunk {@code index} on {@code target} from {@code offset} into {@code dst} (up to its
   * remaining bytes; fewer at the end of the chunk) and returns the stat of the version read (its group tag); empty when the target answers that it has no such chunk.
   * Other failures are {@link ClientException}s, as {@link #read}'s.
   */
  @Override
  public Optional<ChunkStat> readMember(String target, long fileId, int index, long offset,
      ByteBuffer dst) throws IOException {
    return readAgainIfReplaced(dst, () -> readMemberOnce(target, fileId, index, offset, dst));
  }

  private Optional<ChunkStat> readMemberOnce(String target, long fileId, int index, long offset,
      ByteBuffer dst) throws IOException {
    ChunkId chunk = new ChunkId(fileId, index);
    try {
      return Optional.of(onTarget(target, at -> nodes.readChunkWithStat(at.node(), at.wireId(),
          chunk, offset, dst), (at, e) -> ClientException.of(e, chunk, at.targetId(), "reading"
              + " member " + index + " of file " + fileId + " from target " + at.targetId()
              + " on " + at.node() + ": " + e.getMessage())));
    } catch (ClientException e) {
      if (e.getCause() instanceof NodeException ne && ne.status() == Status.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * The stat of chunk {@code index} on {@code target} (its version's length and group tag);
   * empty when the target has no such chunk or cannot be reached now.
   */
  @Override
  public Optional<ChunkStat> statMember(String target, long fileId, int index) throws IOException {
    ChunkId chunk = new ChunkId(fileId, index);
    try {
      return Optional.of(onTarget(target, at -> nodes.stat(at.node(), at.wireId(), chunk),
          (at, e) -> ClientException.of(e, chunk, at.targetId(), "stat of member " + index
              + " of file " + fileId + " on target " + at.targetId() + ": " + e.getMessage())));
    } catch (ClientException e) {
      if (servedElsewhere(e)) {
        noteFailure(target, e);
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * Makes {@code target} suspect after a failed transfer that says its node is gone or slow
   * (UNAVAILABLE) or no longer serves it (TARGET_NOT_FOUND); not after one that says only this
   * chunk is missing or lost there, which tells nothing about the node's other chunks (and
   * writers leave suspect targets out).
   */
  void noteFailure(String target, ClientException e) {
    if (cutOff.contains(target)) {
      return; // a test's node loss: not a suspect once the test puts it back
    }
    if (e.status() == ClientStatus.UNAVAILABLE || e.status() == ClientStatus.TARGET_NOT_FOUND) {
      suspects.failed(target);
    }
  }

  /**
   * Whether a failed read of one copy may succeed on another: the node is gone or slow, or its
   * copy is missing or lost; not a caller mistake (INVALID_ARGUMENT) or a closed client.
   */
  static boolean servedElsewhere(ClientException e) {
    return switch (e.status()) {
      case UNAVAILABLE, DATA_LOST, IO_ERROR, TARGET_NOT_FOUND -> true;
      default -> false;
    };
  }

  int readCopy(String target, long fileId, int index, long offset, ByteBuffer dst)
      throws IOException {
    return readAgainIfReplaced(dst, () -> readCopyOnce(target, fileId, index, offset, dst));
  }

  /** Reads of a version replaced while they were served: at most this many tries. */
  private static final int REPLACED_TRIES = 3;

  /** A read of {@code dst}'s bytes, one request. */
  private interface Read<T> {
    T read() throws IOException;
  }

  /**
   * Runs {@code read}, again from {@code dst}'s position when it failed CONFLICT: the version
   * it was reading was replaced under it (a writer's REPLACE committed, and its files went).
   * Each try is one request, so it reads one version whole: the newer one.
   */
  private static <T> T readAgainIfReplaced(ByteBuffer dst, Read<T> read) throws IOException {
    int start = dst.position();
    for (int attempt = 1; ; attempt++) {
      try {
        return read.read();
      } catch (ClientException e) {
        if (e.status() != ClientStatus.CONFLICT || attempt == REPLACED_TRIES) {
          throw e;
        }
        dst.position(start);
      }
    }
  }

  private int readCopyOnce(String target, long fileId, int index, long offset, ByteBuffer dst)
      throws IOException {
    ChunkId chunk = new ChunkId(fileId, index);
    return onTarget(target, at -> nodes.readChunk(at.node(), at.wireId(),
        chunk, offset, dst), (at, e) -> {
          if (e.status() == Status.NOT_FOUND) {
            return ClientException.of(e, chunk, at.targetId(), "chunk " + index + " of file "
                + fileId + " is missing on target " + at.targetId() + " (" + at.node() + ")");
          }
          return ClientException.of(e, chunk, at.targetId(), "reading chunk " + index
              + " of file " + fileId + " from target " + at.targetId() + " on " + at.node()
              + ": " + e.getMessage());
        });
  }

  /** Chunk listing, as the cluster manager's {@link ChunkService} sees it (lease recovery). */
  @Override
  public List<String> targets() {
    return locator.targetIds();
  }

  @Override
  public ChunkPage list(String targetId, long fileId, long cursor, int limit) throws IOException {
    ListResponse page = onTarget(targetId,
        at -> nodes.list(at.node(), at.wireId(), fileId, cursor, limit),
        (at, e) -> ClientException.of(e, null, at.targetId(), "listing the chunks of file "
            + fileId + " on target " + at.targetId() + " (" + at.node() + "): "
            + e.getMessage()));
    List<StoredChunk> out = new ArrayList<>(page.entries().size());
    for (ListEntry e : page.entries()) {
      out.add(new StoredChunk(e.chunk().fileId(), e.chunk().chunkIndex(), e.length(),
          e.modifiedMillis()));
    }
    return new ChunkPage(out, page.hasMore() ? page.nextCursor() : ChunkService.END);
  }

  @Override
  public boolean delete(String targetId, long fileId, int index) throws IOException {
    ChunkId chunk = new ChunkId(fileId, index);
    return onTarget(targetId, at -> nodes.delete(at.node(), at.wireId(), chunk),
        (at, e) -> deleteFailed(at, chunk, e, -1));
  }

  /**
   * @throws FencedException when the target has seen a newer writer generation of the file
   */
  @Override
  public boolean delete(String targetId, long fileId, int index, long generation)
      throws IOException {
    ChunkId chunk = new ChunkId(fileId, index);
    return onTarget(targetId, at -> nodes.delete(at.node(), at.wireId(), chunk, generation),
        (at, e) -> deleteFailed(at, chunk, e, generation));
  }

  private static ClientException deleteFailed(TargetLocator.Location at, ChunkId chunk,
      NodeException e, long generation) {
    String what = "deleting chunk " + chunk.chunkIndex() + " of file " + chunk.fileId()
        + " on target " + at.targetId();
    if (e.status() == Status.STALE_GENERATION) {
      return new FencedException(chunk, at.targetId(), what + ": this writer (generation "
          + generation + ") was fenced (" + e.getMessage() + ")", e);
    }
    return ClientException.of(e, chunk, at.targetId(), what + " (" + at.node() + "): "
        + e.getMessage());
  }

  /**
   * Runs {@code transfer} at the target's address in the registry view; where the node there is
   * gone or does not serve the target, once more at the address its records in ZooKeeper give
   * now, if that is another (see the class comment). A failure is thrown as {@code failure}
   * makes it, with the location of the last try.
   */
  private <T> T onTarget(String targetId, Transfer<T> transfer, Failure failure)
      throws IOException {
    TargetLocator.Location at = locator.locate(targetId);
    if (cutOff.contains(targetId)) {
      throw failure.of(at, new NodeException(Status.UNAVAILABLE, "target " + targetId
          + " is cut off from this client (a test's node loss)"));
    }
    try {
      T done = transfer.at(at);
      suspects.answered(targetId);
      return done;
    } catch (NodeException e) {
      if (!mayHaveMoved(e.status())) {
        suspects.answered(targetId); // its node answered: about the chunk, not itself
        throw failure.of(at, e);
      }
      TargetLocator.Location now;
      try {
        now = locator.relocate(targetId);
      } catch (IOException refresh) {
        ClientException f = failure.of(at, e);
        f.addSuppressed(refresh);
        throw f;
      }
      if (now.node().equals(at.node())) {
        throw failure.of(at, e);
      }
      LOG.info("target {}: {} on {}; its records in ZooKeeper now"
          + " place it on {}: trying there", targetId, e.status(), at.node(), now.node());
      try {
        return transfer.at(now);
      } catch (NodeException again) {
        throw failure.of(now, again);
      }
    }
  }

  /** Statuses after which the target may be at another address than the one tried. */
  static boolean mayHaveMoved(Status s) {
    return s == Status.UNAVAILABLE || s == Status.TIMEOUT || s == Status.SHUTTING_DOWN
        || s == Status.UNKNOWN_TARGET;
  }

  /** One transfer to a target at a location. */
  @FunctionalInterface
  private interface Transfer<T> {
    T at(TargetLocator.Location at) throws IOException;
  }

  /** The exception a failed transfer throws, from where it was sent and the node's answer. */
  @FunctionalInterface
  private interface Failure {
    ClientException of(TargetLocator.Location at, NodeException e);
  }
}
