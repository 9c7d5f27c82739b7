package io.parityfs.meta.cluster;

import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.LiveFileScanner;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.chunks.ChunkLengthProbe;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.targets.TargetRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster manager: every candidate (e.g. every storage node) runs one; a Curator {@link
 * LeaderLatch} at {@link ClusterManagerConfig#latchPath()} elects the one that acts. The leader
 * runs its tasks, each periodically on its own thread with its own interval (a task with more
 * work due, such as a long deferred-delete queue, runs its next round at once):
 *
 * <ul>
 *   <li>deferred deletes: delete the chunks of removed files and then their queue records
 *       ({@code DeferredDeleteTask});
 *   <li>trash purge: finish recursive deletes a crash interrupted ({@link
 *       Namespace#purgeTrash()});
 *   <li>orphan collection: delete chunks that belong to no file in two rounds a grace period
 *       apart ({@code OrphanCollector}, whose comment has the argument that a live file's chunk
 *       is never deleted);
 *   <li>offline marking, when given a {@link TargetRegistry}: targets whose node has been gone
 *       longer than the registry's offline timeout are marked offline ({@code OfflineMarker});
 *       and with {@link ClusterManagerConfig#deadAfter()} set, those gone that much longer are
 *       declared bad for re-protection ({@code DeadMarker}).
 * </ul>
 *
 * <p><b>Leadership.</b> On becoming leader the tasks are scheduled; on losing it (the latch's
 * {@code notLeader}, or this client's connection going SUSPENDED or LOST) they are cancelled
 * and a running round stops before its next deletion. Every task is idempotent and resumable
 * (what it deletes is dead for ever, the queue record goes last), so a deposed leader that
 * acts a moment longer, or a crash mid-round, does no harm: the next leader redoes the rest.
 *
 * <p><b>Lifecycle.</b> {@code LATENT → STARTED → CLOSED}: {@link #start()} joins the election,
 * {@link #close()} leaves it and stops the tasks. The Curator client, the namespace and the
 * chunk service stay the caller's. Thread-safe.
 */
public final class ClusterManager implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterManager.class);

  private enum State { LATENT, STARTED, CLOSED }

  private final CuratorFramework client;
  private final Namespace namespace;
  private final ChunkService chunks;
  private final TargetRegistry registry;
  private final ClusterManagerConfig config;
  private final String participantId;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final ManagerCounters counters = new ManagerCounters();
  private final LeaderLatch latch;
  private final ConnectionStateListener connectionListener = this::connectionChanged;
  private final List<ScheduledFuture<?>> scheduled = new ArrayList<>();
  private List<ManagerTask> tasks = List.of();
  private ScheduledExecutorService executor;
  /** Incremented at each change of leadership; a round acts only while its term is current. */
  private volatile long term;
  private volatile boolean leading;

  /**
   * A manager without offline marking (no target registry).
   *
   * @param client a started Curator client (the caller keeps ownership)
   * @param namespace the namespace whose removed files and orphans this manager collects
   * @param chunks access to the storage targets' chunks
   * @param participantId this candidate's id in the election (e.g. the node id), for operators
   */
  public ClusterManager(CuratorFramework client, Namespace namespace, ChunkService chunks,
      ClusterManagerConfig config, String participantId) {
    this(client, namespace, chunks, null, config, participantId);
  }

  /**
   * A manager that also marks long-gone targets offline in {@code registry} (which the caller
   * opens on the same ZooKeeper and keeps owning).
   */
  public ClusterManager(CuratorFramework client, Namespace namespace, ChunkService chunks,
      TargetRegistry registry, ClusterManagerConfig config, String participantId) {
    this.client = Objects.requireNonNull(client, "client");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.chunks = Objects.requireNonNull(chunks, "chunks");
    this.registry = registry;
    this.config = Objects.requireNonNull(config, "config");
    this.participantId = Objects.requireNonNull(participantId, "participantId");
    this.latch = new LeaderLatch(client, config.latchPath(), participantId);
  }

  /** Joins the election; the tasks start when this candidate becomes leader. */
  public void start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("cluster manager " + participantId + " is " + state.get());
    }
    DeleteQueue queue = DeleteQueue.open(client, namespace.config());
    ChunkLengthProbe probe = new ChunkLengthProbe(chunks, config.listPageSize());
    List<ManagerTask> all = new ArrayList<>(List.of(
        new DeferredDeleteTask(queue, chunks, config, counters, System::currentTimeMillis),
        new NamespaceChore("trash purge", config.trashInterval(), namespace::purgeTrash,
            counters.trashPurged, "finished {} interrupted recursive deletes"),
        new NamespaceChore("lease recovery", config.leaseInterval(),
            () -> namespace.recoverExpiredLeases(probe), counters.leasesRecovered,
            "closed {} files whose writers are gone"),
        new OrphanCollector(LiveFileScanner.open(client, namespace.config()), queue, chunks,
            config, counters, System::currentTimeMillis, (buckets, entries) -> true)));
    if (registry != null) {
      all.add(new OfflineMarker(registry, config.offlineInterval(), counters, participantId));
      if (!config.deadAfter().isZero()) {
        all.add(new DeadMarker(registry, config, counters, participantId,
            () -> registry.config().clock().millis()));
      }
    }
    tasks = List.copyOf(all);
    AtomicInteger threads = new AtomicInteger();
    executor = Executors.newScheduledThreadPool(tasks.size(), r -> {
      Thread t = new Thread(r, "parityfs-cluster-manager-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    client.getConnectionStateListenable().addListener(connectionListener);
    latch.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        startActing();
      }

      @Override
      public void notLeader() {
        stopActing("lost the election");
      }
    });
    try {
      latch.start();
    } catch (Exception e) {
      close();
      throw new IOException("cluster manager " + participantId + ": cannot join the election at "
          + config.latchPath(), e);
    }
    LOG.info("cluster manager {}: candidate at {}", participantId,
        config.latchPath());
  }

  /** Whether this candidate is acting now. */
  public boolean isLeader() {
    return leading && state.get() == State.STARTED;
  }

  /** What this manager has done since it started; reads no ZooKeeper. */
  public ClusterManagerStatus status() {
    ManagerCounters c = counters;
    return new ClusterManagerStatus(isLeader(), c.queueLength.get(), c.recordsWaiting.get(),
        c.filesDrained.get(), c.bytesDrained.get(), c.chunksDeleted.get(), c.trashPurged.get(), c.orphanScans.get(),
        c.orphansFound.get(), c.orphansDeleted.get(), c.lastOrphanScanMillis.get(),
        c.targetsMarkedOffline.get(), c.leasesRecovered.get(), c.targetsDeclaredBad.get());
  }

  /** Leaves the election and stops the tasks (a running round stops before its next deletion). */
  @Override
  public void close() {
    State was = state.getAndSet(State.CLOSED);
    if (was == State.CLOSED) {
      return;
    }
    stopActing("closing");
    if (was == State.STARTED) {
      client.getConnectionStateListenable().removeListener(connectionListener);
      try {
        latch.close();
      } catch (IOException | IllegalStateException e) {
        LOG.debug("closing the latch: {}", e.toString());
      }
      executor.shutdownNow();
      try {
        executor.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      LOG.info("cluster manager {}: closed", participantId);
    }
  }

  private void connectionChanged(CuratorFramework c, ConnectionState s) {
    if (s == ConnectionState.SUSPENDED || s == ConnectionState.LOST) {
      stopActing("ZooKeeper connection " + s);
    } else if (s == ConnectionState.RECONNECTED && latch.hasLeadership()) {
      // a client whose error policy keeps the latch's leadership through SUSPENDED
      startActing();
    }
  }

  private synchronized void startActing() {
    if (state.get() != State.STARTED || leading) {
      return;
    }
    long myTerm = ++term;
    leading = true;
    BooleanSupplier acting = () -> leading && term == myTerm && state.get() == State.STARTED;
    for (ManagerTask task : tasks) {
      schedule(task, acting, 0);
    }
    LOG.info("cluster manager {}: elected leader, acting",
        participantId);
  }

  private synchronized void stopActing(String why) {
    if (!leading) {
      return;
    }
    leading = false;
    term++;
    for (ScheduledFuture<?> f : scheduled) {
      f.cancel(false);
    }
    scheduled.clear();
    LOG.info("cluster manager {}: stopped acting ({})", participantId,
        why);
  }

  /**
   * Runs a round of {@code task} after {@code delayMillis}, and after it the next: at once when
   * the task has {@link ManagerTask#moreDue() more due}, else after its interval; until the term
   * ends.
   */
  private synchronized void schedule(ManagerTask task, BooleanSupplier acting, long delayMillis) {
    if (!acting.getAsBoolean()) {
      return;
    }
    scheduled.removeIf(Future::isDone);
    try {
      scheduled.add(executor.schedule(() -> {
        runRound(task, acting);
        schedule(task, acting, moreDue(task) ? 0 : task.interval().toMillis());
      }, delayMillis, TimeUnit.MILLISECONDS));
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private static boolean moreDue(ManagerTask task) {
    try {
      return task.moreDue();
    } catch (RuntimeException e) {
      return false;
    }
  }

  private void runRound(ManagerTask task, BooleanSupplier acting) {
    if (!acting.getAsBoolean()) {
      return;
    }
    try {
      task.runOnce(acting);
    } catch (IOException e) { // NamespaceException included
      if (acting.getAsBoolean()) {
        LOG.warn("cluster manager: {} round failed, retried next"
            + " round: {}", task.name(), e.getMessage());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("cluster manager: " + task.name() + " round failed", e);
    }
  }
}
