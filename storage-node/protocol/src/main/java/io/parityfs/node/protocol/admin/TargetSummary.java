package io.parityfs.node.protocol.admin;

import java.util.Objects;

/**
 * One target in {@link NodeInfo}.
 *
 * @param id the target id (the array id, a UUID)
 * @param name the target's name in the node's configuration
 * @param protection e.g. {@code raid6:4+2}
 * @param state the target's state, e.g. {@code OPTIMAL}, {@code DEGRADED}
 */
public record TargetSummary(String id, String name, String protection, String state) {
  public TargetSummary {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(protection, "protection");
    Objects.requireNonNull(state, "state");
  }
}
