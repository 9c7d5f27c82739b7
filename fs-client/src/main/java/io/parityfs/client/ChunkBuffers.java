package io.parityfs.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Direct chunk buffers shared by one client's output streams: a stream whose chunks go to the
 * nodes as they are (layouts without a group code) takes its buffers here, so the node client
 * sends them to the socket without copying them into frame buffers (docs/data-path.md), and
 * gives them back when it closes. Idle buffers are kept up to a byte budget, so a client writing
 * many small files allocates (and zeroes) direct memory once rather than per file; what passes the
 * budget is left to the collector. A buffer is given back only once no transfer holds it: the
 * node client returns from a write only after the transport has let go of its memory.
 */
final class ChunkBuffers {
  private final long budget;
  private final Map<Integer, ArrayDeque<ByteBuffer>> idle = new HashMap<>();
  private long idleBytes;

  /** @param budget the most bytes of idle buffers kept for reuse */
  ChunkBuffers(long budget) {
    this.budget = budget;
  }

  /** An empty direct buffer of {@code size} bytes, reused if one is idle. */
  ByteBuffer take(int size) {
    synchronized (this) {
      ArrayDeque<ByteBuffer> q = idle.get(size);
      ByteBuffer b = q == null ? null : q.poll();
      if (b != null) {
        idleBytes -= size;
        return b.clear();
      }
    }
    return ByteBuffer.allocateDirect(size);
  }

  /** Keeps {@code b} for reuse if the budget allows; the caller no longer touches it. */
  void give(ByteBuffer b) {
    if (!b.isDirect()) {
      return;
    }
    synchronized (this) {
      if (idleBytes + b.capacity() <= budget) {
        idle.computeIfAbsent(b.capacity(), c -> new ArrayDeque<>()).push(b);
        idleBytes += b.capacity();
      }
    }
  }

  /** Bytes of idle buffers held now. */
  synchronized long idleBytes() {
    return idleBytes;
  }
}
