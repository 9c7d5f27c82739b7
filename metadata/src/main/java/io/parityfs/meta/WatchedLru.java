package io.parityfs.meta;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded map (least recently used dropped) of values read from ZooKeeper, in which a value
 * read <em>before</em> an invalidation of its key can never be stored <em>after</em> it.
 *
 * <p>The race it closes: thread A reads znode X (old data) while thread B's write of X commits
 * and B invalidates X; A's reply then arrives and A stores the old data after B's invalidation,
 * so B would see its own write undone. So every fill takes a {@link #ticket()} before it sends
 * its read and stores with it; {@link #invalidate} leaves a tombstone carrying a newer ticket,
 * and {@link #put} refuses a value whose ticket is older than the key's tombstone. Tombstones
 * age out with the LRU like values; when one is dropped, every fill older than it is refused in
 * its segment ({@code forgottenUpTo}), so dropping a tombstone never reopens the race. {@link
 * #clear()} refuses every fill in flight the same way.
 *
 * <p>{@code order} is the ZooKeeper version the value was read at (data version, child
 * version): a put never replaces a value read at a newer version.
 *
 * <p>Thread-safe: the keys are spread over {@value #SEGMENTS} segments by hash (one when the
 * capacity is small), each an access-ordered map under its own lock, so many threads hitting
 * the cache at once rarely wait on one another; the bound and the LRU order are per segment.
 */
final class WatchedLru<V> {
  static final int SEGMENTS = 16;

  private record Slot<V>(V value, long order, long tombstone) {}

  /** One lock's share of the keys. */
  private static final class Segment<V> {
    private final int capacity;
    private long forgottenUpTo;
    private final LinkedHashMap<String, Slot<V>> map;

    Segment(int capacity) {
      this.capacity = capacity;
      this.map = new LinkedHashMap<>(Math.min(capacity, 1 << 14), 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Slot<V>> eldest) {
          if (size() <= Segment.this.capacity) {
            return false;
          }
          if (eldest.getValue().value == null) {
            forgottenUpTo = Math.max(forgottenUpTo, eldest.getValue().tombstone);
          }
          return true;
        }
      };
    }
  }

  private final AtomicLong epoch = new AtomicLong();
  private final Segment<V>[] segments;

  @SuppressWarnings("unchecked")
  WatchedLru(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity (" + capacity + ") must be at least 1");
    }
    int n = capacity >= 64 * SEGMENTS ? SEGMENTS : 1;
    segments = new Segment[n];
    for (int i = 0; i < n; i++) {
      segments[i] = new Segment<>((capacity + n - 1) / n);
    }
  }

  private Segment<V> segment(String key) {
    int h = key.hashCode();
    return segments[((h ^ (h >>> 16)) & 0x7fffffff) % segments.length];
  }

  /** Take before sending the read whose result will be {@link #put}. */
  long ticket() {
    return epoch.get();
  }

  /** The value, or null (absent or invalidated). */
  V get(String key) {
    Segment<V> s = segment(key);
    synchronized (s) {
      Slot<V> slot = s.map.get(key);
      return slot == null ? null : slot.value;
    }
  }

  /**
   * Stores a value read after {@code ticket} was taken, unless its key was invalidated (or the
   * map cleared) since, or a value read at a newer {@code order} is held.
   *
   * @return whether it was stored
   */
  boolean put(String key, V value, long order, long ticket) {
    Segment<V> s = segment(key);
    synchronized (s) {
      if (ticket < s.forgottenUpTo) {
        return false;
      }
      Slot<V> cur = s.map.get(key);
      if (cur != null && (cur.value == null ? cur.tombstone > ticket : cur.order > order)) {
        return false;
      }
      s.map.put(key, new Slot<>(value, order, 0));
      return true;
    }
  }

  /** Drops the key's value; fills that began before this call will not store theirs. */
  void invalidate(String key) {
    Segment<V> s = segment(key);
    synchronized (s) {
      s.map.put(key, new Slot<>(null, 0, epoch.incrementAndGet()));
    }
  }

  /** Drops everything; no fill that began before this call will store. */
  void clear() {
    long now = epoch.incrementAndGet();
    for (Segment<V> s : segments) {
      synchronized (s) {
        s.forgottenUpTo = now;
        s.map.clear();
      }
    }
  }

  /** Values and tombstones held. */
  int size() {
    int n = 0;
    for (Segment<V> s : segments) {
      synchronized (s) {
        n += s.map.size();
      }
    }
    return n;
  }
}
