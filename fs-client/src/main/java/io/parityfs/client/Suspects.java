package io.parityfs.client;

import io.parityfs.meta.targets.Reachability;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The targets this client should not try first: a per-client <em>suspect list</em> of targets
 * a transfer failed on in the last {@code window} (docs/across-nodes.md §4), and the targets
 * the registry sees as OFFLINE or PROBABLY_OFFLINE. A reader with another source for a chunk (a
 * mirror copy) tries healthy targets first, so it does not wait out a node client's retries on
 * every chunk of a node known to be down; a suspect is tried again (first) once its window has
 * passed. Thread-safe.
 */
final class Suspects {
  private final long windowNanos;
  private final LongSupplier clock;
  private final ConcurrentHashMap<String, Long> until = new ConcurrentHashMap<>();

  /**
   * @param windowNanos how long a failed target stays suspect
   * @param clock {@link System#nanoTime} (a test's own clock otherwise)
   */
  Suspects(long windowNanos, LongSupplier clock) {
    if (windowNanos < 0) {
      throw new IllegalArgumentException("window (" + windowNanos + " ns) must be >= 0");
    }
    this.windowNanos = windowNanos;
    this.clock = clock;
  }

  /** Notes that a transfer to {@code target} failed now. */
  void failed(String target) {
    until.put(target, clock.getAsLong() + windowNanos);
  }

  /**
   * Notes that {@code target}'s node answered now (a transfer done, or refused for the chunk's
   * sake): it is no longer suspect, whatever failed before.
   */
  void answered(String target) {
    if (!until.isEmpty()) {
      until.remove(target);
    }
  }

  /** Whether a transfer to {@code target} failed within the window. */
  boolean suspect(String target) {
    Long u = until.get(target);
    if (u == null) {
      return false;
    }
    if (clock.getAsLong() - u >= 0) {
      until.remove(target, u);
      return false;
    }
    return true;
  }

  /**
   * {@code targets} in their order, the healthy ones first: a target is put last when it is
   * suspect or the registry (through {@code locator}) sees it offline or does not know it.
   */
  List<String> healthyFirst(List<String> targets, TargetLocator locator) {
    List<String> healthy = new ArrayList<>(targets.size());
    List<String> last = new ArrayList<>();
    for (String t : targets) {
      (healthy(t, locator) ? healthy : last).add(t);
    }
    healthy.addAll(last);
    return healthy;
  }

  /**
   * Whether {@code target} is worth trying first: not suspect, and ONLINE in the registry (as
   * {@code locator} sees it; a target it does not know is not).
   */
  boolean healthy(String target, TargetLocator locator) {
    return !suspect(target) && online(target, locator);
  }

  static boolean online(String target, TargetLocator locator) {
    try {
      return locator.locate(target).info().reachability() == Reachability.ONLINE;
    } catch (IOException e) {
      return false;
    }
  }
}
