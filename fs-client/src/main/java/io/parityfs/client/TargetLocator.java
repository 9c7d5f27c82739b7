package io.parityfs.client;

import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.meta.targets.TargetRegistry;
import io.parityfs.node.protocol.TargetId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * Where a layout's target lives: the node address and wire id of a target id, from the target
 * registry (which follows nodes as they come and go). {@link #locate} answers from the
 * registry's view, which may lag a node that restarted on another address; {@link #relocate}
 * reads the target's records from ZooKeeper itself, for a transfer that found no node, or the
 * wrong one, at the address of the view.
 */
final class TargetLocator {
  /** A target's node and id on the wire. */
  record Location(String targetId, InetSocketAddress node, TargetId wireId, TargetInfo info) {}

  private final TargetRegistry registry;

  TargetLocator(TargetRegistry registry) {
    this.registry = registry;
  }

  /**
   * The location of a target; a {@link ClientException} TARGET_NOT_FOUND naming it when the
   * registry does not know it, an IOException when it knows no address for it. An offline
   * target is still returned (the registry may lag the node's return; the transfer itself will
   * tell).
   */
  Location locate(String targetId) throws IOException {
    return location(targetId, registry.target(targetId));
  }

  /**
   * The location of a target as its records in ZooKeeper give it now (read again, not from the
   * registry's view, which they also bring up to date); errors as {@link #locate}.
   */
  Location relocate(String targetId) throws IOException {
    return location(targetId, registry.refresh(targetId));
  }

  private static Location location(String targetId, Optional<TargetInfo> t) throws IOException {
    if (t.isEmpty()) {
      throw new ClientException(ClientStatus.TARGET_NOT_FOUND, null, null, targetId,
          "storage target " + targetId + " is not in the registry", null);
    }
    TargetInfo info = t.get();
    return new Location(targetId, info.socketAddress(), TargetId.of(targetId), info);
  }

  /** Every target the registry knows. */
  List<String> targetIds() {
    return registry.targets().stream().map(TargetInfo::id).toList();
  }
}
