package io.parityfs.raid.array.object;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A pool buffer shared by the read that filled it and the sinks it lent views of it to: goes
 * back to its pool when the last holder releases it. The read holds it from creation.
 */
final class BufferLoan implements PieceSink.Loan {
  private final ByteBuffer buffer;
  private final BufferPool pool;
  private final AtomicInteger holds = new AtomicInteger(1);

  BufferLoan(ByteBuffer buffer, BufferPool pool) {
    this.buffer = buffer;
    this.pool = pool;
  }

  /** One more holder (a view lent to a sink); returns this. */
  BufferLoan lend() {
    if (holds.getAndIncrement() <= 0) {
      throw new IllegalStateException("buffer lent after its last release");
    }
    return this;
  }

  @Override
  public void release() {
    int left = holds.decrementAndGet();
    if (left == 0) {
      pool.give(buffer);
    } else if (left < 0) {
      throw new IllegalStateException("buffer loan released more often than it was lent");
    }
  }
}
