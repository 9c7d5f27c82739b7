package io.parityfs.node;

import java.util.logging.LogManager;

/**
 * The node's java.util.logging manager: the same as the JDK's, except that the reset its own
 * shutdown hook does (which removes and closes every handler, so whatever the node logs while it
 * shuts down on SIGTERM is lost) waits for {@link #resetAtExit}, which the node's shutdown hook
 * calls once the node is closed. Hadoop and ZooKeeper keep their shutdown lines the same way
 * (log4j's shutdown is theirs to call).
 *
 * <p>Chosen with {@code -Djava.util.logging.manager=io.parityfs.node.NodeLogManager} on the
 * node's command line ({@code bin/parityfs node}, the local cluster): setting the property in
 * {@code main} comes too late, the JDK's start-up (with {@code --add-modules
 * jdk.incubator.vector}) has made its LogManager by then. Without it the node runs as before and
 * loses its shutdown lines.
 */
public final class NodeLogManager extends LogManager {
  /** The JDK's shutdown hook that resets the LogManager (JDK 17 to 25). */
  private static final String JDK_CLEANER = "java.util.logging.LogManager$Cleaner";

  public NodeLogManager() {}

  /** Skipped when the JDK's shutdown hook asks; {@link #resetAtExit} does it later. */
  @Override
  public void reset() {
    if (Thread.currentThread().getClass().getName().equals(JDK_CLEANER)) {
      return;
    }
    super.reset();
  }

  /**
   * Flushes and closes every handler (the reset the JDK's shutdown hook was refused), when this
   * is the JVM's LogManager; to be called last in the node's shutdown hook.
   */
  public static void resetAtExit() {
    if (LogManager.getLogManager() instanceof NodeLogManager m) {
      m.reset();
    }
  }
}
