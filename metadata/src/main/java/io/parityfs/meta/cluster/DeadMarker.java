package io.parityfs.meta.cluster;

import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.Retirements;
import io.parityfs.meta.targets.Standing;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.meta.targets.TargetRegistry;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Declares lost what stayed away too long (docs/across-nodes.md §5): a target in service whose
 * node has been gone for {@link ClusterManagerConfig#deadAfter()} or longer (reachability
 * OFFLINE; by the registry's memory of when it last saw the node, which starts again when the
 * leader's registry opens, so a change of leader only delays the decision) is marked BAD
 * ({@link Retirements#retire}), and re-protection rebuilds its members elsewhere. Off unless
 * {@code deadAfter} is set. Skipped while the registry is disconnected (its view may be stale).
 */
final class DeadMarker implements ManagerTask {
  private final TargetRegistry registry;
  private final Retirements retirements;
  private final ClusterManagerConfig config;
  private final ManagerCounters counters;
  private final String participantId;
  private final LongSupplier clock;

  DeadMarker(TargetRegistry registry, ClusterManagerConfig config, ManagerCounters counters,
      String participantId, LongSupplier clock) {
    this.registry = registry;
    this.retirements = new Retirements(registry);
    this.config = config;
    this.counters = counters;
    this.participantId = participantId;
    this.clock = clock;
  }

  @Override
  public String name() {
    return "dead-after marking";
  }

  @Override
  public Duration interval() {
    return config.offlineInterval();
  }

  @Override
  public void runOnce(BooleanSupplier acting) throws Exception {
    if (!registry.connected()) {
      return;
    }
    long now = clock.getAsLong();
    for (TargetInfo t : registry.targets()) {
      if (t.reachability() != Reachability.OFFLINE || t.standing() != Standing.IN_SERVICE
          || t.goneSince() == null
          || now - t.goneSince().toEpochMilli() < config.deadAfter().toMillis()) {
        continue;
      }
      if (!acting.getAsBoolean()) {
        return;
      }
      try {
        retirements.retire(t.id(), Standing.BAD, "node " + t.nodeId() + " gone since "
            + t.goneSince() + ", longer than cluster.manager.deadAfter " + config.deadAfter()
            + " (cluster manager " + participantId + ")");
        counters.targetsDeclaredBad.incrementAndGet();
      } catch (NamespaceException e) {
        if (e.status() != NamespaceStatus.NOT_FOUND) {
          throw e;
        }
      }
    }
  }
}
