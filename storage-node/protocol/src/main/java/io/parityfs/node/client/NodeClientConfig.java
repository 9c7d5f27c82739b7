package io.parityfs.node.client;

import io.parityfs.node.protocol.FrameFormat;
import io.parityfs.node.tls.TlsConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link NodeClient}. Immutable; {@link #builder()}, {@link #toBuilder()},
 * {@link #DEFAULT}. Every value is checked when built.
 *
 * @param connectTimeout to open a TCP connection (default 5 s)
 * @param requestTimeout the longest a request waits on the node without any frame of its answer
 *     (default 30 s); after it the request fails with TIMEOUT and its connection is closed
 * @param maxConnectionsPerNode connections kept to one node (default 4)
 * @param maxInFlightPerConnection requests pipelined on one connection before another connection
 *     is opened (default 32; more are still sent once the pool is full)
 * @param maxAttempts tries of an idempotent request, the first included (default 3)
 * @param initialBackoff wait before the first retry, doubled each time (default 50 ms)
 * @param maxBackoff the longest wait between tries (default 2 s)
 * @param ioThreads Netty event loop threads (default min(4, cores))
 * @param writeFrameSize data bytes per DATA frame of a write (default 256 KiB, at most 1 MiB)
 * @param readWindow bytes of a read received but not yet consumed before the client stops reading
 *     from the connection (default 4 MiB)
 * @param writeBufferHighWater bytes queued on a connection before writers wait (default 1 MiB;
 *     they resume at half)
 * @param tls the client's TLS files (its certificate, the cluster CA), or {@link TlsConfig#OFF}
 *     for plaintext; with TLS, a node is trusted only with a node certificate of the CA naming
 *     the address the client connects to
 */
public record NodeClientConfig(
    Duration connectTimeout,
    Duration requestTimeout,
    int maxConnectionsPerNode,
    int maxInFlightPerConnection,
    int maxAttempts,
    Duration initialBackoff,
    Duration maxBackoff,
    int ioThreads,
    int writeFrameSize,
    int readWindow,
    int writeBufferHighWater,
    TlsConfig tls) {

  public static final NodeClientConfig DEFAULT = builder().build();

  public NodeClientConfig {
    Objects.requireNonNull(tls, "tls (TlsConfig.OFF for plaintext)");
    positive("connectTimeout", connectTimeout);
    positive("requestTimeout", requestTimeout);
    positive("initialBackoff", initialBackoff);
    positive("maxBackoff", maxBackoff);
    atLeast("maxConnectionsPerNode", maxConnectionsPerNode, 1);
    atLeast("maxInFlightPerConnection", maxInFlightPerConnection, 1);
    atLeast("maxAttempts", maxAttempts, 1);
    atLeast("ioThreads", ioThreads, 1);
    atLeast("writeFrameSize", writeFrameSize, 1);
    if (writeFrameSize > FrameFormat.MAX_DATA_PAYLOAD) {
      throw new IllegalArgumentException("writeFrameSize (" + writeFrameSize + ") must be <= 1 MiB");
    }
    atLeast("readWindow", readWindow, FrameFormat.MAX_DATA_PAYLOAD);
    atLeast("writeBufferHighWater", writeBufferHighWater, 2);
  }

  private static void positive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " (" + d + ") must be positive");
    }
  }

  private static void atLeast(String name, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " (" + value + ") must be >= " + min);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.connectTimeout = connectTimeout;
    b.requestTimeout = requestTimeout;
    b.maxConnectionsPerNode = maxConnectionsPerNode;
    b.maxInFlightPerConnection = maxInFlightPerConnection;
    b.maxAttempts = maxAttempts;
    b.initialBackoff = initialBackoff;
    b.maxBackoff = maxBackoff;
    b.ioThreads = ioThreads;
    b.writeFrameSize = writeFrameSize;
    b.readWindow = readWindow;
    b.writeBufferHighWater = writeBufferHighWater;
    b.tls = tls;
    return b;
  }

  /** Builds a {@link NodeClientConfig}; unset values keep their defaults. */
  public static final class Builder {
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private int maxConnectionsPerNode = 4;
    private int maxInFlightPerConnection = 32;
    private int maxAttempts = 3;
    private Duration initialBackoff = Duration.ofMillis(50);
    private Duration maxBackoff = Duration.ofSeconds(2);
    private int ioThreads = Math.min(4, Runtime.getRuntime().availableProcessors());
    private int writeFrameSize = 256 << 10;
    private int readWindow = 4 << 20;
    private int writeBufferHighWater = 1 << 20;
    private TlsConfig tls = TlsConfig.OFF;

    private Builder() {}

    public Builder connectTimeout(Duration v) { connectTimeout = v; return this; }
    public Builder requestTimeout(Duration v) { requestTimeout = v; return this; }
    public Builder maxConnectionsPerNode(int v) { maxConnectionsPerNode = v; return this; }
    public Builder maxInFlightPerConnection(int v) { maxInFlightPerConnection = v; return this; }
    public Builder maxAttempts(int v) { maxAttempts = v; return this; }
    public Builder initialBackoff(Duration v) { initialBackoff = v; return this; }
    public Builder maxBackoff(Duration v) { maxBackoff = v; return this; }
    public Builder ioThreads(int v) { ioThreads = v; return this; }
    public Builder writeFrameSize(int v) { writeFrameSize = v; return this; }
    public Builder readWindow(int v) { readWindow = v; return this; }
    public Builder writeBufferHighWater(int v) { writeBufferHighWater = v; return this; }
    public Builder tls(TlsConfig v) { tls = v; return this; }

    public NodeClientConfig build() {
      return new NodeClientConfig(connectTimeout, requestTimeout, maxConnectionsPerNode,
          maxInFlightPerConnection, maxAttempts, initialBackoff, maxBackoff, ioThreads,
          writeFrameSize, readWindow, writeBufferHighWater, tls);
    }
  }
}
