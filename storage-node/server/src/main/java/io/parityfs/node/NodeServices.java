package io.parityfs.node;

import io.parityfs.node.metrics.NodeMetrics;
import java.util.List;
import java.util.Optional;

/**
 * What a running node offers its network server: the node id, its targets by id (as {@link
 * TargetView}s: what the server needs of them), and the metrics every request is reported to
 * ({@link NodeMetrics#observe}). Implemented by {@link StorageNode}.
 */
public interface NodeServices {
  String nodeId();

  List<? extends TargetView> targets();

  /** The target with this id, if the node serves it. */
  Optional<? extends TargetView> target(String targetId);

  NodeMetrics metrics();
}
