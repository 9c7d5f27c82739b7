package io.parityfs.node.net;

import java.lang.ref.SoftReference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The heap buffers of {@link MemberRebuilder}'s rebuilds, reused and bounded by a byte budget.
 *
 * <p>A rebuild holds K+1 buffers of its group's length (K sources and the member it restores).
 * Allocating and zeroing them for every member cost more CPU, in zeroing and garbage collection,
 * than the decode itself (docs/benchmarks.md, "Re-protection on the nodes"), so a finished
 * rebuild gives them back for the next. The budget bounds the bytes in use plus those kept for
 * reuse: a rebuild waits while its buffers would pass it, so many rebuilds of wide, long groups
 * never exhaust the node's heap. One rebuild always proceeds alone, whatever its size, so that a
 * group longer than the budget is slow, never stuck. Buffers kept for reuse are held softly: the
 * garbage collector takes them back before the heap runs short, and after a quiet spell.
 *
 * <p>Thread-safe.
 */
final class RebuildBuffers {
  private final long budget;
  /** Buffers kept for reuse, each with its capacity (the reference may be cleared). */
  private final List<Kept> kept = new ArrayList<>();
  /** Bytes of the buffers handed out and not yet given back. */
  private long inUse;
  /** Bytes of the buffers kept (cleared ones are subtracted when found). */
  private long keptBytes;

  private record Kept(SoftReference<ByteBuffer> buffer, int capacity) {}

  RebuildBuffers(long budget) {
    if (budget < 1) {
      throw new IllegalArgumentException("rebuild buffer budget " + budget + " < 1");
    }
    this.budget = budget;
  }

  /**
   * {@code count} buffers of at least {@code size} bytes each, each cleared with its limit at
   * {@code size}; their content is whatever a previous rebuild left (callers overwrite or zero
   * what they use). Waits while they would pass the budget and another rebuild holds buffers.
   */
  synchronized ByteBuffer[] take(int count, int size) throws InterruptedException {
    long want = (long) count * size;
    while (inUse > 0 && inUse + want > budget) {
      wait();
    }
    ByteBuffer[] out = new ByteBuffer[count];
    int got = 0;
    for (Iterator<Kept> it = kept.iterator(); it.hasNext() && got < count; ) {
      Kept k = it.next();
      ByteBuffer b = k.buffer().get();
      if (b == null || b.capacity() < size) {
        it.remove(); // cleared by the collector, or too short for this group: let it go
        keptBytes -= k.capacity();
      } else {
        it.remove();
        keptBytes -= k.capacity();
        inUse += b.capacity();
        out[got++] = b;
      }
    }
    // room for the new ones: drop kept buffers (oldest first) past the budget
    long more = (long) (count - got) * size;
    while (!kept.isEmpty() && inUse + keptBytes + more > budget) {
      keptBytes -= kept.remove(0).capacity();
    }
    for (; got < count; got++) {
      out[got] = ByteBuffer.allocate(size);
      inUse += size;
    }
    for (ByteBuffer b : out) {
      b.clear().limit(size);
    }
    return out;
  }

  /** Gives back buffers {@link #take} handed out, for reuse. */
  synchronized void give(ByteBuffer[] buffers) {
    for (ByteBuffer b : buffers) {
      inUse -= b.capacity();
      if (inUse + keptBytes + b.capacity() <= budget) {
        kept.add(new Kept(new SoftReference<>(b), b.capacity()));
        keptBytes += b.capacity();
      }
    }
    notifyAll();
  }

  /**
   * Gives back buffers that must never be reused (a failed rebuild's: a read could still be
   * writing into them): their bytes leave the budget, the buffers go to the collector.
   */
  synchronized void discard(ByteBuffer[] buffers) {
    for (ByteBuffer b : buffers) {
      inUse -= b.capacity();
    }
    notifyAll();
  }

  /** Bytes handed out now; for tests. */
  synchronized long inUse() {
    return inUse;
  }

  /** Bytes kept for reuse (counting any the collector has cleared since); for tests. */
  synchronized long kept() {
    return keptBytes;
  }
}
