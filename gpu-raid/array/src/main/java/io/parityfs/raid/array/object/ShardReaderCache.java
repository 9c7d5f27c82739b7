package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Open {@link ShardReader}s kept between reads, so that a small read costs one cell read rather
 * than an open, a header read and a CRC-table read. Least recently used readers beyond the
 * capacity are closed; a reader in use ({@link #acquire} without {@link #release}) is closed only
 * when its last user releases it.
 *
 * <p>Entries must not outlive the file they read: the store calls {@link #invalidate(long)} when
 * an object gets a new version or is deleted (so deleted files do not stay open), {@link
 * #invalidateSlot} when a slot's drive fails or is replaced, and {@link #discard} when a reader
 * turns out bad. Thread-safe.
 */
final class ShardReaderCache implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ShardReaderCache.class.getName());

  /**
   * The drive is part of the key (by identity): a reader opened on a slot's old drive just before
   * a replacement was attached, and cached after {@link #invalidateSlot}, is never served for the
   * new drive.
   */
  private record Key(int slot, Drive drive, String name) {}

  /** A cached reader and how many reads use it. */
  static final class Lease {
    private final Key key;
    private final ShardReader reader;
    private int users;
    private boolean dropped;

    private Lease(Key key, ShardReader reader) {
      this.key = key;
      this.reader = reader;
    }

    ShardReader reader() {
      return reader;
    }
  }

  private final int capacity;
  private final LinkedHashMap<Key, Lease> open = new LinkedHashMap<>(16, 0.75f, true);

  ShardReaderCache(int capacity) {
    this.capacity = capacity;
  }

  /**
   * The reader of shard file {@code name} on {@code slot}'s {@code drive}, opened if not cached;
   * {@link #release} it after use.
   *
   * @throws IOException as {@link ShardReader#open}
   */
  Lease acquire(int slot, Drive drive, String name) throws IOException {
    Key key = new Key(slot, drive, name);
    synchronized (this) {
      Lease l = open.get(key);
      if (l != null) {
        l.users++;
        return l;
      }
    }
    ShardReader r = ShardReader.open(drive, name); // outside the lock: opens run in parallel
    List<Lease> evicted = new ArrayList<>();
    Lease mine;
    synchronized (this) {
      Lease raced = open.get(key);
      if (raced != null) {
        raced.users++;
        mine = raced;
      } else {
        mine = new Lease(key, r);
        mine.users = 1;
        open.put(key, mine);
        Iterator<Lease> it = open.values().iterator();
        while (open.size() > capacity && it.hasNext()) {
          Lease old = it.next();
          if (old != mine) {
            it.remove();
            old.dropped = true;
            if (old.users == 0) {
              evicted.add(old);
            }
          }
        }
      }
    }
    if (mine.reader != r) {
      closeQuietly(r);
    }
    evicted.forEach(l -> closeQuietly(l.reader));
    return mine;
  }

  /** Ends one use of {@code lease}; closes its reader if it was dropped meanwhile. */
  void release(Lease lease) {
    boolean close;
    synchronized (this) {
      lease.users--;
      close = lease.dropped && lease.users == 0;
    }
    if (close) {
      closeQuietly(lease.reader);
    }
  }

  /** Drops {@code lease} from the cache (its reader failed); closed once no read uses it. */
  void discard(Lease lease) {
    synchronized (this) {
      if (open.get(lease.key) == lease) {
        open.remove(lease.key);
      }
      lease.dropped = true;
    }
  }

  /** Drops every reader of {@code objectId}'s files. */
  void invalidate(long objectId) {
    String prefix = ObjectFiles.prefix(objectId);
    dropIf(k -> k.name().startsWith(prefix));
  }

  /** Drops every reader on {@code slot}. */
  void invalidateSlot(int slot) {
    dropIf(k -> k.slot() == slot);
  }

  /** Drops everything. */
  @Override
  public void close() {
    dropIf(k -> true);
  }

  /** Open readers, for tests. */
  synchronized int size() {
    return open.size();
  }

  private void dropIf(Predicate<Key> which) {
    List<Lease> closing = new ArrayList<>();
    synchronized (this) {
      for (Iterator<Map.Entry<Key, Lease>> it = open.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Key, Lease> e = it.next();
        if (which.test(e.getKey())) {
          it.remove();
          e.getValue().dropped = true;
          if (e.getValue().users == 0) {
            closing.add(e.getValue());
          }
        }
      }
    }
    closing.forEach(l -> closeQuietly(l.reader));
  }

  private static void closeQuietly(ShardReader r) {
    try {
      r.close();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "closing {0}: {1}", r.name(), e);
    }
  }
}
