package io.parityfs.meta.targets;

import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.registry.CorruptRecordException;
import io.parityfs.meta.registry.NodeRecord;
import io.parityfs.meta.registry.OfflineRecord;
import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.RetiredRecord;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.meta.registry.ZkPaths;
import java.io.Closeable;
import java.io.InterruptedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A live view of the storage targets registered in ZooKeeper ({@link ZkPaths}): for each target
 * its node and address, pool, protection, capacity and free space, {@link Reachability} and
 * {@link Consistency}, as a {@link TargetInfo}.
 *
 * <p><b>How it stays current.</b> {@link #open} reads every record under {@code
 * /parityfs/nodes}, {@code /targets}, {@code /online} and {@code /offline}, leaving a child watch
 * on each of the four and a data watch on each record. A watch that fires makes the registry's
 * worker thread read just what changed (the new or removed children of that folder, or that one
 * record) and publish a new immutable snapshot (one for a burst of changes). So a node that registers, changes state or
 * disappears is seen within one ZooKeeper round trip of the change, and a quiet cluster costs
 * nothing. A record that cannot be read (e.g. of a newer schema) is left out and listed by
 * {@link #unreadable()}, with a warning logged once.
 *
 * <p><b>Reachability</b> is ONLINE while the node's ephemeral online record exists; when it
 * disappears the registry notes the time (its {@link TargetRegistryConfig#clock() clock}) and
 * the target is PROBABLY_OFFLINE until {@link TargetRegistryConfig#offlineTimeout()} has passed,
 * then OFFLINE. A node the registry has never seen online counts as gone since {@link #open}. A
 * target {@link #markOffline marked offline} is OFFLINE, whatever the time, until its node
 * creates a new online record (a registration after the mark's last write, by ZooKeeper's
 * transaction order, not by clocks): then the first registry to see it deletes the mark (guarded
 * by its version, so a mark rewritten meanwhile is not lost) and logs it.
 *
 * <p><b>Connection.</b> While the Curator connection is SUSPENDED or LOST the view is the last one
 * seen (nothing can be written to the namespace meanwhile either) and {@link #connected()} is
 * false; at RECONNECTED everything is read again, since watches of an expired session are gone. A
 * failed read is retried by reading everything again a second later.
 *
 * <p>Thread-safe: queries read the latest snapshot without locking; all ZooKeeper reads run on
 * one worker thread ({@code pfs-target-registry}). Lifecycle: {@link #open} starts it, {@link
 * #close} stops it (LATENT, STARTED, CLOSED); closing leaves the Curator client open.
 */
public final class TargetRegistry implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TargetRegistry.class);
  private static final long RETRY_MILLIS = 1000;

  private enum State { LATENT, STARTED, CLOSED }

  /** The folders watched; {@code read} knows the record type of each one's children. */
  private enum Folder {
    NODES(ZkPaths.NODES), TARGETS(ZkPaths.TARGETS), ONLINE(ZkPaths.ONLINE),
    OFFLINE(ZkPaths.OFFLINE), RETIRED(ZkPaths.RETIRED);

    final String path;

    Folder(String path) {
      this.path = path;
    }

    static Folder of(String path) {
      for (Folder f : values()) {
        if (f.path.equals(path)) {
          return f;
        }
      }
      return null;
    }
  }

  private final WatcherRemoveCuratorFramework zk;
  private final CuratorFramework client;
  private final TargetRegistryConfig config;
  private final ScheduledExecutorService worker;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final AtomicBoolean reloadPending = new AtomicBoolean();
  private final Watcher watcher = this::onEvent;
  private final ConnectionStateListener listener = this::onConnectionState;
  private volatile RegistrySnapshot snapshot = RegistrySnapshot.EMPTY;
  private volatile boolean connected = true;

  // the worker thread's
  private RegistryModel model;
  private boolean publishQueued;
  private final Map<Folder, Set<String>> children = new HashMap<>();
  private final Map<String, String> warned = new HashMap<>();

  private TargetRegistry(CuratorFramework client, TargetRegistryConfig config) {
    this.client = client;
    this.zk = client.newWatcherRemoveCuratorFramework();
    this.config = config;
    this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pfs-target-registry");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Opens a registry view: reads every record once (so the first query sees the cluster as it
   * is) and keeps watching.
   *
   * @param client a started Curator client, whose namespace is the storage nodes' chroot; the
   *     caller owns it and closes it after this registry
   * @throws IllegalArgumentException when {@code client} is not started
   * @throws NamespaceException UNAVAILABLE when ZooKeeper cannot be read
   */
  public static TargetRegistry open(CuratorFramework client, TargetRegistryConfig config)
      throws NamespaceException {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(config, "config");
    if (client.getState() != CuratorFrameworkState.STARTED) {
      throw new IllegalArgumentException("Curator client (" + client.getState()
          + ") must be started");
    }
    TargetRegistry r = new TargetRegistry(client, config);
    r.start();
    return r;
  }

  private void start() throws NamespaceException {
    state.set(State.STARTED);
    client.getConnectionStateListenable().addListener(listener);
    try {
      onWorker(() -> {
        model = new RegistryModel(config.clock().millis());
        reloadAll();
        return null;
      });
    } catch (NamespaceException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Every target known (a target record or a live node's report), in id order. */
  public List<TargetInfo> targets() {
    return snapshot.targets(config.clock().millis(), config.offlineTimeout());
  }

  /**
   * The highest file id any target record advertises holding chunks or fences of ({@code
   * maxFileId}), 0 for none; as current as the rest of the view. What a namespace checks the
   * ids it hands out against ({@code Namespace#checkIdsAgainst}).
   */
  public long highestFileId() {
    return snapshot.highestFileId();
  }

  /** The target {@code targetId}, if known. */
  public Optional<TargetInfo> target(String targetId) {
    return snapshot.target(targetId, config.clock().millis(), config.offlineTimeout());
  }

  /** Records left out because they could not be read: znode path to the reason. */
  public Map<String, String> unreadable() {
    return snapshot.unreadable();
  }

  /** Whether the Curator connection is up (false while SUSPENDED or LOST, and once closed). */
  public boolean connected() {
    return connected && state.get() == State.STARTED;
  }

  /** The settings this registry runs with. */
  public TargetRegistryConfig config() {
    return config;
  }

  /**
   * Declares {@code targetId} offline for every registry reading this ZooKeeper: writes {@code
   * /parityfs/offline/<targetId>} ({@link OfflineRecord}), rewriting an earlier mark. The target
   * is OFFLINE, with {@code reason} in {@link TargetInfo#offlineReason()}, until its node
   * registers again (a new online record) or {@link #clearOffline}. Meant for the cluster
   * manager once a target stayed PROBABLY_OFFLINE too long, or stopped answering although its
   * node is registered. When this returns, this registry's own view shows the mark.
   *
   * @param reason for people, at most {@link OfflineRecord#MAX_REASON} characters
   * @throws IllegalArgumentException when {@code reason} is too long
   * @throws NamespaceException NOT_FOUND when the registry knows no such target; UNAVAILABLE when
   *     ZooKeeper cannot be written
   */
  public void markOffline(String targetId, String reason) throws NamespaceException {
    Objects.requireNonNull(targetId, "targetId");
    Objects.requireNonNull(reason, "reason");
    checkStarted();
    String path = ZkPaths.offline(targetId);
    if (!snapshot.entries().containsKey(targetId)) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, ZkPaths.target(targetId),
          "no such target in the registry; cannot mark it offline");
    }
    byte[] data = RegistryCodec.encode(new OfflineRecord(RegistryCodec.SCHEMA, targetId, reason,
        config.clock().millis()));
    try {
      // the write's zxid (the mark's mzxid) is what later registrations are compared with; a
      // rewrite also moves the version, which guards the delete of a superseded mark
      ZkWrites.upsert(zk, path, data);
    } catch (Exception e) {
      throw ZkWrites.failure(path, "writing the offline mark", e);
    }
    LOG.warn("target {}: marked offline: {}", targetId, reason);
    reread(Folder.OFFLINE, targetId);
  }

  /**
   * Removes the offline mark of {@code targetId}, if any; the target's reachability is then
   * decided by its node's online record again. When this returns, this registry's view shows it.
   *
   * @return whether a mark was removed
   * @throws NamespaceException UNAVAILABLE when ZooKeeper cannot be written
   */
  public boolean clearOffline(String targetId) throws NamespaceException {
    Objects.requireNonNull(targetId, "targetId");
    checkStarted();
    String path = ZkPaths.offline(targetId);
    boolean removed;
    try {
      removed = ZkWrites.delete(zk, path);
    } catch (Exception e) {
      throw ZkWrites.failure(path, "removing the offline mark", e);
    }
    if (removed) {
      LOG.info("target {}: offline mark cleared", targetId);
    }
    reread(Folder.OFFLINE, targetId);
    return removed;
  }

  private void reread(Folder folder, String name) throws NamespaceException {
    onWorker(() -> {
      read(folder, name);
      publish();
      return null;
    });
  }

  /**
   * Reads the records at {@code paths} (each a child of a watched folder) again and returns
   * when the view shows them: for {@link Retirements}' writes.
   */
  void reread(List<String> paths) throws NamespaceException {
    checkStarted();
    onWorker(() -> {
      for (String path : paths) {
        int slash = path.lastIndexOf('/');
        Folder folder = Folder.of(path.substring(0, slash));
        if (folder != null) {
          read(folder, path.substring(slash + 1));
        }
      }
      publish();
      return null;
    });
  }

  /** The Curator client of this view (its watches removed at close). */
  CuratorFramework curator() {
    checkStarted();
    return zk;
  }

  /**
   * Reads every record again (as at open) and returns when the view shows them: a barrier for
   * tools and tests. Not needed for freshness, which the watches give.
   *
   * @throws NamespaceException UNAVAILABLE when ZooKeeper cannot be read
   */
  public void refresh() throws NamespaceException {
    checkStarted();
    onWorker(() -> {
      reloadAll();
      return null;
    });
  }

  /**
   * Reads the records of one target again from ZooKeeper (its target record, its node's node
   * and online records, its offline mark), not from this view, and returns the target as the
   * view shows it afterwards. For a client whose transfer to the target's last known address
   * failed: the node may have restarted on another address while the watch event that tells
   * this view is still on its way (a slow event thread, a lagging server). A few reads; the
   * next watch events bring the rest of the cluster as usual.
   *
   * @throws NamespaceException UNAVAILABLE when ZooKeeper cannot be read
   */
  public Optional<TargetInfo> refresh(String targetId) throws NamespaceException {
    Objects.requireNonNull(targetId, "targetId");
    checkStarted();
    onWorker(() -> {
      read(Folder.TARGETS, targetId);
      read(Folder.OFFLINE, targetId);
      read(Folder.RETIRED, targetId);
      Set<String> nodeIds = new LinkedHashSet<>();
      TargetRecord r = model.targets.get(targetId);
      if (r != null) {
        nodeIds.add(r.nodeId());
      }
      RegistrySnapshot.Entry known = snapshot.entries().get(targetId);
      if (known != null) {
        nodeIds.add(known.nodeId()); // the node last seen serving it, if the record moved on
      }
      nodeIds.remove(null);
      for (String nodeId : nodeIds) {
        read(Folder.NODES, nodeId);
        read(Folder.ONLINE, nodeId);
      }
      publish();
      return null;
    });
    return target(targetId);
  }

  /** Stops watching; the last view stays readable. Leaves the Curator client open. */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.CLOSED) {
      return;
    }
    client.getConnectionStateListenable().removeListener(listener);
    worker.shutdownNow();
    try {
      zk.removeWatchers();
    } catch (RuntimeException e) {
      LOG.debug("removing watches: {}", e.toString());
    }
  }

  // ---- events (ZooKeeper and Curator threads): hand them to the worker ----

  private void onEvent(WatchedEvent event) {
    String path = event.getPath();
    if (path == null || state.get() != State.STARTED) {
      return;
    }
    submit(() -> {
      Folder folder = Folder.of(path);
      if (folder != null) {
        relist(folder, false);
      } else {
        int slash = path.lastIndexOf('/');
        Folder parent = Folder.of(path.substring(0, slash));
        if (parent != null) {
          read(parent, path.substring(slash + 1));
        }
      }
      publishSoon();
    });
  }

  private void onConnectionState(CuratorFramework c, ConnectionState s) {
    switch (s) {
      case SUSPENDED, LOST -> {
        if (connected) {
          LOG.warn("target registry: ZooKeeper connection {};"
              + " keeping the last view", s);
        }
        connected = false;
      }
      case RECONNECTED, CONNECTED -> {
        connected = true;
        scheduleReload(0);
      }
      default -> { }
    }
  }

  private void submit(Task task) {
    try {
      worker.execute(() -> {
        try {
          task.run();
        } catch (Exception e) {
          if (state.get() == State.STARTED) {
            LOG.warn("target registry: reading ZooKeeper: {};"
                + " reading everything again in {} ms", e.toString(), RETRY_MILLIS);
            scheduleReload(RETRY_MILLIS);
          }
        }
      });
    } catch (RejectedExecutionException closed) {
      // closed meanwhile
    }
  }

  private void scheduleReload(long delayMillis) {
    if (state.get() != State.STARTED || !reloadPending.compareAndSet(false, true)) {
      return;
    }
    try {
      worker.schedule(() -> submit(() -> {
        reloadPending.set(false);
        reloadAll();
      }), delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      reloadPending.set(false);
    }
  }

  /** Runs {@code work} on the worker and waits, turning ZooKeeper failures into UNAVAILABLE. */
  private void onWorker(Callable<Void> work) throws NamespaceException {
    try {
      worker.submit(work).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, ZkPaths.ROOT,
          "interrupted reading the target registry", new InterruptedIOException());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof NamespaceException n) {
        throw n;
      }
      throw unavailable(ZkPaths.ROOT, "reading the target registry", e.getCause());
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException("target registry is closed");
    }
  }

  private void checkStarted() {
    if (state.get() != State.STARTED) {
      throw new IllegalStateException("target registry is " + state.get());
    }
  }

  private static NamespaceException unavailable(String path, String what, Throwable cause) {
    return new NamespaceException(NamespaceStatus.UNAVAILABLE, path, what + ": " + cause,
        cause);
  }

  // ---- the worker thread ----

  private void reloadAll() throws Exception {
    for (Folder f : Folder.values()) {
      relist(f, true);
    }
    publish();
  }

  /** Lists {@code folder} (leaving a watch), drops the children gone, reads the new ones. */
  private void relist(Folder folder, boolean rereadAll) throws Exception {
    List<String> names;
    try {
      names = zk.getChildren().usingWatcher(watcher).forPath(folder.path);
    } catch (KeeperException.NoNodeException e) {
      // not made yet (or a container the server reaped): watch for its creation
      names = zk.checkExists().usingWatcher(watcher).forPath(folder.path) == null
          ? List.of() : zk.getChildren().usingWatcher(watcher).forPath(folder.path);
    }
    Set<String> known = children.computeIfAbsent(folder, f -> new HashSet<>());
    Set<String> present = new HashSet<>(names);
    for (String gone : Set.copyOf(known)) {
      if (!present.contains(gone)) {
        drop(folder, gone);
      }
    }
    for (String name : names) {
      if (rereadAll || !known.contains(name)) {
        read(folder, name);
      }
    }
  }

  /** Reads one record (leaving a data watch), or drops it if it is gone. */
  private void read(Folder folder, String name) throws Exception {
    String path = folder.path + "/" + name;
    Stat stat = new Stat();
    byte[] data;
    try {
      data = zk.getData().storingStatIn(stat).usingWatcher(watcher).forPath(path);
    } catch (KeeperException.NoNodeException e) {
      drop(folder, name);
      return;
    }
    children.computeIfAbsent(folder, f -> new HashSet<>()).add(name);
    try {
      switch (folder) {
        case NODES -> model.nodes.put(name, RegistryCodec.decode(data, NodeRecord.class, path));
        case TARGETS -> model.targets.put(name,
            RegistryCodec.decode(data, TargetRecord.class, path));
        case ONLINE -> model.putOnline(name,
            RegistryCodec.decode(data, OnlineRecord.class, path), stat.getCzxid());
        case OFFLINE -> model.marks.put(name, new RegistryModel.Mark(
            RegistryCodec.decode(data, OfflineRecord.class, path), stat.getMzxid(),
            stat.getVersion()));
        case RETIRED -> model.retired.put(name,
            RegistryCodec.decode(data, RetiredRecord.class, path));
        default -> throw new IllegalStateException(folder.name());
      }
      model.readable(path);
      warned.remove(path);
    } catch (CorruptRecordException e) {
      // reported as the namespace reports a damaged znode: "CORRUPT: <path>: <why>"
      String why = new NamespaceException(NamespaceStatus.CORRUPT, e.path(), e.reason(), e)
          .getMessage();
      forget(folder, name);
      model.unreadable(path, why);
      if (!why.equals(warned.put(path, why))) {
        LOG.warn("target registry: left out: {}", why);
      }
    }
  }

  private void drop(Folder folder, String name) {
    children.computeIfAbsent(folder, f -> new HashSet<>()).remove(name);
    forget(folder, name);
    String path = folder.path + "/" + name;
    model.readable(path);
    warned.remove(path);
  }

  private void forget(Folder folder, String name) {
    switch (folder) {
      case NODES -> model.nodes.remove(name);
      case TARGETS -> model.targets.remove(name);
      case ONLINE -> model.removeOnline(name, config.clock().millis());
      case OFFLINE -> model.marks.remove(name);
      case RETIRED -> model.retired.remove(name);
      default -> throw new IllegalStateException(folder.name());
    }
  }

  /**
   * Publishes after the events already queued, so a burst of changes (every node rewriting its
   * online record) makes one snapshot, not one each.
   */
  private void publishSoon() {
    if (!publishQueued) {
      publishQueued = true;
      submit(() -> {
        publishQueued = false;
        publish();
      });
    }
  }

  /** Deletes marks whose node came back, then publishes a new snapshot. */
  private void publish() {
    if (connected()) {
      for (RegistryModel.Superseded s : model.superseded()) {
        String path = ZkPaths.offline(s.targetId());
        try {
          zk.delete().withVersion(s.version()).forPath(path);
          LOG.info("target {}: node {} registered again; offline"
              + " mark ({}) cleared", s.targetId(), s.nodeId(), s.reason());
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
          // another registry cleared it, or the mark was renewed (the watch brings the new one)
        } catch (Exception e) {
          LOG.warn("target {}: clearing its offline mark: {}",
              s.targetId(), e.toString());
          continue;
        }
        model.marks.remove(s.targetId());
      }
    }
    snapshot = model.snapshot();
  }

  @FunctionalInterface
  private interface Task {
    void run() throws Exception;
  }
}
