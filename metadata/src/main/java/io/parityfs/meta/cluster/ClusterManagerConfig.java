package io.parityfs.meta.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of a {@link ClusterManager}. {@link #DEFAULT}, {@link #builder()}, {@link
 * #toBuilder()}; every check fails at build time naming the bad value.
 *
 * @param latchPath the election's znode (every candidate of a cluster must use the same);
 *     default {@code /parityfs/manager/latch}
 * @param deleteInterval pause between rounds of the deferred-delete queue once a round found no
 *     more records due than it took (a longer queue is drained in rounds back to back); default
 *     10 s
 * @param deleteBatch queue records taken per round; default 1000
 * @param deleteParallelism records of a round drained at once, each on its own thread; default
 *     32 (1: one after the other)
 * @param retryMin first pause before retrying a record whose targets could not be reached,
 *     doubled at each failure; default 10 s
 * @param retryMax the longest such pause; default 10 min
 * @param trashInterval pause between {@code purgeTrash} calls; default 1 min
 * @param orphanInterval pause between orphan collections; default 6 h
 * @param orphanGrace a chunk is collected only once its file id has been seen orphaned in an
 *     earlier round at least this long before, by the manager's own clock (nodes' clocks play no
 *     part; two rounds are what makes it safe, the grace is a margin); default 1 h
 * @param scanMaxPasses verification passes of the live-file scan before the round is skipped;
 *     default 10
 * @param scanInFlight ZooKeeper requests the scan issues at once; default 64
 * @param listPageSize chunks per listing page asked of a target; default 1000
 * @param offlineInterval pause between checks for targets to mark offline (how long a target
 *     has to be gone is the registry's {@code TargetRegistryConfig.offlineTimeout}); default 30 s
 * @param leaseInterval pause between rounds of lease recovery (files whose writer's session
 *     ended are closed at what their targets hold); default 30 s
 * @param deadAfter how long a target may stay OFFLINE (its node gone, by the registry's clock)
 *     before the manager declares it bad ({@code Retirements.retire}, docs/across-nodes.md §5),
 *     checked every {@code offlineInterval}; zero (the default): never, an admin decides
 */
public record ClusterManagerConfig(String latchPath, Duration deleteInterval, int deleteBatch,
    int deleteParallelism, Duration retryMin, Duration retryMax, Duration trashInterval, Duration orphanInterval,
    Duration orphanGrace, int scanMaxPasses, int scanInFlight, int listPageSize,
    Duration offlineInterval, Duration leaseInterval, Duration deadAfter) {

  public static final ClusterManagerConfig DEFAULT = new ClusterManagerConfig(
      "/parityfs/manager/latch", Duration.ofSeconds(10), 1000, 32, Duration.ofSeconds(10),
      Duration.ofMinutes(10), Duration.ofMinutes(1), Duration.ofHours(6), Duration.ofHours(1),
      10, 64, 1000, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ZERO);

  public ClusterManagerConfig {
    Objects.requireNonNull(latchPath, "latchPath");
    if (!latchPath.startsWith("/") || latchPath.endsWith("/") || latchPath.contains("//")) {
      throw new IllegalArgumentException(
          "latchPath (" + latchPath + ") must be an absolute znode path without a trailing slash");
    }
    positive("deleteInterval", deleteInterval);
    positive("retryMin", retryMin);
    positive("retryMax", retryMax);
    positive("trashInterval", trashInterval);
    positive("orphanInterval", orphanInterval);
    positive("offlineInterval", offlineInterval);
    positive("leaseInterval", leaseInterval);
    Objects.requireNonNull(orphanGrace, "orphanGrace");
    Objects.requireNonNull(deadAfter, "deadAfter");
    if (deadAfter.isNegative()) {
      throw new IllegalArgumentException("deadAfter (" + deadAfter + ") must be >= 0");
    }
    if (orphanGrace.isNegative()) {
      throw new IllegalArgumentException("orphanGrace (" + orphanGrace + ") must be >= 0");
    }
    if (retryMax.compareTo(retryMin) < 0) {
      throw new IllegalArgumentException("retryMax (" + retryMax + ") must be >= retryMin ("
          + retryMin + ")");
    }
    atLeastOne("deleteBatch", deleteBatch);
    if (deleteParallelism < 1 || deleteParallelism > 1024) {
      throw new IllegalArgumentException("deleteParallelism (" + deleteParallelism
          + ") must be in [1, 1024]");
    }
    atLeastOne("scanMaxPasses", scanMaxPasses);
    atLeastOne("scanInFlight", scanInFlight);
    if (listPageSize < 1 || listPageSize > 10_000) {
      throw new IllegalArgumentException("listPageSize (" + listPageSize
          + ") must be in [1, 10000]");
    }
  }

  private static void positive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " (" + d + ") must be > 0");
    }
  }

  private static void atLeastOne(String name, int v) {
    if (v < 1) {
      throw new IllegalArgumentException(name + " (" + v + ") must be >= 1");
    }
  }

  public static Builder builder() {
    return new Builder(DEFAULT);
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Builds a {@link ClusterManagerConfig}; unset values keep the defaults. */
  public static final class Builder {
    private String latchPath;
    private Duration deleteInterval;
    private int deleteBatch;
    private int deleteParallelism;
    private Duration retryMin;
    private Duration retryMax;
    private Duration trashInterval;
    private Duration leaseInterval;
    private Duration orphanInterval;
    private Duration orphanGrace;
    private int scanMaxPasses;
    private int scanInFlight;
    private int listPageSize;
    private Duration offlineInterval;
    private Duration deadAfter;

    private Builder(ClusterManagerConfig c) {
      latchPath = c.latchPath;
      deleteInterval = c.deleteInterval;
      deleteBatch = c.deleteBatch;
      deleteParallelism = c.deleteParallelism;
      retryMin = c.retryMin;
      retryMax = c.retryMax;
      trashInterval = c.trashInterval;
      leaseInterval = c.leaseInterval;
      orphanInterval = c.orphanInterval;
      orphanGrace = c.orphanGrace;
      scanMaxPasses = c.scanMaxPasses;
      scanInFlight = c.scanInFlight;
      listPageSize = c.listPageSize;
      offlineInterval = c.offlineInterval;
      deadAfter = c.deadAfter;
    }

    public Builder latchPath(String v) {
      latchPath = v;
      return this;
    }

    public Builder deleteInterval(Duration v) {
      deleteInterval = v;
      return this;
    }

    public Builder deleteBatch(int v) {
      deleteBatch = v;
      return this;
    }

    public Builder deleteParallelism(int v) {
      deleteParallelism = v;
      return this;
    }

    /** The first and the longest pause before retrying a record whose targets were away. */
    public Builder retry(Duration min, Duration max) {
      retryMin = min;
      retryMax = max;
      return this;
    }

    public Builder trashInterval(Duration v) {
      trashInterval = v;
      return this;
    }

    public Builder orphanInterval(Duration v) {
      orphanInterval = v;
      return this;
    }

    public Builder orphanGrace(Duration v) {
      orphanGrace = v;
      return this;
    }

    public Builder scanMaxPasses(int v) {
      scanMaxPasses = v;
      return this;
    }

    public Builder scanInFlight(int v) {
      scanInFlight = v;
      return this;
    }

    public Builder listPageSize(int v) {
      listPageSize = v;
      return this;
    }

    public Builder leaseInterval(Duration v) {
      leaseInterval = v;
      return this;
    }

    public Builder offlineInterval(Duration v) {
      offlineInterval = v;
      return this;
    }

    public Builder deadAfter(Duration v) {
      deadAfter = v;
      return this;
    }

    public ClusterManagerConfig build() {
      return new ClusterManagerConfig(latchPath, deleteInterval, deleteBatch, deleteParallelism,
          retryMin, retryMax, trashInterval, orphanInterval, orphanGrace, scanMaxPasses,
          scanInFlight, listPageSize, offlineInterval, leaseInterval, deadAfter);
    }
  }
}
