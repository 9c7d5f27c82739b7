package io.parityfs.meta.cluster;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A periodic namespace call of the leader that finishes what a dead process left: the trash
 * purge ({@code Namespace.purgeTrash}, recursive deletes a crash interrupted) and lease recovery
 * ({@code Namespace.recoverExpiredLeases}, files whose writer's session ended). Each call is
 * idempotent and safe beside anything else, so a round needs no state of its own.
 */
final class NamespaceChore implements ManagerTask {
  private static final Logger LOG = LoggerFactory.getLogger(NamespaceChore.class);

  /** One call: how many things it finished. */
  @FunctionalInterface
  interface Call {
    int run() throws Exception;
  }

  private final String name;
  private final Duration interval;
  private final Call call;
  private final AtomicLong counter;
  private final String done;

  /**
   * @param done the log line for a round that finished n things, {@code {}} being n
   */
  NamespaceChore(String name, Duration interval, Call call, AtomicLong counter, String done) {
    this.name = name;
    this.interval = interval;
    this.call = call;
    this.counter = counter;
    this.done = done;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Duration interval() {
    return interval;
  }

  @Override
  public void runOnce(BooleanSupplier acting) throws Exception {
    if (!acting.getAsBoolean()) {
      return;
    }
    int n = call.run();
    if (n > 0) {
      counter.addAndGet(n);
      LOG.info(done, n);
    }
  }
}
