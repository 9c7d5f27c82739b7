package io.parityfs.meta.cluster;

import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.meta.targets.TargetRegistry;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes durable what the registry concludes: a target whose node has been gone longer than the
 * registry's {@code offlineTimeout} (reachability OFFLINE, no mark yet) is marked offline with
 * {@link TargetRegistry#markOffline}, so every metadata server treats it as offline until its
 * node registers again. Skipped while the registry is disconnected (its view may be stale).
 */
final class OfflineMarker implements ManagerTask {
  private static final Logger LOG = LoggerFactory.getLogger(OfflineMarker.class);

  private final TargetRegistry registry;
  private final Duration interval;
  private final ManagerCounters counters;
  private final String participantId;

  OfflineMarker(TargetRegistry registry, Duration interval, ManagerCounters counters,
      String participantId) {
    this.registry = registry;
    this.interval = interval;
    this.counters = counters;
    this.participantId = participantId;
  }

  @Override
  public String name() {
    return "offline marking";
  }

  @Override
  public Duration interval() {
    return interval;
  }

  @Override
  public void runOnce(BooleanSupplier acting) throws Exception {
    if (!registry.connected()) {
      return;
    }
    for (TargetInfo t : registry.targets()) {
      if (t.reachability() != Reachability.OFFLINE || !t.offlineReason().isEmpty()) {
        continue;
      }
      if (!acting.getAsBoolean()) {
        return;
      }
      try {
        registry.markOffline(t.id(), "node " + t.nodeId() + " gone for longer than "
            + registry.config().offlineTimeout() + " (cluster manager " + participantId + ")");
        counters.targetsMarkedOffline.incrementAndGet();
      } catch (NamespaceException e) {
        if (e.status() != NamespaceStatus.NOT_FOUND) {
          throw e;
        }
        LOG.debug("target {} left the registry before its mark",
            t.id());
      }
    }
  }
}
