package io.parityfs.cli;

import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.TargetId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A target named on the command line (its id, or a prefix of it that only it has), with the
 * address of its node: what the admin commands talk to.
 */
record NodeTarget(TargetInfo info, InetSocketAddress address, TargetId id) {

  /**
   * Finds {@code arg} in the registry.
   *
   * @throws CliException NOT_FOUND when no target matches, USAGE when several do, UNAVAILABLE
   *     when its node is not online or has no address
   */
  static NodeTarget resolve(Session s, String arg) throws CliException {
    List<TargetInfo> all = s.client().registry().targets();
    List<TargetInfo> match = all.stream().filter(t -> t.id().equals(arg)).toList();
    if (match.isEmpty()) {
      match = all.stream().filter(t -> t.id().startsWith(arg)).toList();
    }
    if (match.isEmpty()) {
      throw new CliException(ExitStatus.NOT_FOUND, arg,
          "NOT_FOUND: no target has this id or id prefix (see parityfs targets)");
    }
    if (match.size() > 1) {
      throw new CliException(ExitStatus.USAGE, arg, "INVALID_ARGUMENT: " + match.size()
          + " targets have this id prefix: " + match.stream().map(TargetInfo::id).toList());
    }
    TargetInfo t = match.get(0);
    if (t.reachability() != Reachability.ONLINE) {
      throw new CliException(ExitStatus.UNAVAILABLE, t.id(), "UNAVAILABLE: target is "
          + t.reachability() + " (node " + t.nodeId() + ")"
          + (t.offlineReason().isEmpty() ? "" : ": " + t.offlineReason()));
    }
    try {
      return new NodeTarget(t, t.socketAddress(), TargetId.of(t.id()));
    } catch (IOException e) {
      throw new CliException(ExitStatus.UNAVAILABLE, t.id(), "UNAVAILABLE: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitStatus.FAILED, t.id(), "CORRUPT: target id is not a UUID");
    }
  }
}
