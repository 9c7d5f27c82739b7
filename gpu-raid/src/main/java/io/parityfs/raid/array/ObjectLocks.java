package io.parityfs.raid.array;

import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One writer per object: {@link #lock} waits while another holder has the object and returns the
 * unlock action, which may run on any thread and runs at most once. Objects nobody holds take no
 * memory.
 */
final class ObjectLocks {
  private final Map<Long, CountDownLatch> held = new ConcurrentHashMap<>();

  /** Takes {@code objectId}, waiting for the current holder; returns the (idempotent) unlock. */
  Runnable lock(long objectId) throws InterruptedIOException {
    while (true) {
      CountDownLatch mine = new CountDownLatch(1);
      CountDownLatch other = held.putIfAbsent(objectId, mine);
      if (other == null) {
        AtomicBoolean done = new AtomicBoolean();
        return () -> {
          if (done.compareAndSet(false, true)) {
            held.remove(objectId, mine);
            mine.countDown();
          }
        };
      }
      try {
        other.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(
            String.format("interrupted waiting for the writer of object %016x", objectId));
      }
    }
  }
}
