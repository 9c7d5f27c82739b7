package io.parityfs.node.protocol.admin;

import java.util.List;
import java.util.Objects;

/**
 * The answer to ARRAY_STATUS: the asked target's array, or every target's.
 *
 * @param nodeId the node's id
 * @param targets one entry per target asked about
 */
public record ArrayStatus(String nodeId, List<TargetStatus> targets) {
  public ArrayStatus {
    Objects.requireNonNull(nodeId, "nodeId");
    targets = List.copyOf(Objects.requireNonNull(targets, "targets"));
  }
}
