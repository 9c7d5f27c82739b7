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
}
