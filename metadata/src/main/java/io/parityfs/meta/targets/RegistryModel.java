package io.parityfs.meta.targets;

import io.parityfs.meta.Layout;
import io.parityfs.meta.registry.NodeRecord;
import io.parityfs.meta.registry.OfflineRecord;
import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.meta.registry.RetiredRecord;
import io.parityfs.meta.registry.TargetRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The registry's records as last read, keyed by znode name, and what it remembers beyond them
 * (when each node was last seen online, each target's last reported status). Confined to the
 * registry's worker thread; {@link #snapshot} makes the immutable picture readers get.
 */
final class RegistryModel {
  /** An online record and the zxid that created its znode (which session registration). */
  record Online(OnlineRecord record, long czxid) {}

  /**
   * An offline mark, the zxid of its last write, and its version (for a guarded delete).
   */
  record Mark(OfflineRecord record, long mzxid, int version) {}

  /** A mark whose target's node registered after it: to be deleted. */
  record Superseded(String targetId, String nodeId, String reason, int version) {}

  private final long openedMillis;
  final Map<String, NodeRecord> nodes = new HashMap<>();
  final Map<String, TargetRecord> targets = new HashMap<>();
  final Map<String, Online> online = new HashMap<>();
  final Map<String, Mark> marks = new HashMap<>();
  final Map<String, RetiredRecord> retired = new HashMap<>();
  private final Map<String, Long> goneSince = new HashMap<>();
  private final Map<String, OnlineRecord.TargetStatus> lastStatus = new HashMap<>();
  private final Map<String, String> unreadable = new TreeMap<>();

  RegistryModel(long openedMillis) {
    this.openedMillis = openedMillis;
  }

  void putOnline(String nodeId, OnlineRecord record, long czxid) {
    online.put(nodeId, new Online(record, czxid));
    goneSince.remove(nodeId);
    for (OnlineRecord.TargetStatus s : record.targets()) {
      if (s.targetId() != null) {
        lastStatus.put(s.targetId(), s);
      }
    }
  }

  /** The node's online record is gone (or unreadable) as of {@code nowMillis}. */
  void removeOnline(String nodeId, long nowMillis) {
    if (online.remove(nodeId) != null) {
      goneSince.put(nodeId, nowMillis);
    }
  }

  void unreadable(String path, String why) {
    unreadable.put(path, why);
  }

  void readable(String path) {
    unreadable.remove(path);
  }

  /** Marks that no longer hold: their target's node created its online record since. */
  List<Superseded> superseded() {
    List<Superseded> out = new ArrayList<>();
    Map<String, Online> byTarget = onlineByTarget();
    marks.forEach((id, m) -> {
      Online o = byTarget.get(id);
      if (o != null && o.czxid() > m.mzxid()) {
        out.add(new Superseded(id, o.record().nodeId(), m.record().reason(), m.version()));
      }
    });
    return out;
  }

  RegistrySnapshot snapshot() {
    Map<String, Online> byTarget = onlineByTarget();
    TreeSet<String> ids = new TreeSet<>(targets.keySet());
    ids.addAll(byTarget.keySet());
    Map<String, RegistrySnapshot.Entry> entries = new HashMap<>();
    for (String id : ids) {
      TargetRecord r = targets.get(id);
      Online o = byTarget.get(id);
      OnlineRecord.TargetStatus live = o == null ? null : status(o.record(), id);
      OnlineRecord.TargetStatus last = live != null ? live : lastStatus.get(id);
      RetiredRecord mark = retired.get(id);
      String nodeId = o != null ? o.record().nodeId() : r.nodeId();
      NodeRecord n = nodes.get(nodeId);
      String address = n != null ? address(n.host(), n.port())
          : o != null ? address(o.record().host(), o.record().port()) : "";
      String name = r != null ? r.name() : live.name();
      String pool = r != null ? r.pool() : Layout.DEFAULT_POOL;
      String protection = live != null ? live.protection() : r.protection();
      long capacity = live != null ? live.capacityBytes() : r.capacityBytes();
      long free = last == null ? 0 : last.freeBytes();
      long lost = last == null ? 0 : Math.max(0, last.lostObjects());
      Consistency consistency = Consistency.of(live != null ? live.state() : r.state(), lost);
      long updated = Math.max(o == null ? 0 : o.record().updatedMillis(),
          r == null ? 0 : r.updatedMillis());
      Mark m = marks.get(id);
      String markReason = m != null && (o == null || o.czxid() < m.mzxid())
          ? (m.record().reason().isEmpty() ? "marked offline" : m.record().reason()) : null;
      long gone = goneSince.getOrDefault(nodeId, openedMillis);
      entries.put(id, new RegistrySnapshot.Entry(id, nodeId, address, name, pool, protection,
          capacity, free, consistency, updated, o != null, markReason, gone,
          last == null ? Map.of() : fileSystems(last), n == null ? "" : n.domain(),
          mark == null ? Standing.IN_SERVICE : Standing.of(mark.standing()),
          mark == null ? "" : mark.reason(), lost,
          last == null ? List.of() : lostObjectIds(last)));
    }
    long highest = 0;
    for (TargetRecord r : targets.values()) {
      highest = Math.max(highest, r.maxFileId());
    }
    return new RegistrySnapshot(entries, unreadable, highest);
  }

  /** Target id to the online record listing it (the newest, if two nodes claim one target). */
  private Map<String, Online> onlineByTarget() {
    Map<String, Online> out = new HashMap<>();
    for (Online o : online.values()) {
      for (OnlineRecord.TargetStatus s : o.record().targets()) {
        if (s.targetId() == null) {
          continue;
        }
        out.merge(s.targetId(), o,
            (a, b) -> a.record().updatedMillis() >= b.record().updatedMillis() ? a : b);
      }
    }
    return out;
  }

  /**
   * The lost object ids a status lists, parsed from hexadecimal; an entry that does not parse
   * (not 1 to 16 hexadecimal digits) is left out.
   */
  private static List<Long> lostObjectIds(OnlineRecord.TargetStatus s) {
    List<Long> out = new ArrayList<>(s.lostIds().size());
    for (String hex : s.lostIds()) {
      if (hex.isEmpty() || hex.length() > 16) {
        continue;
      }
      try {
        out.add(Long.parseUnsignedLong(hex, 16));
      } catch (NumberFormatException e) {
        // a node's bug or a newer format: the count still makes the target DAMAGED
      }
    }
    return out;
  }

  /** The file systems a status names, by id; empty if any entry is unusable. */
  private static Map<String, Integer> fileSystems(OnlineRecord.TargetStatus s) {
    Map<String, Integer> out = new HashMap<>();
    for (OnlineRecord.FileSystemShare f : s.fileSystems()) {
      if (f == null || f.id() == null || f.id().isEmpty() || f.drives() <= 0) {
        return Map.of();
      }
      out.merge(f.id(), f.drives(), Integer::sum);
    }
    return out;
  }

  private static OnlineRecord.TargetStatus status(OnlineRecord r, String targetId) {
    for (OnlineRecord.TargetStatus s : r.targets()) {
      if (targetId.equals(s.targetId())) {
        return s;
      }
    }
    return null;
  }

  static String address(String host, int port) {
    if (host == null || host.isEmpty()) {
      return "";
    }
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
