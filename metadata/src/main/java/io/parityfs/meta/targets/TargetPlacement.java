package io.parityfs.meta.targets;

import io.parityfs.meta.Layout;
import io.parityfs.meta.LayoutPlacer;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.registry.ZkPaths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the storage targets of a new file: {@link #place(Layout)} returns the layout with its
 * {@code stripeCount} targets filled in.
 *
 * <p><b>Rule.</b>
 * <ol>
 *   <li>Targets the layout already names are kept, in order, after checking each is known,
 *       ONLINE, not FAILED and in service (not draining or bad); they are not checked against the
 *       pool, protection or free space: the caller chose them. Ids twice in the list are a caller mistake.
 *   <li>The rest are drawn from the layout's {@link Layout#pool() pool}, among targets that are
 *       {@link Reachability#ONLINE}, not {@link Consistency#FAILED} (DEGRADED and REBUILDING
 *       arrays still take writes and are used) and not full (free below {@link
 *       PlacementConfig#reserveFor reserve}, by default max(1 GiB, 1 % of capacity)), all
 *       distinct, and {@link Standing#IN_SERVICE} (a draining or bad target is not counted in
 *       the pool).
 *   <li>Each draw is random, weighted by free bytes, without replacement. It draws from the
 *       targets whose protection is the layout's while any are left, then from the others; and
 *       among those, from the targets on the nodes holding the fewest targets of this file so far
 *       (first the nodes it does not use yet). So a file is spread over as many nodes as the pool
 *       allows and evenly beyond that, and takes targets of its own protection whenever there
 *       are enough of them, mixing in others only to reach its stripe count rather than
 *       failing.
 *   <li>The stripe count is the most a file uses. When fewer targets are eligible than it
 *       wants (nodes down, targets full or failed), the file is placed on the eligible ones,
 *       as Lustre and BeeGFS do, with its stripe count lowered to match (logged), so a node
 *       that is down does not fail every create. It is never lowered below the policy's width
 *       (K+M, N; 1 without a policy): below that the create fails.
 *   <li>A layout with protection across nodes ({@link Layout#across()} other than none, of
 *       width w: K+M or N) also needs every w cyclically consecutive targets on distinct nodes
 *       (docs/across-nodes.md): each draw is only among targets on nodes that the positions
 *       within w of it do not use, and never falls back to such a node. Named targets that
 *       break the rule are refused.
 *   <li>When the online targets of such a layout are on fewer than w failure domains but on at
 *       least as many as a group is read from (K for ec:K+M, 1 for mirror:N), the file is placed
 *       <em>degraded from birth</em> on one group of w targets: the online ones first, then an
 *       offline (not failed) target of each missing domain. Its writers leave those members out
 *       and record them in the file's repair record (docs/across-nodes.md §3, §5), so a node
 *       down does not fail every create of ec:2+1 on three nodes.
 * </ol>
 *
 * <p><b>Errors</b> (fewer eligible targets than the minimum) are a {@link NamespaceException}
 * naming the pool, the count wanted, how many
 * targets were eligible and why the others were skipped (for a policy across nodes, also how
 * many distinct nodes it needs and how many the eligible targets are on): NO_SPACE when full
 * targets are what is missing (there would be enough were they not full), UNAVAILABLE otherwise
 * (targets offline or failed, a pool with too few or no targets, too few nodes for the policy;
 * worth retrying once nodes return). A named target
 * that is unknown is NOT_FOUND, one that is not ONLINE or is FAILED UNAVAILABLE.
 *
 * <p>Thread-safe. Reads the registry's current view on every call; costs O(stripe count ×
 * targets in the pool).
 */
public final class TargetPlacement implements LayoutPlacer {
  private static final Logger LOG = LoggerFactory.getLogger(TargetPlacement.class);
  private final TargetRegistry registry;
  private final PlacementConfig config;
  private final Random seeded;

  public TargetPlacement(TargetRegistry registry, PlacementConfig config) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.config = Objects.requireNonNull(config, "config");
    this.seeded = config.seed().isPresent() ? new Random(config.seed().getAsLong()) : null;
  }

  /**
   * {@code requested} with {@code stripeCount} targets: those it names, then the ones chosen.
   * Errors name the registry's target folder as their path; see {@link #place(Layout, String)}.
   *
   * @throws IllegalArgumentException when {@code requested} names a target twice
   * @throws NamespaceException NO_SPACE, UNAVAILABLE or NOT_FOUND, see the class comment
   */
  public Layout place(Layout requested) throws NamespaceException {
    return place(requested, ZkPaths.TARGETS);
  }

  /**
   * {@link #place(Layout)} for the file at {@code path}, which errors name.
   */
  @Override
  public Layout place(Layout requested, String path) throws NamespaceException {
    Objects.requireNonNull(requested, "requested");
    List<TargetInfo> all = registry.targets();
    Map<String, TargetInfo> byId = new HashMap<>();
    all.forEach(t -> byId.put(t.id(), t));

    if (new HashSet<>(requested.targets()).size() != requested.targets().size()) {
      throw new IllegalArgumentException("layout names a target twice: " + requested.targets());
    }
    List<String> chosen = new ArrayList<>(requested.stripeCount());
    List<String> chosenDomains = new ArrayList<>(requested.stripeCount());
    Map<String, Integer> nodeUses = new HashMap<>();
    for (String id : requested.targets()) {
      TargetInfo t = checkNamed(id, byId.get(id), path);
      chosen.add(id);
      chosenDomains.add(t.failureDomain());
      nodeUses.merge(t.nodeId(), 1, Integer::sum);
    }
    checkNamedWindows(requested, chosenDomains);
    int wanted = requested.stripeCount() - chosen.size();
    if (wanted == 0) {
      return requested;
    }

    String protection = requested.protection().toLowerCase(Locale.ROOT);
    List<TargetInfo> eligible = new ArrayList<>();
    List<TargetInfo> standby = new ArrayList<>(); // offline but not failed: may come back
    int inPool = 0;
    int offline = 0;
    int probablyOffline = 0;
    int failed = 0;
    int full = 0;
    for (TargetInfo t : all) {
      if (!t.pool().equals(requested.pool()) || chosen.contains(t.id())
          || t.standing() != Standing.IN_SERVICE) {
        continue; // a draining or bad target takes nothing new (docs/across-nodes.md §5)
      }
      inPool++;
      if (t.reachability() != Reachability.ONLINE && t.consistency() != Consistency.FAILED) {
        standby.add(t);
      }
      if (t.reachability() == Reachability.OFFLINE) {
        offline++;
      } else if (t.reachability() == Reachability.PROBABLY_OFFLINE) {
        probablyOffline++;
      } else if (t.consistency() == Consistency.FAILED) {
        failed++;
      } else if (t.freeBytes() < config.reserveFor(t.capacityBytes())) {
        full++;
      } else {
        eligible.add(t);
      }
    }
    int width = requested.across().width();
    List<TargetInfo> degraded = degradedFromBirth(requested, chosenDomains, eligible, standby);
    if (!degraded.isEmpty()) {
      LOG.warn("{}: {} across nodes has targets online on too few"
          + " nodes; placed on one group of {}, degraded from birth: its members on the {}"
          + " offline nodes are left out by writes (the file's repair record) until they"
          + " return", path, requested.across(), width, width - distinctDomains(chosenDomains,
          eligible));
      requested = requested.withStripeCount(width);
      wanted = width - chosen.size();
      eligible.addAll(degraded);
    }
    int minimum = Math.max(1, width) - chosen.size();
    if (eligible.size() < Math.max(minimum, 1)) {
      throw notEnough(requested, path, all, wanted, eligible.size(), inPool, offline,
          probablyOffline, failed, full);
    }
    if (eligible.size() < wanted) {
      LOG.warn("{}: placed on {} of the {} targets its layout"
          + " stripes over; skipped in pool '{}': {}", path, chosen.size() + eligible.size(),
          requested.stripeCount(), requested.pool(),
          skipped(offline, probablyOffline, failed, full));
      requested = requested.withStripeCount(chosen.size() + eligible.size());
      wanted = eligible.size();
    }

    if (width > 1) {
      Set<String> nodes = new HashSet<>(chosenDomains);
      eligible.forEach(t -> nodes.add(t.failureDomain()));
      if (nodes.size() < width) {
        throw acrossUnavailable(requested, path, eligible, inPool);
      }
    }
    RandomGenerator random = seeded != null ? seeded : ThreadLocalRandom.current();
    for (int i = 0; i < wanted; i++) {
      Set<String> taken = windowNodes(chosenDomains, chosen.size(), width,
          requested.stripeCount());
      List<TargetInfo> allowed = eligible;
      if (!taken.isEmpty()) {
        allowed = new ArrayList<>();
        for (TargetInfo t : eligible) {
          if (!taken.contains(t.failureDomain())) {
            allowed.add(t);
          }
        }
        if (allowed.isEmpty()) {
          throw acrossUnavailable(requested, path, eligible, inPool);
        }
      }
      if (!degraded.isEmpty()) {
        // online targets first: the offline ones only where the window rule leaves nothing else
        List<TargetInfo> online = new ArrayList<>(allowed);
        online.removeAll(degraded);
        allowed = online.isEmpty() ? allowed : online;
      }
      TargetInfo pick = draw(allowed, protection, nodeUses, random);
      eligible.remove(pick);
      chosen.add(pick.id());
      chosenDomains.add(pick.failureDomain());
      nodeUses.merge(pick.nodeId(), 1, Integer::sum);
    }
    return requested.withTargets(chosen);
  }

  /**
   * A target to take over position {@code position} of an existing file's {@code layout}
   * (re-protection, drain; docs/across-nodes.md §5): drawn as rule 2 and 3 draw, among the
   * {@link #candidates}.
   *
   * @throws NamespaceException UNAVAILABLE naming the pool and how many targets were considered
   *     when none qualifies
   */
  public String replacement(Layout layout, int position, String path)
      throws NamespaceException {
    List<TargetInfo> allowed = allowed(layout, position, path);
    Map<String, Integer> nodeUses = new HashMap<>();
    for (String id : layout.targets()) {
      registry.target(id).ifPresent(t -> nodeUses.merge(t.nodeId(), 1, Integer::sum));
    }
    RandomGenerator random = seeded != null ? seeded : ThreadLocalRandom.current();
    return draw(allowed, layout.protection().toLowerCase(Locale.ROOT), nodeUses, random).id();
  }

  /**
   * The ids of the targets that may take over position {@code position} of {@code layout}: the
   * placeable ones of its pool that it does not name, not full, on a failure domain that no
   * target within the policy's width of the position uses (the file's other targets are not
   * checked: some may be down or retired themselves). UNAVAILABLE as {@link #replacement}.
   */
  public List<String> candidates(Layout layout, int position, String path)
      throws NamespaceException {
    return allowed(layout, position, path).stream().map(TargetInfo::id).toList();
  }

  private List<TargetInfo> allowed(Layout layout, int position, String path)
      throws NamespaceException {
    List<TargetInfo> all = registry.targets();
    Map<String, TargetInfo> byId = new HashMap<>();
    all.forEach(t -> byId.put(t.id(), t));
    List<String> targets = layout.targets();
    List<String> domains = new ArrayList<>();
    for (String id : targets) {
      TargetInfo t = byId.get(id);
      domains.add(t == null ? "target " + id : t.failureDomain());
    }
    Set<String> taken = new HashSet<>();
    int width = Math.max(1, layout.across().width());
    for (int d = 1; d < width; d++) {
      taken.add(domains.get(Math.floorMod(position - d, targets.size())));
      taken.add(domains.get((position + d) % targets.size()));
    }
    taken.remove(domains.get(position));
    List<TargetInfo> allowed = new ArrayList<>();
    int inPool = 0;
    for (TargetInfo t : all) {
      if (!t.pool().equals(layout.pool()) || targets.contains(t.id())) {
        continue;
      }
      inPool++;
      if (t.placeable() && !taken.contains(t.failureDomain())
          && t.freeBytes() >= config.reserveFor(t.capacityBytes())) {
        allowed.add(t);
      }
    }
    if (allowed.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path, "no target to replace "
          + targets.get(position) + ": of the " + inPool + " other targets in pool '"
          + layout.pool() + "', none is online, in service, not full and on a failure domain"
          + " that the " + (2 * (width - 1)) + " positions around it leave free (" + taken
          + ")");
    }
    return allowed;
  }

  /**
   * The offline targets a new file of a policy across nodes is placed on when the online ones
   * are on fewer failure domains than its width, but still on at least as many as a group is
   * read from (K for ec:K+M, one for mirror:N), so that a node down does not fail every create
   * (docs/across-nodes.md §5): one per missing domain is enough, since the file then gets one
   * group's width of targets. Empty when not needed or not enough.
   */
  private static List<TargetInfo> degradedFromBirth(Layout requested, List<String> chosenDomains,
      List<TargetInfo> eligible, List<TargetInfo> standby) {
    int width = requested.across().width();
    int have = distinctDomains(chosenDomains, eligible);
    if (width <= 1 || have >= width) {
      return List.of();
    }
    int readable = requested.across().isErasureCoded() ? requested.across().data() : 1;
    if (have < readable) {
      return List.of();
    }
    Set<String> domains = new HashSet<>(chosenDomains);
    eligible.forEach(t -> domains.add(t.failureDomain()));
    List<TargetInfo> out = new ArrayList<>();
    for (TargetInfo t : standby) {
      if (domains.size() >= width) {
        break;
      }
      if (domains.add(t.failureDomain())) {
        out.add(t);
      }
    }
    return domains.size() >= width ? out : List.of();
  }

  private static int distinctDomains(List<String> chosenDomains, List<TargetInfo> eligible) {
    Set<String> domains = new HashSet<>(chosenDomains);
    eligible.forEach(t -> domains.add(t.failureDomain()));
    return domains.size();
  }

  /**
   * Refuses a layout that no create could ever be placed with, whatever the targets' states:
   * a target it names that the registry does not know (NOT_FOUND), a pool without targets
   * (NOT_FOUND, listing the pools known), or a stripe count above the named targets plus the
   * other targets of the pool ({@link IllegalArgumentException}, naming both numbers). Targets
   * offline, failed or full now are counted: they may come back. Reads the registry's view.
   */
  @Override
  public void check(Layout layout, String path) throws NamespaceException {
    Objects.requireNonNull(layout, "layout");
    List<TargetInfo> all = registry.targets();
    Set<String> known = new HashSet<>();
    all.forEach(t -> known.add(t.id()));
    if (new HashSet<>(layout.targets()).size() != layout.targets().size()) {
      throw new IllegalArgumentException("layout names a target twice: " + layout.targets());
    }
    for (String id : layout.targets()) {
      if (!known.contains(id)) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "layout names target "
            + id + ", which the target registry does not know (" + all.size()
            + " targets known)");
      }
    }
    int wanted = layout.stripeCount() - layout.targets().size();
    if (wanted == 0) {
      return;
    }
    int inPool = 0;
    Set<String> pools = new TreeSet<>();
    for (TargetInfo t : all) {
      pools.add(t.pool());
      if (t.pool().equals(layout.pool()) && !layout.targets().contains(t.id())) {
        inPool++;
      }
    }
    if (!pools.contains(layout.pool())) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "pool '" + layout.pool()
          + "' has no targets (pools known: "
          + (pools.isEmpty() ? "none" : String.join(", ", pools)) + ")");
    }
    int width = layout.across().width();
    if (width > 1) {
      Map<String, TargetInfo> byId = new HashMap<>();
      all.forEach(t -> byId.put(t.id(), t));
      List<String> namedNodes = new ArrayList<>();
      layout.targets().forEach(id -> namedNodes.add(byId.get(id).failureDomain()));
      checkNamedWindows(layout, namedNodes);
      List<TargetInfo> candidates = new ArrayList<>();
      for (TargetInfo t : all) {
        if (t.pool().equals(layout.pool()) || layout.targets().contains(t.id())) {
          candidates.add(t);
        }
      }
      Set<String> nodes = new HashSet<>(namedNodes);
      candidates.forEach(t -> nodes.add(t.failureDomain()));
      if (nodes.size() < width) {
        throw new IllegalArgumentException(layout.across() + " across nodes needs targets "
            + spread(width, candidates) + "; pool '" + layout.pool() + "' has targets "
            + spreadFound(candidates) + " (" + targets(inPool + layout.targets().size()) + ")");
      }
    }
    if (wanted > inPool) {
      int named = layout.targets().size();
      throw new IllegalArgumentException("stripe count (" + layout.stripeCount() + ") is more"
          + " than " + (named == 0 ? "the " + targets(inPool) + " of pool '" + layout.pool() + "'"
              : "the " + targets(named) + " named plus the " + inPool + " other "
              + (inPool == 1 ? "target" : "targets") + " of pool '" + layout.pool() + "'"));
    }
  }

  /**
   * Refuses a layout whose {@link Layout#protection() protection} no target it could be placed
   * on provides: none of its pool's targets, nor of those it names, has that scheme. A layout
   * records the protection its data gets; placement prefers targets of that scheme and mixes in
   * others only to reach the stripe count, so with none of it in reach every file would be on
   * targets of another scheme while {@code getstripe} showed this one (issue 39: {@code
   * raid6:8+2} accepted on a pool of {@code raid6:4+2} targets). Schemes compare as text,
   * ignoring case ({@code rs:4+2} is not {@code raid6:4+2}: another code). Targets offline,
   * failed or full count: they may come back. A pool without targets is left to {@link #check}.
   *
   * <p>Called where a user asks for a protection or a pool (setstripe); not by
   * {@link #check}, since a layout inherited unchanged (the root's default) must stay settable
   * on a cluster whose targets offer another scheme.
   *
   * @throws IllegalArgumentException naming the protection asked for, the pool and the schemes
   *     its targets offer
   */
  public void checkProtection(Layout layout) {
    Objects.requireNonNull(layout, "layout");
    Set<String> offered = new TreeSet<>();
    int candidates = 0;
    for (TargetInfo t : registry.targets()) {
      if (t.pool().equals(layout.pool()) || layout.targets().contains(t.id())) {
        candidates++;
        offered.add(t.protection().toLowerCase(Locale.ROOT));
      }
    }
    if (candidates == 0 || offered.contains(layout.protection().toLowerCase(Locale.ROOT))) {
      return;
    }
    throw new IllegalArgumentException("protection (" + layout.protection() + ") is not offered"
        + " by any target of pool '" + layout.pool() + "'"
        + (layout.targets().isEmpty() ? "" : " or named") + ": its " + targets(candidates)
        + " offer " + String.join(", ", offered));
  }

  /**
   * The nodes that position {@code p} of a stripe of {@code stripeCount} must not use: those of
   * the filled positions within {@code width − 1} of it, cyclically (positions past the end
   * wrap to the first ones). Empty for a width of 1.
   */
  static Set<String> windowNodes(List<String> nodes, int p, int width, int stripeCount) {
    Set<String> taken = new HashSet<>();
    if (width <= 1) {
      return taken;
    }
    for (int d = 1; d < width; d++) {
      int before = Math.floorMod(p - d, stripeCount);
      int after = (p + d) % stripeCount;
      if (before < nodes.size() && before != p) {
        taken.add(nodes.get(before));
      }
      if (after < nodes.size() && after != p) {
        taken.add(nodes.get(after));
      }
    }
    return taken;
  }

  /** Refuses named targets of which two within one window of the layout share a node. */
  private static void checkNamedWindows(Layout layout, List<String> nodes) {
    int width = layout.across().width();
    for (int p = 1; p < nodes.size() && width > 1; p++) {
      Set<String> before = windowNodes(nodes.subList(0, p), p, width, layout.stripeCount());
      if (before.contains(nodes.get(p))) {
        throw new IllegalArgumentException("layout names targets in one " + nodes.get(p)
            + " within " + width + " positions of each other, which " + layout.across()
            + " across nodes puts on distinct nodes (and failure domains): "
            + layout.targets());
      }
    }
  }

  private static int distinctNodes(List<TargetInfo> targets) {
    Set<String> nodes = new HashSet<>();
    targets.forEach(t -> nodes.add(t.nodeId()));
    return nodes.size();
  }

  private static boolean labelled(List<TargetInfo> targets) {
    return targets.stream().anyMatch(t -> !t.domain().isEmpty());
  }

  /** "on 5 distinct nodes", or with node.domain labels "in 5 distinct failure domains". */
  private static String spread(int width, List<TargetInfo> targets) {
    return labelled(targets) ? "in " + width + " distinct failure domains (node.domain; a node"
        + " without one is a domain of its own)" : "on " + width + " distinct nodes";
  }

  /** "on 3 nodes", or with labels "in 2 failure domains on 4 nodes". */
  private static String spreadFound(List<TargetInfo> targets) {
    int nodes = distinctNodes(targets);
    String onNodes = "on " + nodes + (nodes == 1 ? " node" : " nodes");
    if (!labelled(targets)) {
      return onNodes;
    }
    Set<String> domains = new HashSet<>();
    targets.forEach(t -> domains.add(t.failureDomain()));
    return "in " + domains.size() + (domains.size() == 1 ? " failure domain " : " failure domains ")
        + onNodes;
  }

  private static NamespaceException acrossUnavailable(Layout requested, String path,
      List<TargetInfo> eligible, int inPool) {
    int width = requested.across().width();
    return new NamespaceException(NamespaceStatus.UNAVAILABLE, path, "placement in pool '"
        + requested.pool() + "': " + requested.across() + " across nodes needs targets "
        + spread(width, eligible) + " for every " + width
        + " consecutive of its " + requested.stripeCount() + " targets; the " + eligible.size()
        + " eligible targets (of " + inPool + " in the pool) are " + spreadFound(eligible));
  }

  private static String targets(int n) {
    return n + (n == 1 ? " target" : " targets");
  }

  /**
   * Refuses a layout whose named targets include one that is draining or bad: nothing new may
   * land on a target being emptied (docs/across-nodes.md §5).
   *
   * @throws NamespaceException UNAVAILABLE naming the target and its standing
   */
  @Override
  public void admitNamed(Layout layout, String path) throws NamespaceException {
    for (String id : layout.targets()) {
      TargetInfo t = registry.target(id).orElse(null);
      if (t != null) {
        refuseRetired(t, path);
      }
    }
  }

  private static void refuseRetired(TargetInfo t, String path) throws NamespaceException {
    if (t.standing() != Standing.IN_SERVICE) {
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path, "layout names target "
          + t.id() + " on node " + t.nodeId() + ", which is " + t.standing().label()
          + (t.standingReason().isEmpty() ? "" : " (" + t.standingReason() + ")")
          + ": nothing new is placed on it; set the directory's layout to other targets"
          + " (parityfs setstripe)");
    }
  }

  private static TargetInfo checkNamed(String id, TargetInfo t, String path)
      throws NamespaceException {
    if (t == null) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "layout names target " + id
          + ", which the target registry does not know");
    }
    refuseRetired(t, path);
    if (t.reachability() != Reachability.ONLINE || t.consistency() == Consistency.FAILED) {
      String why = t.reachability() != Reachability.ONLINE
          ? t.reachability() + (t.offlineReason().isEmpty() ? "" : " (" + t.offlineReason() + ")")
          : "FAILED";
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path, "layout names target "
          + id + " on node " + t.nodeId() + " " + t.address() + ", which is " + why);
    }
    return t;
  }

  /**
   * One weighted draw: among the targets of the layout's protection if any are left, else the
   * others; among those, from the ones whose node holds the fewest targets of this file so far.
   */
  private static TargetInfo draw(List<TargetInfo> eligible, String protection,
      Map<String, Integer> nodeUses, RandomGenerator random) {
    for (boolean matching : new boolean[] {true, false}) {
      int fewest = Integer.MAX_VALUE;
      for (TargetInfo t : eligible) {
        if (protection.equalsIgnoreCase(t.protection()) == matching) {
          fewest = Math.min(fewest, nodeUses.getOrDefault(t.nodeId(), 0));
        }
      }
      if (fewest == Integer.MAX_VALUE) {
        continue;
      }
      List<TargetInfo> candidates = new ArrayList<>();
      double total = 0;
      for (TargetInfo t : eligible) {
        if (protection.equalsIgnoreCase(t.protection()) == matching
            && nodeUses.getOrDefault(t.nodeId(), 0) == fewest) {
          candidates.add(t);
          total += Math.max(0, t.freeBytes());
        }
      }
      if (total <= 0) {
        return candidates.get(random.nextInt(candidates.size()));
      }
      double x = random.nextDouble() * total;
      for (TargetInfo t : candidates) {
        x -= Math.max(0, t.freeBytes());
        if (x < 0) {
          return t;
        }
      }
      return candidates.get(candidates.size() - 1); // rounding
    }
    throw new IllegalStateException("no candidate among " + eligible.size());
  }

  /** "1 offline, 2 full (free below the reserve)", or "none". */
  private static String skipped(int offline, int probablyOffline, int failed, int full) {
    List<String> skipped = new ArrayList<>();
    if (offline > 0) {
      skipped.add(offline + " offline");
    }
    if (probablyOffline > 0) {
      skipped.add(probablyOffline + " probably offline");
    }
    if (failed > 0) {
      skipped.add(failed + " failed");
    }
    if (full > 0) {
      skipped.add(full + " full (free below the reserve)");
    }
    return skipped.isEmpty() ? "none" : String.join(", ", skipped);
  }

  private static NamespaceException notEnough(Layout requested, String path,
      List<TargetInfo> all, int wanted, int eligible, int inPool, int offline,
      int probablyOffline, int failed, int full) {
    StringBuilder m = new StringBuilder("placement in pool '").append(requested.pool())
        .append("': ").append(wanted).append(wanted == 1 ? " target" : " targets")
        .append(" wanted");
    if (!requested.targets().isEmpty()) {
      m.append(" besides the ").append(requested.targets().size()).append(" the layout names");
    }
    if (inPool == 0) {
      Set<String> pools = new TreeSet<>();
      all.forEach(t -> pools.add(t.pool()));
      m.append(", but the pool has no ").append(requested.targets().isEmpty() ? "" : "other ")
          .append("targets (pools known: ")
          .append(pools.isEmpty() ? "none" : String.join(", ", pools)).append(')');
      return new NamespaceException(NamespaceStatus.UNAVAILABLE, path, m.toString());
    }
    m.append(", ").append(eligible).append(" eligible of ").append(inPool)
        .append(" in the pool; skipped: ")
        .append(skipped(offline, probablyOffline, failed, full));
    NamespaceStatus status = full > 0 && eligible + full >= wanted
        ? NamespaceStatus.NO_SPACE : NamespaceStatus.UNAVAILABLE;
    return new NamespaceException(status, path, m.toString());
  }
}
