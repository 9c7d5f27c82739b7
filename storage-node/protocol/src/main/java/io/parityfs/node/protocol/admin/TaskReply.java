package io.parityfs.node.protocol.admin;

import java.util.List;
import java.util.Objects;

/**
 * The answer to START_REBUILD, STOP_REBUILD, START_SCRUB and STOP_SCRUB: the target's tasks of
 * that kind after the request.
 *
 * @param target the target id
 * @param tasks its rebuilds (for a rebuild request) or its scrub (for a scrub request)
 */
public record TaskReply(String target, List<ArrayTask> tasks) {
  public TaskReply {
    Objects.requireNonNull(target, "target");
    tasks = List.copyOf(Objects.requireNonNull(tasks, "tasks"));
  }
}
