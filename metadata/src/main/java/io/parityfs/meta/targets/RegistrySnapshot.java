package io.parityfs.meta.targets;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An immutable picture of the registry, published by the worker after each change. Everything
 * but reachability is fixed at publication; reachability depends on the time of the question.
 *
 * @param entries by target id, in id order
 * @param unreadable znode path to why it could not be read
 * @param highestFileId the largest {@code maxFileId} of the target records, 0 for none
 */
record RegistrySnapshot(Map<String, Entry> entries, Map<String, String> unreadable,
    long highestFileId) {
  static final RegistrySnapshot EMPTY = new RegistrySnapshot(Map.of(), Map.of(), 0);

  /**
   * One target, time aside.
   *
   * @param online its node's online record lists it now
   * @param markReason the reason of an offline mark that holds, null when none holds
   * @param goneSinceMillis when it was last seen online (registry clock; for a node never seen,
   *     when the registry opened); unused while online
   * @param fileSystems see {@link TargetInfo#fileSystems()}
   * @param domain see {@link TargetInfo#domain()}
   * @param standing see {@link TargetInfo#standing()}
   * @param standingReason see {@link TargetInfo#standingReason()}
   * @param lostObjects see {@link TargetInfo#lostObjects()}
   * @param lostObjectIds see {@link TargetInfo#lostObjectIds()}
   */
  record Entry(String id, String nodeId, String address, String name, String pool,
      String protection, long capacityBytes, long freeBytes, Consistency consistency,
      long updatedMillis, boolean online, String markReason, long goneSinceMillis,
      Map<String, Integer> fileSystems, String domain, Standing standing,
      String standingReason, long lostObjects, List<Long> lostObjectIds) {

    TargetInfo at(long nowMillis, Duration offlineTimeout) {
      Reachability r;
      if (markReason != null) {
        r = Reachability.OFFLINE;
      } else if (online) {
        r = Reachability.ONLINE;
      } else if (nowMillis - goneSinceMillis < offlineTimeout.toMillis()) {
        r = Reachability.PROBABLY_OFFLINE;
      } else {
        r = Reachability.OFFLINE;
      }
      return new TargetInfo(id, nodeId, address, name, pool, protection, capacityBytes,
          freeBytes, r, consistency, Instant.ofEpochMilli(updatedMillis),
          markReason == null ? "" : markReason, fileSystems, domain, standing, standingReason,
          online ? null : Instant.ofEpochMilli(goneSinceMillis), lostObjects, lostObjectIds);
    }
  }

  RegistrySnapshot {
    entries = Collections.unmodifiableMap(new TreeMap<>(entries)); // iterated in id order
    unreadable = Map.copyOf(unreadable);
  }

  List<TargetInfo> targets(long nowMillis, Duration offlineTimeout) {
    List<TargetInfo> out = new ArrayList<>(entries.size());
    for (Entry e : entries.values()) {
      out.add(e.at(nowMillis, offlineTimeout));
    }
    return out;
  }

  Optional<TargetInfo> target(String id, long nowMillis, Duration offlineTimeout) {
    Entry e = entries.get(id);
    return e == null ? Optional.empty() : Optional.of(e.at(nowMillis, offlineTimeout));
  }
}
