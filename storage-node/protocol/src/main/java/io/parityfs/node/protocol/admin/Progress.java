package io.parityfs.node.protocol.admin;

import java.util.List;
import java.util.Objects;

/**
 * The answer to PROGRESS: the rebuilds and scrubs of the asked target, or of every target.
 *
 * @param nodeId the node's id
 * @param tasks per target its rebuilds, then its scrub when one has run since the node started
 */
public record Progress(String nodeId, List<ArrayTask> tasks) {
  public Progress {
    Objects.requireNonNull(nodeId, "nodeId");
    tasks = List.copyOf(Objects.requireNonNull(tasks, "tasks"));
  }
}
