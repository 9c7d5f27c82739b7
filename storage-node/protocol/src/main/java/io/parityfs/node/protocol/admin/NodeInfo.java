package io.parityfs.node.protocol.admin;

import java.util.List;
import java.util.Objects;

/**
 * The answer to NODE_INFO: who the node is and what it serves.
 *
 * @param nodeId the node's id
 * @param version the node's ParityFS version ({@code dev} when not run from a release jar)
 * @param targets the targets it serves, briefly
 */
public record NodeInfo(String nodeId, String version, List<TargetSummary> targets) {
  public NodeInfo {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(version, "version");
    targets = List.copyOf(Objects.requireNonNull(targets, "targets"));
  }
}
