package io.parityfs.meta.cluster;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** One periodic job of the leader. Runs on one thread at a time. */
interface ManagerTask {
  String name();

  /** The pause between the end of one round and the start of the next. */
  Duration interval();

  /**
   * One round. Returns early, leaving nothing half-done that a later round cannot finish, as
   * soon as {@code acting} turns false (leadership lost, manager closing).
   */
  void runOnce(BooleanSupplier acting) throws Exception;

  /**
   * Whether the round just run left work that is due now: the next round then starts at once
   * instead of after {@link #interval()}. Asked after each round, on the round's thread.
   */
  default boolean moreDue() {
    return false;
  }
}
