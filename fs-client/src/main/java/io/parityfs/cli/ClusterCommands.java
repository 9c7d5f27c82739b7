package io.parityfs.cli;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Across;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.SpaceTotal;
import io.parityfs.meta.targets.Standing;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.admin.AdminCodec;
import io.parityfs.node.protocol.admin.NodeInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** What the target registry shows: df, nodes, targets. */
final class ClusterCommands {
  private ClusterCommands() {}

  static List<TargetInfo> sortedTargets(ParityClient c) {
    List<TargetInfo> all = new ArrayList<>(c.registry().targets());
    all.sort(Comparator.comparing(TargetInfo::nodeId).thenComparing(TargetInfo::name)
        .thenComparing(TargetInfo::id));
    return all;
  }

  /** {@code df [-h]}. */
  @Command(name = "df", description = "Capacity and free space per pool, from the target"
      + " registry: raw (the drives), the size after the protection inside each node, and what"
      + " new files under / can hold with its protection across nodes.")
  static final class Df extends CliCommand {
    @Option(names = "-h", description = "sizes in KiB, MiB, ...")
    boolean human;

    @Override
    void run(Session s) throws CliException, IOException {
      Map<String, long[]> pools = new TreeMap<>(); // targets, online, capacity, free, raw
      Map<String, List<TargetInfo>> members = new TreeMap<>();
      List<TargetInfo> all = s.client().registry().targets();
      for (TargetInfo t : all) {
        members.computeIfAbsent(t.pool(), k -> new ArrayList<>()).add(t);
      }
      members.forEach((pool, targets) -> pools.put(pool, counts(targets)));
      long[] total = counts(all);
      Layout root = s.client().namespace().getStatus("/").layout();
      Across across = root.across();
      long[] rootPool = pools.getOrDefault(root.pool(), new long[5]);
      long usable = (long) (rootPool[3] / across.mediaFactor());
      if (s.json()) {
        List<Object> list = new ArrayList<>();
        pools.forEach((name, a) -> list.add(json(name, a)));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pools", list);
        m.put("total", json(null, total));
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("pool", root.pool());
        r.put("protection", root.protection());
        r.put("across", across.toString());
        r.put("acrossMediaFactor", across.mediaFactor());
        r.put("usableBytes", usable);
        m.put("root", r);
        s.printJson(m);
        return;
      }
      Table t = new Table("lrrrrrrr");
      t.row("POOL", "TARGETS", "ONLINE", "RAW", "SIZE", "USED", "AVAILABLE", "USE%");
      pools.forEach((name, a) -> row(t, name, a));
      row(t, "total", total);
      t.print(s.out());
      s.out().printf(Locale.ROOT, "RAW: the drives; SIZE, USED, AVAILABLE: after the protection"
          + " inside each node.%nNew files under / (%s inside, %s across nodes, pool %s): %s of"
          + " data fit in the available space (%.2fx across nodes).%n", root.protection(),
          across, root.pool(), Sizes.of(usable, human), across.mediaFactor());
    }

    /**
     * Targets, online targets, capacity and free space (a file system shared counted once), and
     * the raw bytes behind the capacity: each target's protection inside its node weighted by
     * its own capacity estimate.
     */
    private static long[] counts(List<TargetInfo> targets) {
      SpaceTotal space = SpaceTotal.of(targets);
      long online = targets.stream().filter(t -> t.reachability() == Reachability.ONLINE).count();
      double weighted = 0;
      double weights = 0;
      for (TargetInfo t : targets) {
        try {
          weighted += t.capacityBytes() * Layout.insideMediaFactor(t.protection());
          weights += t.capacityBytes();
        } catch (IllegalArgumentException e) {
          // a scheme a newer node reports: counted at its capacity
          weighted += t.capacityBytes();
          weights += t.capacityBytes();
        }
      }
      long raw = weights == 0 ? 0 : (long) (space.capacityBytes() * (weighted / weights));
      return new long[] {targets.size(), online, space.capacityBytes(), space.freeBytes(), raw};
    }

    private void row(Table t, String name, long[] a) {
      long used = Math.max(0, a[2] - a[3]);
      t.row(name, a[0], a[1], Sizes.of(a[4], human), Sizes.of(a[2], human), Sizes.of(used, human),
          Sizes.of(a[3], human), a[2] == 0 ? "-" : String.format(Locale.ROOT, "%.0f%%",
              100.0 * used / a[2]));
    }

    private static Map<String, Object> json(String pool, long[] a) {
      Map<String, Object> m = new LinkedHashMap<>();
      if (pool != null) {
        m.put("pool", pool);
      }
      m.put("targets", a[0]);
      m.put("online", a[1]);
      m.put("rawBytes", a[4]);
      m.put("capacityBytes", a[2]);
      m.put("usedBytes", Math.max(0, a[2] - a[3]));
      m.put("freeBytes", a[3]);
      return m;
    }
  }

