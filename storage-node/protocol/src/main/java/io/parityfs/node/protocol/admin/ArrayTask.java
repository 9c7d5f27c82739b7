package io.parityfs.node.protocol.admin;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.JsonInclude;
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
 * @param result a scrub that ended (DONE): what it found ({@link ScrubResult}); otherwise null,
 *     and then not written. Added within schema 1: a node before it writes no such field, which
 *     reads as null ({@link AdminCodec#ABSENT})
 */
public record ArrayTask(String target, String kind, int slot, String state, long bytesDone,
    long bytesTotal, double bytesPerSecond, Double etaSeconds,
    @JsonInclude(JsonInclude.Include.NON_NULL) ScrubResult result) {
  public static final String REBUILD = "rebuild";
  public static final String SCRUB = "scrub";

  /**
   * The canonical constructor, written out so that only its {@code result} parameter, not the
   * field, asks Jackson to inject null when the field is absent.
   */
  public ArrayTask(String target, String kind, int slot, String state, long bytesDone,
      long bytesTotal, double bytesPerSecond, Double etaSeconds,
      @JacksonInject(AdminCodec.ABSENT) ScrubResult result) {
    this.target = Objects.requireNonNull(target, "target");
    this.kind = Objects.requireNonNull(kind, "kind");
    this.slot = slot;
    this.state = Objects.requireNonNull(state, "state");
    this.bytesDone = bytesDone;
    this.bytesTotal = bytesTotal;
    this.bytesPerSecond = bytesPerSecond;
    this.etaSeconds = etaSeconds;
    this.result = result;
  }

  /** A task without a result: a rebuild, or a scrub not ended. */
  public ArrayTask(String target, String kind, int slot, String state, long bytesDone,
      long bytesTotal, double bytesPerSecond, Double etaSeconds) {
    this(target, kind, slot, state, bytesDone, bytesTotal, bytesPerSecond, etaSeconds, null);
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
