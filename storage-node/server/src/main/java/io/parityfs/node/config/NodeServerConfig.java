package io.parityfs.node.config;

import io.parityfs.node.protocol.FrameFormat;
import io.parityfs.node.tls.TlsConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a node's network server ({@code node.net.NettyNodeServer}). Immutable; {@link #DEFAULT} or {@link #builder()}.
 *
 * @param ioThreads event loop threads (decode, route, encode; never block)
 * @param workerThreads threads of the node's worker pool, where every array call runs
 * @param maxRequestsPerConnection requests in hand on one connection before the node stops
 *     reading from it (resumes at half)
 * @param maxBytesPerConnection WRITE data received on one connection and not yet handed to the
 *     array before the node stops reading from it (resumes at half)
 * @param maxRequestsPerNode requests in hand on the whole node; beyond, new requests are answered
 *     BUSY before they have any effect
 * @param maxBytesPerNode WRITE data in hand on the whole node; beyond, new WRITEs are answered BUSY
 * @param idleTimeout a connection holding a partial frame or an open WRITE that sends nothing for
 *     this long is closed
 * @param drainTimeout how long closing the server waits for requests in flight
 * @param claimWait how long a WRITE of a chunk that another stream is writing waits for it to
 *     end (typically the same writer's earlier, timed-out attempt, still committing) before it
 *     is refused CONFLICT
 * @param readFrameSize DATA payload of READ answers (at most 1 MiB)
 * @param writeBufferHighWater outbound bytes per connection before it is unwritable (low: half)
 * @param maxConnections open connections on the whole node; a connection beyond is closed as it
 *     is accepted, before its TLS handshake
 * @param maxConnectionsPerPeer open connections from one peer address; beyond, the same
 * @param maxPartialFrameBytes bytes of frames received in part, summed over every connection: a
 *     connection whose partial frame would take the sum past this is closed (the bound on what
 *     peers that start frames and never finish them make the node hold)
 * @param maxListsInProgress LIST requests running at once on the node (each reads the directory
 *     of every drive); a LIST beyond waits for a place
 * @param listWait how long a LIST waits for a place (on its worker thread) before it is answered
 *     BUSY
 * @param nativeTransport use epoll when available (else NIO)
 * @param tls the node's TLS files (mutual TLS 1.3, docs/security.md), or {@link TlsConfig#OFF}:
 *     plaintext, every peer trusted, a warning at start
 */
public record NodeServerConfig(
    int ioThreads,
    int workerThreads,
    int maxRequestsPerConnection,
    long maxBytesPerConnection,
    int maxRequestsPerNode,
    long maxBytesPerNode,
    Duration idleTimeout,
    Duration drainTimeout,
    Duration claimWait,
    int readFrameSize,
    int writeBufferHighWater,
    int maxConnections,
    int maxConnectionsPerPeer,
    long maxPartialFrameBytes,
    int maxListsInProgress,
    Duration listWait,
    boolean nativeTransport,
    TlsConfig tls) {
  /** The most bytes one frame can have (fixed part, the largest header and payload). */
  public static final long LARGEST_FRAME = FrameFormat.FIXED_LENGTH
      + (long) FrameFormat.MAX_HEADER_LENGTH + FrameFormat.MAX_PAYLOAD_LENGTH;
  public static final NodeServerConfig DEFAULT = builder().build();

  public NodeServerConfig {
    Objects.requireNonNull(tls, "tls (TlsConfig.OFF for plaintext)");
    positive("ioThreads", ioThreads);
    positive("workerThreads", workerThreads);
    positive("maxRequestsPerConnection", maxRequestsPerConnection);
    positive("maxBytesPerConnection", maxBytesPerConnection);
    positive("maxRequestsPerNode", maxRequestsPerNode);
    positive("maxBytesPerNode", maxBytesPerNode);
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(drainTimeout, "drainTimeout");
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("idleTimeout (" + idleTimeout + ") must be positive");
    }
    Objects.requireNonNull(claimWait, "claimWait");
    if (claimWait.isNegative()) {
      throw new IllegalArgumentException("claimWait (" + claimWait + ") must be >= 0");
    }
    if (drainTimeout.isNegative()) {
      throw new IllegalArgumentException("drainTimeout (" + drainTimeout + ") must be >= 0");
    }
    if (readFrameSize < 4096 || readFrameSize > (1 << 20)) {
      throw new IllegalArgumentException("readFrameSize (" + readFrameSize
          + ") must be in 4096..1048576");
    }
    positive("maxConnections", maxConnections);
    positive("maxConnectionsPerPeer", maxConnectionsPerPeer);
    positive("maxListsInProgress", maxListsInProgress);
    Objects.requireNonNull(listWait, "listWait");
    if (listWait.isNegative()) {
      throw new IllegalArgumentException("listWait (" + listWait + ") must be >= 0");
    }
    if (maxPartialFrameBytes < LARGEST_FRAME) {
      throw new IllegalArgumentException("maxPartialFrameBytes (" + maxPartialFrameBytes
          + ") must be at least one frame of the largest size (" + LARGEST_FRAME
          + ")");
    }
    if (writeBufferHighWater < 64 << 10) {
      throw new IllegalArgumentException("writeBufferHighWater (" + writeBufferHighWater
          + ") must be >= 65536");
    }
  }

  private static void positive(String name, long v) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + " (" + v + ") must be positive");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.ioThreads = ioThreads;
    b.workerThreads = workerThreads;
    b.maxRequestsPerConnection = maxRequestsPerConnection;
    b.maxBytesPerConnection = maxBytesPerConnection;
    b.maxRequestsPerNode = maxRequestsPerNode;
    b.maxBytesPerNode = maxBytesPerNode;
    b.idleTimeout = idleTimeout;
    b.drainTimeout = drainTimeout;
    b.claimWait = claimWait;
    b.readFrameSize = readFrameSize;
    b.writeBufferHighWater = writeBufferHighWater;
    b.maxConnections = maxConnections;
    b.maxConnectionsPerPeer = maxConnectionsPerPeer;
    b.maxPartialFrameBytes = maxPartialFrameBytes;
    b.maxListsInProgress = maxListsInProgress;
    b.listWait = listWait;
    b.nativeTransport = nativeTransport;
    b.tls = tls;
    return b;
  }

  /** Defaults: the values docs/protocol.md suggests (64 requests or 8 MiB per connection, 60 s). */
  public static final class Builder {
    private int ioThreads = Math.min(4, Runtime.getRuntime().availableProcessors());
    private int workerThreads = 32;
    private int maxRequestsPerConnection = 64;
    private long maxBytesPerConnection = 8L << 20;
    private int maxRequestsPerNode = 4096;
    private long maxBytesPerNode = 512L << 20;
    private Duration idleTimeout = Duration.ofSeconds(60);
    private Duration drainTimeout = Duration.ofSeconds(10);
    private Duration claimWait = Duration.ofSeconds(30);
    private int readFrameSize = 1 << 20;
    private int writeBufferHighWater = 2 << 20;
    // 32 clients of 4 connections each (the load test) from one address stay far inside
    private int maxConnections = 4096;
    private int maxConnectionsPerPeer = 512;
    private long maxPartialFrameBytes = 1L << 30;
    private int maxListsInProgress = 8;
    private Duration listWait = Duration.ofSeconds(10);
    private boolean nativeTransport = true;
    private TlsConfig tls = TlsConfig.OFF;

    private Builder() {}

    public Builder ioThreads(int v) { ioThreads = v; return this; }
    public Builder workerThreads(int v) { workerThreads = v; return this; }
    public Builder maxRequestsPerConnection(int v) { maxRequestsPerConnection = v; return this; }
    public Builder maxBytesPerConnection(long v) { maxBytesPerConnection = v; return this; }
    public Builder maxRequestsPerNode(int v) { maxRequestsPerNode = v; return this; }
    public Builder maxBytesPerNode(long v) { maxBytesPerNode = v; return this; }
    public Builder idleTimeout(Duration v) { idleTimeout = v; return this; }
    public Builder drainTimeout(Duration v) { drainTimeout = v; return this; }
    public Builder claimWait(Duration v) { claimWait = v; return this; }
    public Builder readFrameSize(int v) { readFrameSize = v; return this; }
    public Builder writeBufferHighWater(int v) { writeBufferHighWater = v; return this; }
    public Builder maxConnections(int v) { maxConnections = v; return this; }
    public Builder maxConnectionsPerPeer(int v) { maxConnectionsPerPeer = v; return this; }
    public Builder maxPartialFrameBytes(long v) { maxPartialFrameBytes = v; return this; }
    public Builder maxListsInProgress(int v) { maxListsInProgress = v; return this; }
    public Builder listWait(Duration v) { listWait = v; return this; }
    public Builder nativeTransport(boolean v) { nativeTransport = v; return this; }
    public Builder tls(TlsConfig v) { tls = v; return this; }

    public NodeServerConfig build() {
      return new NodeServerConfig(ioThreads, workerThreads, maxRequestsPerConnection,
          maxBytesPerConnection, maxRequestsPerNode, maxBytesPerNode, idleTimeout, drainTimeout,
          claimWait, readFrameSize, writeBufferHighWater, maxConnections, maxConnectionsPerPeer,
          maxPartialFrameBytes, maxListsInProgress, listWait, nativeTransport, tls);
    }
  }
}
