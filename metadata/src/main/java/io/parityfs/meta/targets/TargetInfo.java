package io.parityfs.meta.targets;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the registry knows of one storage target at one moment (an immutable value; ask {@link
 * TargetRegistry} again for a newer one).
 *
 * @param id the target id (its array id, a UUID)
 * @param nodeId the node serving it (the node whose online record lists it; else the one its
 *     target record names)
 * @param address the node's wire-protocol address, {@code host:port} ({@code [v6]:port} for an
 *     IPv6 literal), from its node record; "" while no record gives one
 * @param name the target's name in its node's configuration
 * @param pool the pool it belongs to ({@code target.<name>.pool})
 * @param protection its array's scheme, e.g. {@code raid6:4+2}
 * @param capacityBytes chunk bytes it can hold (the node's estimate)
 * @param freeBytes chunk bytes that still fit, as last reported by its node (kept while it is
 *     away; 0 if never reported)
 * @param reachability see {@link Reachability}
 * @param consistency see {@link Consistency}
 * @param updated when its node last wrote a record about it (the node's clock)
 * @param offlineReason the reason given to {@link TargetRegistry#markOffline} while that mark
 *     holds, else ""
 * @param fileSystems the file systems its capacity is counted from, by id (the same for every
 *     node of a machine), with how many of its data drives (failed ones included) each holds,
 *     as last reported by its node; empty when the node did not say (an older node): see {@link SpaceTotal}
 * @param domain its node's failure domain ({@code node.domain} in its node record), "" for
 *     none
 * @param standing see {@link Standing}: IN_SERVICE unless a retirement mark holds
 * @param standingReason the retirement mark's reason, "" without one
 * @param goneSince when this registry last saw its node online (for a node it never saw, when
 *     it opened); null while the node is online
 * @param lostObjects objects on it a scrub found unrecoverable and not rewritten or deleted
 *     since, as last reported by its node ({@code lostObjects} of its online status; kept while
 *     it is away); more than 0 makes it DAMAGED unless FAILED. 0 when never reported
 * @param lostObjectIds the ids of those objects its node listed (at most the first 100 a scrub
 *     found; fewer than lostObjects when there are more), in the order found; an object id is
 *     {@code fileId << 24 | chunkIndex}. Empty from a node that does not list them (an older
 *     one)
 */
public record TargetInfo(String id, String nodeId, String address, String name, String pool,
    String protection, long capacityBytes, long freeBytes, Reachability reachability,
    Consistency consistency, Instant updated, String offlineReason,
    Map<String, Integer> fileSystems, String domain, Standing standing, String standingReason,
    Instant goneSince, long lostObjects, List<Long> lostObjectIds) {

  public TargetInfo {
    fileSystems = fileSystems == null ? Map.of() : Map.copyOf(fileSystems);
    domain = domain == null ? "" : domain;
    standing = standing == null ? Standing.IN_SERVICE : standing;
    standingReason = standingReason == null ? "" : standingReason;
    lostObjectIds = lostObjectIds == null ? List.of() : List.copyOf(lostObjectIds);
  }

  /** A target without lost objects. */
  public TargetInfo(String id, String nodeId, String address, String name, String pool,
      String protection, long capacityBytes, long freeBytes, Reachability reachability,
      Consistency consistency, Instant updated, String offlineReason,
      Map<String, Integer> fileSystems, String domain, Standing standing, String standingReason,
      Instant goneSince) {
    this(id, nodeId, address, name, pool, protection, capacityBytes, freeBytes, reachability,
        consistency, updated, offlineReason, fileSystems, domain, standing, standingReason,
        goneSince, 0, List.of());
  }

  /** A target in service (no retirement mark). */
  public TargetInfo(String id, String nodeId, String address, String name, String pool,
      String protection, long capacityBytes, long freeBytes, Reachability reachability,
      Consistency consistency, Instant updated, String offlineReason,
      Map<String, Integer> fileSystems, String domain) {
    this(id, nodeId, address, name, pool, protection, capacityBytes, freeBytes, reachability,
        consistency, updated, offlineReason, fileSystems, domain, Standing.IN_SERVICE, "", null);
  }

  /** Whether placement may put new members on it: in service, ONLINE, not FAILED. */
  public boolean placeable() {
    return standing == Standing.IN_SERVICE && reachability == Reachability.ONLINE
        && consistency != Consistency.FAILED;
  }

  /** A target whose node names no failure domain. */
  public TargetInfo(String id, String nodeId, String address, String name, String pool,
      String protection, long capacityBytes, long freeBytes, Reachability reachability,
      Consistency consistency, Instant updated, String offlineReason,
      Map<String, Integer> fileSystems) {
    this(id, nodeId, address, name, pool, protection, capacityBytes, freeBytes, reachability,
        consistency, updated, offlineReason, fileSystems, "");
  }

  /**
   * What placement across nodes keeps apart (docs/across-nodes.md §2): the node's failure
   * domain where it names one, else the node itself (a node without a label is a domain of its
   * own). Two targets of one node always share it.
   */
  public String failureDomain() {
    return domain.isEmpty() ? "node " + nodeId : "domain " + domain;
  }

  /** A target whose file systems are not known (counted in full by {@link SpaceTotal}). */
  public TargetInfo(String id, String nodeId, String address, String name, String pool,
      String protection, long capacityBytes, long freeBytes, Reachability reachability,
      Consistency consistency, Instant updated, String offlineReason) {
    this(id, nodeId, address, name, pool, protection, capacityBytes, freeBytes, reachability,
        consistency, updated, offlineReason, Map.of());
  }

  /**
   * The node's wire-protocol address as a socket address (unresolved hosts are resolved now).
   *
   * @throws IOException naming the target when no address is known or it does not parse
   */
  public InetSocketAddress socketAddress() throws IOException {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IOException("target " + id + ": node " + nodeId + " has no usable address ("
          + address + ")");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      return new InetSocketAddress(host, Integer.parseInt(address.substring(colon + 1)));
    } catch (IllegalArgumentException e) {
      throw new IOException("target " + id + ": bad node address " + address, e);
    }
  }
}
