package io.parityfs.node;

import io.parityfs.meta.cluster.ClusterManager;
import io.parityfs.meta.cluster.ClusterManagerConfig;
import io.parityfs.meta.registry.NodeRecord;
import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.node.cluster.NodeClusterManager;
import io.parityfs.node.config.NodeConfig;
import io.parityfs.node.config.TargetConfig;
import io.parityfs.node.metrics.Health;
import io.parityfs.node.metrics.MetricsEndpoint;
import io.parityfs.node.metrics.NodeMetrics;
import io.parityfs.node.registry.NodeRegistration;
import io.parityfs.node.registry.NodeSnapshot;
import io.parityfs.raid.array.RaidArray;
import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.CodecSelection;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A storage node: its targets (one {@link RaidArray} each, with a {@link
 * io.parityfs.node.chunk.ChunkStore}), its identity, its registration in ZooKeeper, its metrics
 * endpoint, and the network server plugged in through {@link NodeServer}.
 *
 * <p><b>Start</b> ({@link #start}), in order: resolve the node id ({@link NodeIdentity}: the id
 * file, else the drives, else a new one); open each target's array from its drives, or create it
 * when the target is configured to and none of its drives carries a label; collect the garbage a
 * crash left; set the background throttle, the scrub schedule and the garbage collection
 * schedule; write the node id on every drive; start the metrics endpoint; start the server; register in ZooKeeper. A failure at any
 * step closes what was opened and is rethrown: a node serves all its targets or does not start.
 * Then, with {@code cluster.manager.enabled}, join the cluster-manager election ({@link
 * NodeClusterManager}); a candidate that cannot start is logged and the node serves anyway.
 *
 * <p><b>Close</b>, in order: leave the election, deregister (the online record goes), close the
 * server, close the arrays (stopping scrub schedules and rebuilds; rebuilds resume at the next
 * start), stop the metrics endpoint, release the codecs.
 *
 * <p>Lifecycle LATENT, STARTING (while {@link #start} runs), STARTED, CLOSED: one start, one
 * close; a start that fails leaves the node CLOSED. Thread-safe.
 */
public final class StorageNode implements NodeServices, Closeable {
  private static final System.Logger LOG = System.getLogger(StorageNode.class.getName());
  static final String LABEL_FILE = "parityfs.label";
  static final int SCHEMA = RegistryCodec.SCHEMA;

  private enum State { LATENT, STARTING, STARTED, CLOSED }

  private final NodeConfig config;
  private final NodeServer server;
  private final NodeMetrics metrics = new NodeMetrics();
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final Map<CodecBackend, ParityCodecFactory> codecs = new EnumMap<>(CodecBackend.class);
  private final List<StorageTarget> targets = new ArrayList<>();
  private volatile UUID nodeId;
  private volatile InetSocketAddress address;
  private volatile MetricsEndpoint endpoint;
  private volatile NodeRegistration registration;
  private volatile NodeClusterManager cluster;
  private volatile long startedMillis;

  /** A node for {@code config} whose network server is {@code server} ({@link NodeServer#none}). */
  public StorageNode(NodeConfig config, NodeServer server) {
    this.config = config;
    this.server = server;
  }

  /** Starts the node (see the class comment). */
  public void start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTING)) {
      throw new IllegalStateException("node already started or closed");
    }
    boolean ok = false;
    try {
      List<Path> candidates = config.targets().stream().flatMap(t -> t.drives().stream())
          .toList();
      nodeId = NodeIdentity.resolve(config.idFile(), candidates);
      for (TargetConfig t : config.targets()) {
        targets.add(openTarget(t));
      }
      NodeIdentity.write(config.idFile(), nodeId);
      for (StorageTarget t : targets) {
        for (Path drive : t.drivePaths()) {
          NodeIdentity.write(drive.resolve(NodeIdentity.DRIVE_FILE), nodeId);
        }
      }
      TargetMetrics.register(metrics.registry(), List.copyOf(targets), this::zooKeeperConnected);
      if (config.metricsPort() >= 0) {
        endpoint = MetricsEndpoint.start(config.metricsHost(), config.metricsPort(), metrics,
            this::health, config.metricsAccess(), config.server().tls());
      }
      InetSocketAddress bound = server.start(config.listenHost(), config.listenPort(), this);
      address = InetSocketAddress.createUnresolved(config.advertiseHost(), bound.getPort());
      startedMillis = System.currentTimeMillis();
      registration = new NodeRegistration(config.zooKeeper(), config.refreshInterval(),
          this::snapshot, this::stateKey);
      registration.start();
      if (config.clusterManager()) {
        cluster = NodeClusterManager.start(registration.curator(), nodeId.toString(),
            ClusterManagerConfig.DEFAULT.toBuilder().deadAfter(config.deadAfter()).build(),
            config.server().tls())
            .orElse(null);
      }
      state.set(State.STARTED);
      ok = true;
      LOG.log(System.Logger.Level.INFO, "node {0} ({1}) started: {2} target(s), serving on {3},"
          + " metrics on {4}", nodeId, config.name(), targets.size(), address,
          metricsPort() < 0 ? "(off)" : config.metricsHost() + ":" + metricsPort());
    } finally {
      if (!ok) {
        closeAll();
        state.set(State.CLOSED);
      }
    }
  }

  /**
   * The node's id, from the moment it is known in {@link #start} (before the server serves and
   * the node registers): an admin request that a starting node's server answers names it, as do
   * the lines of a closing node.
   */
  @Override
  public String nodeId() {
    UUID id = nodeId;
    if (id == null) {
      throw new IllegalStateException("node is " + state.get() + ", its id not known yet");
    }
    return id.toString();
  }

  @Override
  public List<StorageTarget> targets() {
    return List.copyOf(targets);
  }

  @Override
  public Optional<StorageTarget> target(String targetId) {
    return targets.stream().filter(t -> t.id().equals(targetId)).findFirst();
  }

  @Override
  public NodeMetrics metrics() {
    return metrics;
  }

  /** The address published for clients: the advertised host and the port the server bound. */
  public InetSocketAddress address() {
    requireStarted();
    return address;
  }

  /** The port of the metrics/health endpoint, -1 when it is off. */
  public int metricsPort() {
    MetricsEndpoint e = endpoint;
    return e == null ? -1 : e.port();
  }

  /** The node's cluster-manager candidate (null when off, not started or failed to start). */
  public ClusterManager clusterManager() {
    NodeClusterManager c = cluster;
    return c == null ? null : c.manager();
  }

  /** The ZooKeeper registration (null before start). */
  public NodeRegistration registration() {
    return registration;
  }

  /**
   * Healthy when the node is started, its ZooKeeper session is connected, and every target's
   * array is OPTIMAL, DEGRADED or REBUILDING (serving every chunk); a FAILED array (more drives
   * lost than its protection tolerates) makes the node unhealthy.
   */
  public Health health() {
    StringBuilder text = new StringBuilder();
    boolean ok = state.get() == State.STARTED;
    if (!ok) {
      text.append("node ").append(state.get()).append('\n');
    }
    boolean zk = zooKeeperConnected();
    ok &= zk;
    text.append("zookeeper ").append(zk ? "connected" : "NOT CONNECTED").append('\n');
    for (StorageTarget t : List.copyOf(targets)) {
      ArrayState s = t.state();
      ok &= s != ArrayState.FAILED;
      text.append("target ").append(t.name()).append(' ').append(t.id()).append(' ')
          .append(t.protection()).append(' ').append(s).append('\n');
    }
    return new Health(ok, text.toString());
  }

  /** Deregisters and closes everything (see the class comment). Harmless when repeated. */
  @Override
  public void close() throws IOException {
    State was = state.getAndSet(State.CLOSED);
    if (was == State.CLOSED) {
      return;
    }
    LOG.log(System.Logger.Level.INFO, "node {0}: closing (was {1})", nodeId, was);
    closeAll();
    LOG.log(System.Logger.Level.INFO, "node {0}: closed", nodeId);
  }

  // ---- internals ----

  private boolean zooKeeperConnected() {
    NodeRegistration r = registration;
    return r != null && r.connected();
  }

  private void requireStarted() {
    if (state.get() != State.STARTED) {
      throw new IllegalStateException("node is " + state.get() + ", not STARTED");
    }
  }

  private StorageTarget openTarget(TargetConfig t) throws IOException {
    ParityCodecFactory factory = codecs.computeIfAbsent(t.codec(),
        b -> ParityCodecFactory.builder().backend(b).build());
    boolean labelled = t.drives().stream().anyMatch(d -> Files.exists(d.resolve(LABEL_FILE)));
    RaidArray array;
    if (!labelled && t.create().isPresent()) {
      LOG.log(System.Logger.Level.INFO, "target {0}: no array on its drives; creating {1} on {2}",
          t.name(), t.create().get(), t.drives());
      array = RaidArray.create(t.create().get(), t.drives(), factory, StoreOptions.DEFAULTS);
    } else if (!labelled) {
      throw new IOException("target " + t.name() + ": no drive of " + t.drives() + " carries an"
          + " array label, and target." + t.name() + ".create is false");
    } else {
      array = RaidArray.open(t.drives(), Optional.empty(), factory, StoreOptions.DEFAULTS);
    }
    try {
      for (StorageTarget other : targets) {
        if (other.id().equals(array.id().toString())) {
          throw new IOException("targets " + other.name() + " and " + t.name() + " are the same"
              + " array " + array.id());
        }
      }
      warnIfConfigDiffers(t, array.labels().config());
      long garbage = array.garbageAtOpen(); // collected at open, before rebuilds resumed
      if (t.rebuildIdleBytesPerSecond() > 0 || t.rebuildBusyBytesPerSecond() > 0) {
        array.store().throttle(BackgroundThrottle.of(unlimitedIfZero(t.rebuildIdleBytesPerSecond()),
            unlimitedIfZero(t.rebuildBusyBytesPerSecond()), 1000));
      }
      Optional<CodecSelection> codec = Optional.empty();
      if (array.labels().config().protection() instanceof Protection.Parity p) {
        codec = Optional.of(factory.selection(p.geometry()));
      }
      StorageTarget target = new StorageTarget(t, array, codec);
      if (!t.scrubInterval().isZero()) {
        target.scrubSchedule(array.scheduleScrub(t.scrubInterval()));
      }
      if (!t.gcInterval().isZero()) {
        array.scheduleGarbageCollection(t.gcInterval()); // closed with the array
      }
      LOG.log(System.Logger.Level.INFO, "target {0} {1}: {2} {3}, {4} garbage files removed,"
          + " codec {5}", t.name(), target.id(), target.protection(), array.state(), garbage,
          codec.map(CodecSelection::toString).orElse("none (mirror)"));
      return target;
    } catch (IOException | RuntimeException e) {
      array.close();
      throw e;
    }
  }

  private static long unlimitedIfZero(long rate) {
    return rate == 0 ? 1L << 40 : rate; // 1 TB/s: more than any drive set gives
  }

  private static void warnIfConfigDiffers(TargetConfig t, ArrayConfig actual) {
    t.create().filter(c -> !c.equals(actual)).ifPresent(c -> LOG.log(
        System.Logger.Level.WARNING, "target {0}: configured as {1} but its drives hold {2};"
            + " the drives' labels win", t.name(), c, actual));
  }

  private void closeAll() {
    NodeClusterManager c = cluster;
    if (c != null) {
      c.close();
    }
    NodeRegistration r = registration;
    if (r != null) {
      r.close();
    }
    try {
      server.close();
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "closing the server: {0}", e.toString());
    }
    for (StorageTarget t : targets) {
      try {
        t.array().close();
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "target {0}: closing its array: {1}", t.name(),
            e.toString());
      }
    }
    MetricsEndpoint e = endpoint;
    if (e != null) {
      e.close();
    }
    codecs.values().forEach(ParityCodecFactory::close);
  }

  /** What the registration publishes now. */
  NodeSnapshot snapshot() {
    long now = System.currentTimeMillis();
    String id = nodeId.toString();
    List<TargetRecord> records = new ArrayList<>();
    List<OnlineRecord.TargetStatus> statuses = new ArrayList<>();
    long capacity = 0;
    long free = 0;
    for (StorageTarget t : targets) {
      ArrayConfig c = t.array().labels().config();
      long cap = t.capacityBytes();
      long fr = t.freeBytes();
      capacity += cap;
      free += fr;
      String st = t.state().name();
      StorageTarget.Lost lost = t.lost(); // count and ids of one report
      records.add(new TargetRecord(SCHEMA, t.id(), id, t.name(), t.config().pool(),
          t.protection(), c.cellSize(), c.maxObjectSize(), t.array().labels().dataSlots(),
          c.hotSpares(), t.array().labels().created().toEpochMilli(), st, cap, now,
          t.chunks().maxFileId()));
      List<OnlineRecord.DriveStatus> drives = new ArrayList<>();
      DriveState[] ds = t.array().driveStates();
      for (var slot : t.array().labels().slots()) {
        drives.add(new OnlineRecord.DriveStatus(slot.slot(), ds[slot.slot()].name(),
            slot.drivePath().map(Path::toString).orElse("")));
      }
      List<OnlineRecord.RebuildStatus> rebuilds = new ArrayList<>();
      t.array().rebuilds().forEach((slot, p) -> rebuilds.add(new OnlineRecord.RebuildStatus(
          slot, p.state().name(), p.bytesDone(), p.bytesTotal(), p.bytesPerSecond())));
      statuses.add(new OnlineRecord.TargetStatus(t.id(), t.name(), st, t.protection(), cap, fr,
          t.codec().map(s -> s.chosen().label()).orElse("none"),
          t.codec().map(CodecSelection::implementation).orElse("none"), drives, rebuilds,
          t.fileSystemIds().entrySet().stream().map(e -> new OnlineRecord.FileSystemShare(
              e.getKey(), e.getValue())).toList(), lost.lostObjects(), lost.lostIds()));
    }
    String host = address.getHostString();
    int port = address.getPort();
    NodeRecord node = new NodeRecord(SCHEMA, id, config.name(), host, port, metricsPort(),
        targets.stream().map(StorageTarget::id).toList(), now, config.domain());
    OnlineRecord online = new OnlineRecord(SCHEMA, id, config.name(), host, port, metricsPort(),
        startedMillis, now, capacity, free, statuses);
    return new NodeSnapshot(node, records, online);
  }

  /**
   * A cheap summary of every array, drive and rebuild state and of the objects scrubs found lost:
   * a change triggers a refresh.
   */
  String stateKey() {
    StringBuilder sb = new StringBuilder();
    for (StorageTarget t : targets) {
      sb.append(t.state()).append(Arrays.toString(t.array().driveStates()));
      t.array().rebuilds().forEach((slot, p) -> sb.append(slot).append(p.state()));
      sb.append(" lost ").append(t.lostObjects()).append(t.lostObjectIds()).append(';');
    }
    return sb.toString();
  }
}
