package io.parityfs.node.protocol.admin;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.JsonInclude;
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
 * @param result a scrub that ended (DONE): what it found ({@link ScrubResult}); otherwise null,
 *     and then not written. Added within schema 1: a node before it writes no such field, which
 *     reads as null ({@link AdminCodec#ABSENT}); the four counts above, also added within schema
 *     1, read as 0 when absent ({@link AdminCodec#ZERO})
 */
public record ArrayTask(String target, String kind, int slot, String state, long bytesDone,
    long bytesTotal, double bytesPerSecond, Double etaSeconds, long objectsDone,
    long objectsTotal, long objectsLost, double elapsedSeconds,
    @JsonInclude(JsonInclude.Include.NON_NULL) ScrubResult result) {
  public static final String REBUILD = "rebuild";
  public static final String SCRUB = "scrub";

  /**
   * The canonical constructor, written out so that only its {@code result} parameter, not the
   * field, asks Jackson to inject null when the field is absent.
   */
  public ArrayTask(String target, String kind, int slot, String state, long bytesDone,
      long bytesTotal, double bytesPerSecond, Double etaSeconds,
      @JacksonInject(AdminCodec.ZERO) long objectsDone,
      @JacksonInject(AdminCodec.ZERO) long objectsTotal,
      @JacksonInject(AdminCodec.ZERO) long objectsLost,
      @JacksonInject(AdminCodec.ZERO_SECONDS) double elapsedSeconds,
      @JacksonInject(AdminCodec.ABSENT) ScrubResult result) {
    this.target = Objects.requireNonNull(target, "target");
    this.kind = Objects.requireNonNull(kind, "kind");
    this.slot = slot;
    this.state = Objects.requireNonNull(state, "state");
    this.bytesDone = bytesDone;
    this.bytesTotal = bytesTotal;
    this.bytesPerSecond = bytesPerSecond;
    this.etaSeconds = etaSeconds;
    this.objectsDone = objectsDone;
    this.objectsTotal = objectsTotal;
    this.objectsLost = objectsLost;
    this.elapsedSeconds = elapsedSeconds;
    this.result = result;
  }

  /** A task without a scrub result: a rebuild, or a scrub not ended. */
  public ArrayTask(String target, String kind, int slot, String state, long bytesDone,
      long bytesTotal, double bytesPerSecond, Double etaSeconds, long objectsDone,
      long objectsTotal, long objectsLost, double elapsedSeconds) {
    this(target, kind, slot, state, bytesDone, bytesTotal, bytesPerSecond, etaSeconds,
        objectsDone, objectsTotal, objectsLost, elapsedSeconds, null);
  }

  /** Whether this is a scrub whose result counts objects it could not recover. */
  public boolean lostObjects() {
    return result != null && result.unrecoverableObjects() > 0;
  }

  /** Whether the task is over: DONE, STOPPED, FAILED or IDLE. */
  public boolean ended() {
    return switch (state) {
      case "DONE", "STOPPED", "FAILED", "IDLE" -> true;
      default -> false;
    };
  }
}
