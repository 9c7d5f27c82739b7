package io.parityfs.node.protocol.admin;

import io.parityfs.node.protocol.ArrayTaskRequest;
import java.util.Objects;

/**
 * A rebuild or a scrub of an array and how far it got.
 *
 * <p>A rebuild that ended stays listed, with its final figures, until its slot is rebuilt
 * again or fails: a client that polls after the end (a fast rebuild: before its first poll)
 * still reads what the rebuild did, not only that it is gone.
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
 * @param objectsDone objects handled so far (a rebuild's rebuilt, superseded and lost ones)
 * @param objectsTotal objects to handle in all (0 while a rebuild plans)
 * @param objectsLost objects a rebuild could not restore (always 0 for a scrub)
 * @param elapsedSeconds time since the task started; once it ended, the time it took
 */
public record ArrayTask(String target, String kind, int slot, String state, long bytesDone,
    long bytesTotal, double bytesPerSecond, Double etaSeconds, long objectsDone,
    long objectsTotal, long objectsLost, double elapsedSeconds) {
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
