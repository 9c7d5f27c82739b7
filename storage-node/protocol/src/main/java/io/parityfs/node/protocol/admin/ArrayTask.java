package io.parityfs.node.protocol.admin;

import io.parityfs.node.protocol.ArrayTaskRequest;
import java.util.Objects;

/**
 * A rebuild or a scrub of an array and how far it got.
 *
 * @param target the target id
 * @param kind {@link #REBUILD} or {@link #SCRUB}
 * @param slot the slot a rebuild rebuilds; {@link ArrayTaskRequest#ALL_SLOTS} for a scrub
 * @param state a rebuild's RUNNING, DONE, STOPPED or FAILED (and the array's other states of a
 *     rebuild); a scrub's STARTING, RUNNING, DONE or IDLE
 * @param bytesDone bytes done so far
 * @param bytesTotal bytes to do in all
 * @param bytesPerSecond the recent rate
 * @param etaSeconds the seconds left at that rate; null when not known
 */
public record ArrayTask(String target, String kind, int slot, String state, long bytesDone,
    long bytesTotal, double bytesPerSecond, Double etaSeconds) {
  public static final String REBUILD = "rebuild";
  public static final String SCRUB = "scrub";

  public ArrayTask {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(state, "state");
  }

  /** Whether the task is over: DONE, STOPPED, FAILED or IDLE. */
  public boolean ended() {
    return switch (state) {
      case "DONE", "STOPPED", "FAILED", "IDLE" -> true;
      default -> false;
    };
  }
}
