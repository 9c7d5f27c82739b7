package io.parityfs.node.client;

import io.parityfs.node.protocol.Message;

/**
 * One request in flight on a {@link NodeConnection}: receives the frames of its answer on the
 * event loop. Subclasses decide when the answer is complete.
 */
abstract class Call {
  private volatile long lastActivityNanos = System.nanoTime();

  /** Handles one frame of the answer (owning it); returns whether the answer is complete. */
  abstract boolean onMessage(Message m);

  /** The request failed; called at most once, instead of the end of {@link #onMessage}. */
  abstract void fail(NodeException e);

  abstract boolean isDone();

  /** Whether the call waits on the node (and not on its own consumer): only then can it time out. */
  boolean waitingOnNode() {
    return true;
  }

  void touch() {
    lastActivityNanos = System.nanoTime();
  }

  long lastActivityNanos() {
    return lastActivityNanos;
  }
}
