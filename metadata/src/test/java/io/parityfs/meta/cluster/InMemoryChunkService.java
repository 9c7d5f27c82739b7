package io.parityfs.meta.cluster;

import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.chunks.StoredChunk;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ChunkService} over maps, for tests: chunks keyed like a storage node's object ids
 * ({@code fileId << 24 | index}), targets that can be made unreachable, and a hook run before
 * each delete (to crash or block a manager in the middle of its work). Thread-safe.
 */
final class InMemoryChunkService implements ChunkService {
  /** Runs before each delete; may throw to simulate a crash. */
  interface DeleteHook {
    void beforeDelete(String target, long fileId, int index) throws IOException;
  }

  private final Map<String, TreeMap<Long, StoredChunk>> targets = new ConcurrentHashMap<>();
  private final Set<String> unreachable = ConcurrentHashMap.newKeySet();
  private final AtomicLong deletes = new AtomicLong();
  private volatile DeleteHook hook = (t, f, i) -> {};

  InMemoryChunkService(String... targetIds) {
    for (String t : targetIds) {
      targets.put(t, new TreeMap<>(Long::compareUnsigned));
    }
  }

  /** Stores chunk {@code index} of {@code fileId} on {@code target}, modified at {@code millis}. */
  void put(String target, long fileId, int index, long millis) {
    put(target, fileId, index, 4096, millis);
  }

  /** {@link #put(String, long, int, long)} with a chunk length. */
  void put(String target, long fileId, int index, long length, long millis) {
    TreeMap<Long, StoredChunk> m = targets.get(target);
    synchronized (m) {
      m.put(fileId << 24 | index, new StoredChunk(fileId, index, length, millis));
    }
  }

  /** Stores chunks 0..count-1 of a file striped over {@code stripe} as a layout places them. */
  void putFile(long fileId, List<String> stripe, int count, long millis) {
    for (int i = 0; i < count; i++) {
      put(stripe.get(i % stripe.size()), fileId, i, millis);
    }
  }

  /** How many chunks of the file are stored, on all targets. */
  int count(long fileId) {
    int n = 0;
    for (TreeMap<Long, StoredChunk> m : targets.values()) {
      synchronized (m) {
        n += m.subMap(fileId << 24, true, (fileId << 24) | 0xFFFFFF, true).size();
      }
    }
    return n;
  }

  int total() {
    int n = 0;
    for (TreeMap<Long, StoredChunk> m : targets.values()) {
      synchronized (m) {
        n += m.size();
      }
    }
    return n;
  }

  long deleteCalls() {
    return deletes.get();
  }

  void setUnreachable(String target, boolean down) {
    if (down) {
      unreachable.add(target);
    } else {
      unreachable.remove(target);
    }
  }

  void onDelete(DeleteHook h) {
    hook = h;
  }

  @Override
  public List<String> targets() {
    return List.copyOf(new TreeMap<>(targets).keySet());
  }

  @Override
  public ChunkPage list(String targetId, long fileId, long cursor, int limit) throws IOException {
    TreeMap<Long, StoredChunk> m = target(targetId);
    List<StoredChunk> out = new ArrayList<>();
    synchronized (m) {
      Map<Long, StoredChunk> range = fileId == ALL_FILES ? m
          : m.subMap(fileId << 24, true, (fileId << 24) | 0xFFFFFF, true);
      long last = END;
      for (Map.Entry<Long, StoredChunk> e : range.entrySet()) {
        if (cursor != 0 && Long.compareUnsigned(e.getKey(), cursor) <= 0) {
          continue;
        }
        if (out.size() == limit) {
          return new ChunkPage(out, last);
        }
        out.add(e.getValue());
        last = e.getKey();
      }
    }
    return new ChunkPage(out, END);
  }

  @Override
  public boolean delete(String targetId, long fileId, int index) throws IOException {
    TreeMap<Long, StoredChunk> m = target(targetId);
    hook.beforeDelete(targetId, fileId, index);
    deletes.incrementAndGet();
    synchronized (m) {
      return m.remove(fileId << 24 | index) != null;
    }
  }

  private TreeMap<Long, StoredChunk> target(String id) throws IOException {
    if (unreachable.contains(id)) {
      throw new IOException("target " + id + " unreachable (test)");
    }
    TreeMap<Long, StoredChunk> m = targets.get(id);
    if (m == null) {
      throw new IOException("unknown target " + id);
    }
    return m;
  }
}
