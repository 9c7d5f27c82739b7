package io.parityfs.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;

/**
 * Holds a ZooKeeper client's event thread (a watcher that waits), so that the watch events
 * which invalidate its namespace's entry cache queue behind it: the cache stays stale, as it
 * may for a while in production (a slow event thread, a lagging follower), until {@link
 * #close}. Replies to asynchronous calls ({@code sync}) queue behind it too.
 */
public final class HeldEventThread implements AutoCloseable {
  private final CuratorFramework curator;
  private final String knob;
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicBoolean closed = new AtomicBoolean();

  private HeldEventThread(CuratorFramework curator, String knob) {
    this.curator = curator;
    this.knob = knob;
  }

  /** Returns once the event thread of {@code curator} is held. */
  public static HeldEventThread hold(CuratorFramework curator) throws Exception {
    HeldEventThread h = new HeldEventThread(curator,
        "/held-event-thread-" + Long.toHexString(System.nanoTime()));
    CountDownLatch held = new CountDownLatch(1);
    curator.checkExists().usingWatcher((Watcher) e -> {
      held.countDown();
      try {
        h.release.await();
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
      }
    }).forPath(h.knob);
    curator.create().forPath(h.knob); // a synchronous call: its reply bypasses the event thread
    held.await();
    return h;
  }

  /**
   * Waits until {@code t} has ended or waits (parked: for a reply the held thread delays), the
   * point at which releasing the event thread tells "served stale" from "waited for fresh".
   */
  public static void awaitEndedOrWaiting(Thread t) {
    while (t.isAlive() && t.getState() != Thread.State.WAITING
        && t.getState() != Thread.State.TIMED_WAITING) {
      Thread.onSpinWait();
    }
  }

  @Override
  public void close() throws Exception {
    release.countDown();
    if (closed.compareAndSet(false, true)) {
      curator.delete().forPath(knob);
    }
  }
}
