package io.parityfs.raid.array.object;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * Reused aligned direct buffers of one size, for the bulk reads of {@link RangeRead}: allocating
 * a direct buffer per request costs more than reading a cell. {@link #take} never waits (it
 * allocates when the pool is empty); {@link #give} keeps at most {@code capacity} buffers.
 * Thread-safe.
 */
final class BufferPool {
  private final int bufferBytes;
  private final ArrayBlockingQueue<ByteBuffer> free;

  BufferPool(int bufferBytes, int capacity) {
    this.bufferBytes = bufferBytes;
    this.free = new ArrayBlockingQueue<>(capacity);
  }

  /** The size of every buffer. */
  int bufferBytes() {
    return bufferBytes;
  }

  /** A cleared buffer of {@link #bufferBytes}, aligned to 4096 bytes. */
  ByteBuffer take() {
    ByteBuffer b = free.poll();
    if (b == null) {
      b = ByteBuffer.allocateDirect(bufferBytes + 4096).alignedSlice(4096).limit(bufferBytes)
          .slice();
    }
    return b.clear();
  }

  /** Returns {@code b} (from {@link #take}) to the pool; null is ignored. */
  void give(ByteBuffer b) {
    if (b != null && b.capacity() == bufferBytes) {
      free.offer(b);
    }
  }
}