  /** {@code nodes}. */
  @Command(name = "nodes", description = "Storage nodes: id, address, state, targets, version"
      + " (asked of each online node).")
  static final class Nodes extends CliCommand {
    @Override
    void run(Session s) throws CliException {
      ParityClient c = s.client();
      Map<String, List<TargetInfo>> byNode = new TreeMap<>();
      for (TargetInfo t : sortedTargets(c)) {
        byNode.computeIfAbsent(t.nodeId(), k -> new ArrayList<>()).add(t);
      }
      List<Map<String, Object>> rows = new ArrayList<>();
      for (Map.Entry<String, List<TargetInfo>> e : byNode.entrySet()) {
        List<TargetInfo> ts = e.getValue();
        Reachability state = ts.stream().map(TargetInfo::reachability)
            .min(Comparator.naturalOrder()).orElse(Reachability.OFFLINE);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("nodeId", e.getKey());
        m.put("address", ts.get(0).address());
        m.put("state", state.name());
        m.put("targets", ts.stream().map(TargetInfo::id).toList());
        m.put("version", state == Reachability.ONLINE ? version(c, ts.get(0)) : null);
        rows.add(m);
      }
      if (s.json()) {
        s.printJson(rows);
        return;
      }
      Table t = new Table("lllrl");
      t.row("NODE", "ADDRESS", "STATE", "TARGETS", "VERSION");
      for (Map<String, Object> m : rows) {
        t.row(m.get("nodeId"), m.get("address"), m.get("state"),
            ((List<?>) m.get("targets")).size(), m.get("version"));
      }
      t.print(s.out());
    }

    private static String version(ParityClient c, TargetInfo t) {
      try {
        return AdminCodec.decode(c.nodes().admin().nodeInfo(t.socketAddress()), NodeInfo.class)
            .version();
      } catch (IOException e) {
        // registered but not answering (or answering what this CLI cannot read): the state
        // column says ONLINE, version "-"
        return null;
      }
    }
  }

  /** {@code targets [-h]}. */
  @Command(name = "targets", description = "Storage targets with their states: reachability"
      + " (ONLINE, PROBABLY_OFFLINE, OFFLINE), consistency (GOOD, DEGRADED, REBUILDING,"
      + " DAMAGED: a scrub found objects beyond repair, FAILED) and the level across nodes (good, needs-resync with the files whose repair"
      + " records name it, draining, bad).")
  static final class Targets extends CliCommand {
    @Option(names = "-h", description = "sizes in KiB, MiB, ...")
    boolean human;

    @Override
    void run(Session s) throws CliException, IOException {
      List<TargetInfo> all = sortedTargets(s.client());
      // the level across nodes: retired, or named by repair records (the repair index)
      Map<String, Integer> resync = new HashMap<>();
      for (Namespace.ToRepair f : s.client().namespace().filesToRepair()) {
        f.targets().forEach(t -> resync.merge(t, 1, Integer::sum));
      }
      if (s.json()) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (TargetInfo i : all) {
          Map<String, Object> m = Json.target(i);
          m.put("across", across(i, resync));
          m.put("standingReason", i.standingReason());
          m.put("filesToResync", resync.getOrDefault(i.id(), 0));
          rows.add(m);
        }
        s.printJson(rows);
        return;
      }
      Table t = new Table("llllllrrlll");
      t.row("TARGET", "NODE", "ADDRESS", "NAME", "POOL", "PROTECTION", "SIZE", "FREE",
          "REACHABILITY", "CONSISTENCY", "ACROSS");
      for (TargetInfo i : all) {
        int files = resync.getOrDefault(i.id(), 0);
        t.row(i.id(), i.nodeId(), i.address(), i.name(), i.pool(), i.protection(),
            Sizes.of(i.capacityBytes(), human), Sizes.of(i.freeBytes(), human),
            i.reachability() + (i.offlineReason().isEmpty() ? "" : " (" + i.offlineReason()
                + ")"), i.consistency(), across(i, resync) + (files > 0
                ? " (" + files + (files == 1 ? " file)" : " files)") : ""));
      }
      t.print(s.out());
    }

    /** good, needs-resync, draining or bad (docs/across-nodes.md §5). */
    private static String across(TargetInfo i, Map<String, Integer> resync) {
      if (i.standing() != Standing.IN_SERVICE) {
        return i.standing().label();
      }
      return resync.containsKey(i.id()) ? "needs-resync" : "good";
    }
  }
}
