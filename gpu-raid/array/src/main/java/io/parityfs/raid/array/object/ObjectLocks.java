package io.parityfs.raid.array.object;

import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One writer per object: {@link #lock} waits while another holder has the object and returns the
 * unlock action, which may run on any thread and runs at most once. Objects nobody holds take no
 * memory. Not reentrant; {@link #heldByCurrentThread} tells a look-up that needs the lock whether
 * its caller already has it.
 */
final class ObjectLocks {
  /** A holding: released by counting down; {@code owner} is the thread that took it. */
  private static final class Holding extends CountDownLatch {
    final Thread owner = Thread.currentThread();

    Holding() {
      super(1);
    }
  }

  private final Map<Long, Holding> held = new ConcurrentHashMap<>();

  /** Whether the thread calling holds {@code objectId} (took it and has not unlocked it yet). */
  boolean heldByCurrentThread(long objectId) {
    Holding h = held.get(objectId);
    return h != null && h.owner == Thread.currentThread();
  }

  /**
   * Takes {@code objectId} if nobody holds it and returns the unlock, or null at once when
   * somebody does (for background work that skips a busy object and comes back later).
   */
  Runnable tryLock(long objectId) {
    Holding mine = new Holding();
    return held.putIfAbsent(objectId, mine) == null ? unlocker(objectId, mine) : null;
  }

  private Runnable unlocker(long objectId, Holding mine) {
    AtomicBoolean done = new AtomicBoolean();
    return () -> {
      if (done.compareAndSet(false, true)) {
        held.remove(objectId, mine);
        mine.countDown();
      }
    };
  }

  /** Takes {@code objectId}, waiting for the current holder; returns the (idempotent) unlock. */
  Runnable lock(long objectId) throws InterruptedIOException {
    while (true) {
      Holding mine = new Holding();
      Holding other = held.putIfAbsent(objectId, mine);
      if (other == null) {
        return unlocker(objectId, mine);
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
