package io.parityfs.client;

import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.targets.PlacementConfig;
import io.parityfs.meta.targets.TargetRegistryConfig;
import io.parityfs.node.client.NodeClientConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of a {@link ParityClient}; {@link #builder(ZooKeeperSettings)} starts from
 * the defaults. Every check fails at build time, naming the value.
 *
 * @param zooKeeper the cluster's ensemble, chroot and credentials
 * @param namespace the namespace's settings (its root, permissions, caches)
 * @param registry the target registry's settings (offline timeouts)
 * @param placement how new files' targets are chosen
 * @param nodes the storage-node protocol client's settings (timeouts, retries, pools)
 * @param writeBufferBytes memory one output stream may hold for chunks not yet stored
 *     (write-behind), at least two chunks whatever this says; default 64 MiB
 * @param writesPerTarget chunk uploads one stream keeps in flight to one target; default 2
 * @param readAheadBytes bytes a sequential input stream fetches ahead of its position;
 *     default 32 MiB (0: no read-ahead)
 * @param readRequestBytes bytes asked of a node per read request; default 4 MiB
 * @param transferThreads threads moving chunk data for all streams of the client; default 32
 * @param suspectWindow how long a target whose transfer failed is tried last by readers that
 *     have another source for its chunks (mirror copies); default 10 s (docs/across-nodes.md §4)
 * @param writeMargin members above the least a group can be read from (K for ec:K+M, one copy
 *     for mirror:N) that a write must still store when some of its targets are down, capped at
 *     M − 1 (N − 2): with fewer the write fails; the members it leaves out go in the file's
 *     repair record (docs/across-nodes.md §3); default 1, 0..4
 */
public record ClientConfig(ZooKeeperSettings zooKeeper, NamespaceConfig namespace,
    TargetRegistryConfig registry, PlacementConfig placement, NodeClientConfig nodes,
    long writeBufferBytes, int writesPerTarget, long readAheadBytes, int readRequestBytes,
    int transferThreads, Duration suspectWindow, int writeMargin) {

  public ClientConfig {
    Objects.requireNonNull(zooKeeper, "zooKeeper");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(nodes, "nodes");
    if (writeBufferBytes < 0) {
      throw new IllegalArgumentException("writeBufferBytes (" + writeBufferBytes
          + ") must be >= 0");
    }
    if (writesPerTarget < 1 || writesPerTarget > 64) {
      throw new IllegalArgumentException("writesPerTarget (" + writesPerTarget
          + ") must be in [1, 64]");
    }
    if (readAheadBytes < 0) {
      throw new IllegalArgumentException("readAheadBytes (" + readAheadBytes + ") must be >= 0");
    }
    if (readRequestBytes < 4096 || readRequestBytes > (64 << 20)) {
      throw new IllegalArgumentException("readRequestBytes (" + readRequestBytes
          + ") must be in [4096, 64 MiB]");
    }
    if (transferThreads < 1 || transferThreads > 1024) {
      throw new IllegalArgumentException("transferThreads (" + transferThreads
          + ") must be in [1, 1024]");
    }
    Objects.requireNonNull(suspectWindow, "suspectWindow");
    if (suspectWindow.isNegative() || suspectWindow.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("suspectWindow (" + suspectWindow
          + ") must be in [0, 1 h]");
    }
    if (writeMargin < 0 || writeMargin > 4) {
      throw new IllegalArgumentException("writeMargin (" + writeMargin + ") must be in [0, 4]");
    }
  }

  public static Builder builder(ZooKeeperSettings zooKeeper) {
    return new Builder(zooKeeper);
  }

  public Builder toBuilder() {
    Builder b = new Builder(zooKeeper);
    b.namespace = namespace;
    b.registry = registry;
    b.placement = placement;
    b.nodes = nodes;
    b.writeBufferBytes = writeBufferBytes;
    b.writesPerTarget = writesPerTarget;
    b.readAheadBytes = readAheadBytes;
    b.readRequestBytes = readRequestBytes;
    b.transferThreads = transferThreads;
    b.suspectWindow = suspectWindow;
    b.writeMargin = writeMargin;
    return b;
  }

  /** Builder of {@link ClientConfig}. */
  public static final class Builder {
    private ZooKeeperSettings zooKeeper;
    private NamespaceConfig namespace = NamespaceConfig.DEFAULT;
    private TargetRegistryConfig registry = TargetRegistryConfig.DEFAULT;
    private PlacementConfig placement = PlacementConfig.DEFAULT;
    private NodeClientConfig nodes = NodeClientConfig.DEFAULT;
    private long writeBufferBytes = 64L << 20;
    private int writesPerTarget = 2;
    private long readAheadBytes = 32L << 20;
    private int readRequestBytes = 4 << 20;
    private int transferThreads = 32;
    private Duration suspectWindow = Duration.ofSeconds(10);
    private int writeMargin = 1;

    private Builder(ZooKeeperSettings zooKeeper) {
      this.zooKeeper = zooKeeper;
    }

    public Builder zooKeeper(ZooKeeperSettings v) {
      zooKeeper = v;
      return this;
    }

    public Builder namespace(NamespaceConfig v) {
      namespace = v;
      return this;
    }

    public Builder registry(TargetRegistryConfig v) {
      registry = v;
      return this;
    }

    public Builder placement(PlacementConfig v) {
      placement = v;
      return this;
    }

    public Builder nodes(NodeClientConfig v) {
      nodes = v;
      return this;
    }

    public Builder writeBufferBytes(long v) {
      writeBufferBytes = v;
      return this;
    }

    public Builder writesPerTarget(int v) {
      writesPerTarget = v;
      return this;
    }

    public Builder readAheadBytes(long v) {
      readAheadBytes = v;
      return this;
    }

    public Builder readRequestBytes(int v) {
      readRequestBytes = v;
      return this;
    }

    public Builder transferThreads(int v) {
      transferThreads = v;
      return this;
    }

    public Builder suspectWindow(Duration v) {
      suspectWindow = v;
      return this;
    }

    public Builder writeMargin(int v) {
      writeMargin = v;
      return this;
    }

    public ClientConfig build() {
      return new ClientConfig(zooKeeper, namespace, registry, placement, nodes, writeBufferBytes,
          writesPerTarget, readAheadBytes, readRequestBytes, transferThreads, suspectWindow,
          writeMargin);
    }
  }
}
