package io.parityfs.raid.array.object;

import java.nio.ByteBuffer;

/**
 * Receives the bytes of a range read ({@link ObjectStore#read(long, long, long, int, PieceSink,
 * io.parityfs.raid.array.format.RunningCrc)}) in order, as views of the buffers the drives read
 * them into, so that a caller sending them on (the storage node's READ) needs no copy of its own.
 */
@FunctionalInterface
public interface PieceSink {
  /**
   * The next piece of the range: {@code view}'s remaining bytes. With a {@code loan}, the view is
   * of a buffer of the store's that the sink may keep, unchanged, until it calls {@link
   * Loan#release()} (once for each call that passed it); without one (null), the view is of a
   * buffer the store reuses once this method returns, so the sink copies what it needs.
   */
  void piece(ByteBuffer view, Loan loan);

  /** A hold on a store buffer lent to a sink; the buffer is reused after the last release. */
  interface Loan {
    void release();
  }
}
