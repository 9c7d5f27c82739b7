package io.parityfs.meta.targets;

import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.registry.CorruptRecordException;
import io.parityfs.meta.registry.MoveProgress;
import io.parityfs.meta.registry.OfflineRecord;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.RetiredRecord;
import io.parityfs.meta.registry.ZkPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Taking targets out of service and back (docs/across-nodes.md §5), through one {@link
 * TargetRegistry}: the retirement marks ({@code /parityfs/retired}, {@link Standing}) that
 * placement and the movers go by, the move progress records ({@code /parityfs/progress}), and
 * the removal of a lost target's records. Every write is seen by this registry's view when the
 * call returns and by the others within a watch event. Thread-safe.
 */
public final class Retirements {
  private static final Logger LOG = LoggerFactory.getLogger(Retirements.class);
  private final TargetRegistry registry;

  public Retirements(TargetRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /**
   * Takes {@code targetId} out of service for every registry reading this ZooKeeper: writes
   * {@code /parityfs/retired/<targetId>} ({@link RetiredRecord}), rewriting an earlier one.
   * Placement no longer draws it; the mark outlives its node's sessions until {@link
   * #reinstate}.
   *
   * @param standing DRAINING or BAD
   * @throws IllegalArgumentException for IN_SERVICE, or a reason over {@link
   *     OfflineRecord#MAX_REASON} characters
   * @throws NamespaceException NOT_FOUND when the registry knows no such target; UNAVAILABLE when
   *     ZooKeeper cannot be written
   */
  public void retire(String targetId, Standing standing, String reason)
      throws NamespaceException {
    Objects.requireNonNull(reason, "reason");
    if (standing == null || standing == Standing.IN_SERVICE) {
      throw new IllegalArgumentException("standing (" + standing + ") must be DRAINING or BAD");
    }
    Optional<TargetInfo> t = registry.target(targetId);
    if (t.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, ZkPaths.target(targetId),
          "no such target in the registry; cannot retire it");
    }
    String path = ZkPaths.retired(targetId);
    write(path, RegistryCodec.encode(new RetiredRecord(RegistryCodec.SCHEMA, targetId,
        t.get().nodeId(), standing.name(), reason, registry.config().clock().millis())),
        "writing the retirement mark");
    LOG.warn("target {}: {}: {}", targetId, standing.label(),
        reason);
    registry.reread(List.of(path));
  }

  /**
   * Puts {@code targetId} back in service: deletes its retirement mark, if any.
   *
   * @return whether a mark was removed
   * @throws NamespaceException UNAVAILABLE when ZooKeeper cannot be written
   */
  public boolean reinstate(String targetId) throws NamespaceException {
    String path = ZkPaths.retired(targetId);
    boolean removed = delete(path, "removing the retirement mark");
    if (removed) {
      LOG.info("target {}: back in service", targetId);
    }
    registry.reread(List.of(path));
    return removed;
  }

  /**
   * Removes a BAD target's records ({@code /parityfs/targets/<id>}, its offline mark and move
   * progress), for when no file uses it any more; its retirement mark stays, so a node that
   * comes back with it is known as bad. Removes its node's record too when no other target of
   * the registry names that node. A target the registry does not know is left alone.
   *
   * @throws IllegalStateException when the target is not BAD, or its node is ONLINE
   * @throws NamespaceException UNAVAILABLE when ZooKeeper cannot be written
   */
  public void removeRecords(String targetId) throws NamespaceException {
    TargetInfo t = registry.target(targetId).orElse(null);
    if (t == null) {
      return;
    }
    if (t.standing() != Standing.BAD || t.reachability() == Reachability.ONLINE) {
      throw new IllegalStateException("target " + targetId + " is " + t.standing().label()
          + " and " + t.reachability() + "; only a bad target whose node is down is removed");
    }
    boolean lastOfNode = registry.targets().stream()
        .noneMatch(o -> o.nodeId().equals(t.nodeId()) && !o.id().equals(targetId));
    List<String> paths = new ArrayList<>(List.of(ZkPaths.target(targetId),
        ZkPaths.offline(targetId), ZkPaths.progress(targetId)));
    if (lastOfNode) {
      paths.add(ZkPaths.node(t.nodeId()));
    }
    for (String path : paths) {
      delete(path, "removing a record of a removed target");
    }
    LOG.warn("target {} of node {}: removed from the registry",
        targetId, t.nodeId());
    registry.reread(paths);
  }

  /** Writes (replaces) the progress record of {@code p.targetId()}. */
  public void recordProgress(MoveProgress p) throws NamespaceException {
    write(ZkPaths.progress(p.targetId()), RegistryCodec.encode(p), "writing move progress");
  }

  /**
   * The progress record of {@code targetId}, if there is one.
   *
   * @throws NamespaceException UNAVAILABLE when ZooKeeper cannot be read; CORRUPT when the
   *     record cannot be decoded
   */
  public Optional<MoveProgress> progress(String targetId) throws NamespaceException {
    String path = ZkPaths.progress(targetId);
    try {
      return Optional.of(RegistryCodec.decode(zk().getData().forPath(path), MoveProgress.class,
          path));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (CorruptRecordException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, path, e.reason(), e);
    } catch (Exception e) {
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path, "reading move progress: "
          + e, e);
    }
  }

  private CuratorFramework zk() {
    return registry.curator();
  }

  private void write(String path, byte[] data, String what) throws NamespaceException {
    try {
      ZkWrites.upsert(zk(), path, data);
    } catch (Exception e) {
      throw ZkWrites.failure(path, what, e);
    }
  }

  private boolean delete(String path, String what) throws NamespaceException {
    try {
      return ZkWrites.delete(zk(), path);
    } catch (Exception e) {
      throw ZkWrites.failure(path, what, e);
    }
  }
}
