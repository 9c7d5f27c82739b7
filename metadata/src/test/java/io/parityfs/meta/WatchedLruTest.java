package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fill/invalidation race rules of {@link WatchedLru}, without ZooKeeper. */
class WatchedLruTest {
  @Test
  void aReadOlderThanAnInvalidationIsNotStored() {
    WatchedLru<String> m = new WatchedLru<>(10);
    long before = m.ticket();
    m.invalidate("x"); // a write committed and invalidated while the read was in flight
    assertFalse(m.put("x", "old", 1, before));
    assertNull(m.get("x"));
    assertTrue(m.put("x", "new", 2, m.ticket()));
    assertEquals("new", m.get("x"));
  }

  @Test
  void anInvalidationOfAnotherKeyDoesNotRefuse() {
    WatchedLru<String> m = new WatchedLru<>(10);
    long before = m.ticket();
    m.invalidate("y");
    assertTrue(m.put("x", "v", 1, before));
  }

  @Test
  void aDroppedTombstoneStillRefusesOlderReads() {
    WatchedLru<String> m = new WatchedLru<>(2);
    long before = m.ticket();
    m.invalidate("x");
    m.put("a", "a", 1, m.ticket());
    m.put("b", "b", 1, m.ticket()); // x's tombstone is the eldest: dropped
    assertTrue(m.size() <= 2);
    assertFalse(m.put("x", "old", 1, before));
    assertTrue(m.put("x", "new", 2, m.ticket()));
  }

  @Test
  void clearRefusesEveryReadInFlight() {
    WatchedLru<String> m = new WatchedLru<>(10);
    long before = m.ticket();
    m.put("x", "v", 1, before);
    m.clear();
    assertNull(m.get("x"));
    assertFalse(m.put("y", "v", 1, before));
    assertTrue(m.put("y", "v", 1, m.ticket()));
  }

  @Test
  void anOlderVersionNeverReplacesANewerOne() {
    WatchedLru<String> m = new WatchedLru<>(10);
    long t = m.ticket();
    assertTrue(m.put("x", "v5", 5, t));
    assertFalse(m.put("x", "v4", 4, t));
    assertEquals("v5", m.get("x"));
  }

  @Test
  void boundedByCapacity() {
    WatchedLru<Integer> m = new WatchedLru<>(100);
    for (int i = 0; i < 1000; i++) {
      m.put("k" + i, i, 0, m.ticket());
      if (i % 3 == 0) {
        m.invalidate("k" + (i / 2));
      }
    }
    assertTrue(m.size() <= 100, "size " + m.size());
    assertEquals(999, m.get("k999"));
  }

  @Test
  void segmentedWhenLargeAndStillBounded() {
    WatchedLru<Integer> m = new WatchedLru<>(4096); // 16 segments of 256
    for (int i = 0; i < 50_000; i++) {
      m.put("k" + i, i, 0, m.ticket());
    }
    assertTrue(m.size() <= 4096, "size " + m.size());
    assertTrue(m.size() > 3500, "size " + m.size()); // every segment full, none much short
    assertEquals(49_999, m.get("k49999"));
    long before = m.ticket();
    m.invalidate("k49999");
    assertFalse(m.put("k49999", 0, 0, before));
  }
}
