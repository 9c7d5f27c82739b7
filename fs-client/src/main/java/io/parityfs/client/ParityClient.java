package io.parityfs.client;

import io.parityfs.meta.Caller;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.LengthProbe;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.chunks.ChunkLengthProbe;
import io.parityfs.meta.targets.TargetPlacement;
import io.parityfs.meta.targets.TargetRegistry;
import io.parityfs.node.client.NodeClient;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;

/**
 * A connection to a ParityFS cluster for one caller: its ZooKeeper session (namespace, target
 * registry, leases), the storage-node protocol client and the transfer threads, shared by every
 * stream it opens. Namespace operations go through {@link #namespace()} (already acting for the
 * caller and placing new files on targets); data through {@link #create}, {@link #append} and
 * {@link #open}. Thread-safe; {@link #close()} closes everything it opened (streams still open
 * fail).
 */
public final class ParityClient implements Closeable {
  private final ClientConfig config;
  private final CuratorFramework zk;
  private final Namespace base;
  private final Namespace namespace;
  private final TargetRegistry registry;
  private final NodeClient nodes;
  private final ChunkIo chunks;
  private final ChunkLengthProbe probe;
  private final ExecutorService transfers;
  private final ChunkBuffers chunkBuffers;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ParityClient(ClientConfig config, CuratorFramework zk, Namespace base,
      TargetRegistry registry, Caller caller) {
    this.config = config;
    this.zk = zk;
    this.base = base;
    this.registry = registry;
    TargetPlacement placement = new TargetPlacement(registry, config.placement());
    this.namespace = base.as(caller).withPlacement(placement);
    this.nodes = NodeClient.create(config.nodes());
    this.chunks = new ChunkIo(nodes, new TargetLocator(registry),
        new Suspects(config.suspectWindow().toNanos(), System::nanoTime));
    this.probe = new ChunkLengthProbe(chunks, 1000);
    AtomicInteger n = new AtomicInteger();
    this.chunkBuffers = new ChunkBuffers(config.writeBufferBytes());
    this.transfers = Executors.newFixedThreadPool(config.transferThreads(), r -> {
      Thread t = new Thread(r, "pfs-transfer-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Connects: starts a ZooKeeper session (waiting up to the connection timeout), opens the
   * namespace and the target registry. A namespace that is not there is not created (unless
   * {@code config.namespace().ifMissing()} says so): see {@link #format}.
   *
   * @throws IOException when ZooKeeper cannot be reached in time or the namespace is unreadable;
   *     a {@link NamespaceException} NOT_FOUND naming the ZooKeeper ensemble, chroot and root
   *     when there is no namespace
   */
  public static ParityClient connect(ClientConfig config, Caller caller) throws IOException {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(caller, "caller");
    CuratorFramework zk = config.zooKeeper().newClient();
    zk.start();
    Namespace base = null;
    try {
      long wait = config.zooKeeper().connectionTimeout().toMillis();
      if (!zk.blockUntilConnected((int) wait, TimeUnit.MILLISECONDS)) {
        throw new IOException(config.zooKeeper().unreachable());
      }
      base = Namespace.open(zk, config.namespace());
      TargetRegistry registry = TargetRegistry.open(zk, config.registry());
      base.checkIdsAgainst(registry::highestFileId); // a target registering later: at once
      return new ParityClient(config, zk, base, registry, caller);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      zk.close();
      throw new InterruptedIOException("interrupted connecting to ZooKeeper");
    } catch (IOException | RuntimeException e) {
      if (base != null) {
        base.close();
      }
      zk.close();
      throw e;
    }
  }

  /**
   * Formats the namespace of {@code config} ({@code parityfs format}) unless it exists; its id
   * counter starts past every file id the registered storage targets hold.
   *
   * @return whether it was created (false: it was there, and is left as it is)
   * @throws IOException when ZooKeeper cannot be reached in time or written
   */
  public static boolean format(ClientConfig config) throws IOException {
    try (CuratorFramework zk = config.zooKeeper().newClient()) {
      zk.start();
      long wait = config.zooKeeper().connectionTimeout().toMillis();
      if (!zk.blockUntilConnected((int) wait, TimeUnit.MILLISECONDS)) {
        throw new IOException(config.zooKeeper().unreachable());
      }
      return Namespace.format(zk, config.namespace());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted connecting to ZooKeeper");
    }
  }

  public ClientConfig config() {
    return config;
  }

  /** The namespace, acting for this client's caller, placing new files on targets. */
  public Namespace namespace() {
    return namespace;
  }

  /**
   * The ZooKeeper client this client's session lives in (its leases are tied to that session):
   * for tools and fault tests, e.g. to end the session as an expiry would.
   */
  public CuratorFramework curator() {
    return zk;
  }

  /** The live view of the cluster's storage targets. */
  public TargetRegistry registry() {
    return registry;
  }

  /** The storage-node protocol client (admin commands use it). */
  public NodeClient nodes() {
    return nodes;
  }

  /** Creates a file (see {@link Namespace#create}) and returns a stream writing it. */
  public PfsOutputStream create(String path, CreateOptions options) throws IOException {
    FileStatus f = namespace.create(path, options.withLease(true));
    return new PfsOutputStream(this, f.path(), f, null);
  }


  /**
   * Opens an existing file for appending (takes its lease). The partial last chunk is read
   * back first, since every chunk write replaces the whole chunk.
   */
  public PfsOutputStream append(String path) throws IOException {
    FileStatus opened = namespace.append(path);
    FileStatus f = opened;
    try {
      f = fence(opened);
      long tailLength = f.length() % f.layout().chunkSize();
      ByteBuffer tail = null;
      if (tailLength > 0) {
        tail = ByteBuffer.allocate((int) tailLength);
        int index = (int) (f.length() / f.layout().chunkSize());
        if (f.holes().contains(ChunkMap.of(f.layout()).group(index))) {
          tail.position(tail.limit()); // a hole: zeros, stored whole by the stream
        }
        while (tail.hasRemaining()) {
          if (chunks.read(f.id(), f.layout(), f.repairs(), index, tail.position(),
              tail) <= 0) {
            throw new ClientException(ClientStatus.DATA_LOST, path, path
                + ": the last chunk is shorter than the file's length");
          }
        }
        tail.flip();
      }
      return new PfsOutputStream(this, f.path(), f, tail);
    } catch (IOException | RuntimeException e) {
      namespace.complete(f.path(), f.id(), -1, f.length()); // give the lease back unchanged
      throw e;
    }
  }

  /**
   * Opens an existing file for random-access writing (takes its lease, as {@link #append}):
   * overwrite, write past the end, truncate. See {@link PfsFileWriter}.
   */
  public PfsFileWriter openWriter(String path) throws IOException {
    FileStatus opened = namespace.append(path);
    try {
      return new PfsFileWriter(this, fence(opened));
    } catch (IOException | RuntimeException e) {
      // give the lease back unchanged
      namespace.complete(opened.path(), opened.id(), -1, opened.length());
      throw e;
    }
  }

  /** Creates a file (see {@link Namespace#create}) open for random-access writing. */
  public PfsFileWriter createWriter(String path, CreateOptions options) throws IOException {
    FileStatus f = namespace.create(path, options.withLease(true));
    try {
      return new PfsFileWriter(this, f);
    } catch (IOException | RuntimeException e) {
      namespace.complete(f.path(), f.id(), -1, f.length());
      throw e;
    }
  }

  /**
   * Before a new writer (append, openWriter) writes: fences the file's targets at its new
   * generation (the previous writers are refused from then on) and deletes any chunk at or past
   * its length (left by an interrupted truncate or a writer whose bytes were never committed),
   * which a later lease recovery's stored prefix would otherwise bring back. For {@code ec},
   * the data chunks past the length in the group that holds the end stay through the fence
   * (its last round may need them); the group is then stored again cut at the length and they
   * are deleted ({@link CutGroup#restoreCut}). Returns the file as committed after that.
   */
  private FileStatus fence(FileStatus f) throws IOException {
    if (probe.fenceAll(f, f.length()).cutKept() == 0) {
      return f;
    }
    return new CutGroup(this).restoreCut(f);
  }

  /**
   * Sets a closed file's length (Hadoop's {@code truncate}, POSIX {@code truncate}): takes its
   * lease, shortens it or extends it with zeros, closes it.
   */
  public void truncate(String path, long newLength) throws IOException {
    try (PfsFileWriter w = openWriter(path)) {
      w.truncate(newLength);
    }
  }

  /** Opens a file for reading (READ permission), at its current committed length. */
  public PfsInputStream open(String path) throws IOException {
    return open(path, config.readAheadBytes());
  }

  /**
   * Opens a file for reading with its own read-ahead ({@code 0} for random access: each read
   * fetches only what it needs).
   */
  public PfsInputStream open(String path, long readAheadBytes) throws IOException {
    if (readAheadBytes < 0) {
      throw new IllegalArgumentException("readAheadBytes (" + readAheadBytes + ") must be >= 0");
    }
    FileStatus f = namespace.openForRead(path);
    return new PfsInputStream(this, f.path(), f, readAheadBytes);
  }

  /**
   * Lease recovery: closes a file whose writer died (or revokes a live writer), its length
   * becoming what its targets hold. See {@link Namespace#recoverLease}.
   */
  public boolean recoverLease(String path) throws NamespaceException {
    return namespace.recoverLease(path, probe);
  }

  /** What lease recovery asks the targets: the bytes they hold for a file. */
  public LengthProbe lengthProbe() {
    return probe;
  }

  /**
   * This client's transfers of single members of groups across nodes, with their tags: what the
   * keeper ({@code io.parityfs.keeper}) builds on. Shared with this client's streams.
   */
  public MemberIo memberIo() {
    return chunks;
  }

  ChunkIo chunks() {
    return chunks;
  }

  /** Direct chunk buffers for this client's output streams. */
  ChunkBuffers chunkBuffers() {
    return chunkBuffers;
  }

  ExecutorService transfers() {
    if (closed.get()) {
      throw new IllegalStateException("client closed");
    }
    return transfers;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    transfers.shutdownNow();
    chunks.close();
    nodes.close();
    registry.close();
    base.close();
    zk.close();
  }

  /** NOT_FOUND as a status check, for callers mapping errors. */
  static boolean notFound(IOException e) {
    return e instanceof NamespaceException ne && ne.status() == NamespaceStatus.NOT_FOUND;
  }
}
