package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The client's direct chunk buffers: reused within the idle budget, cleared, never heap. */
class ChunkBuffersTest {
  @Test
  void aBufferGivenBackIsTakenAgainClearedWhileTheBudgetHoldsIt() {
    ChunkBuffers pool = new ChunkBuffers(2 << 20);
    ByteBuffer a = pool.take(1 << 20);
    assertTrue(a.isDirect());
    assertEquals(0, a.position());
    assertEquals(1 << 20, a.limit());
    a.put(new byte[1000]).limit(5000);
    pool.give(a);
    assertEquals(1 << 20, pool.idleBytes());
    ByteBuffer again = pool.take(1 << 20);
    assertSame(a, again, "an idle buffer is reused");
    assertEquals(0, again.position());
    assertEquals(1 << 20, again.limit());
    assertEquals(0, pool.idleBytes());
    assertNotSame(a, pool.take(1 << 20), "a buffer taken is not handed out twice");
  }

  @Test
  void buffersPastTheBudgetOfAnotherSizeOrOnTheHeapAreNotKept() {
    ChunkBuffers pool = new ChunkBuffers(2 << 20);
    ByteBuffer a = pool.take(1 << 20);
    ByteBuffer b = pool.take(1 << 20);
    ByteBuffer c = pool.take(1 << 20);
    pool.give(a);
    pool.give(b);
    pool.give(c); // past the 2 MiB budget: left to the collector
    pool.give(ByteBuffer.allocate(1 << 10)); // heap: never pooled
    assertEquals(2 << 20, pool.idleBytes());
    ByteBuffer small = pool.take(4096);
    assertEquals(4096, small.capacity(), "sizes are not mixed");
    assertEquals(2 << 20, pool.idleBytes());
  }
}
