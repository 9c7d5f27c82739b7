package io.parityfs.fuse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The mount's table of open files (by path, so that handles of one file share its writer) and
 * of handles (by the number the kernel hands back). Thread-safe: the path table under this
 * object's monitor, the handle table concurrent.
 */
final class OpenFiles {
  private final Map<String, OpenFile> byPath = new HashMap<>();
  private final Map<Long, Object> handles = new ConcurrentHashMap<>();
  private final AtomicLong nextHandle = new AtomicLong(1);

  /** The open file at {@code path}, made if none, with one more reference. */
  synchronized OpenFile acquire(String path) {
    OpenFile f = byPath.computeIfAbsent(path, OpenFile::new);
    f.refs++;
    return f;
  }

  /** Drops a reference; the last one removes the file from the table. */
  synchronized void release(OpenFile f) {
    if (--f.refs <= 0 && byPath.get(f.path) == f) {
      byPath.remove(f.path);
    }
  }

  /** The open file at {@code path}, or null. */
  synchronized OpenFile get(String path) {
    return byPath.get(path);
  }

  /** The open files at {@code path} and below it. */
  synchronized List<OpenFile> under(String path) {
    String prefix = path.endsWith("/") ? path : path + "/";
    List<OpenFile> out = new ArrayList<>();
    for (OpenFile f : byPath.values()) {
      if (f.path.equals(path) || f.path.startsWith(prefix)) {
        out.add(f);
      }
    }
    return out;
  }

  synchronized List<OpenFile> all() {
    return new ArrayList<>(byPath.values());
  }

  /** Moves the files at and below {@code from} to {@code to} (after a rename). */
  synchronized void move(String from, String to) {
    for (OpenFile f : under(from)) {
      byPath.remove(f.path);
      f.path = to + f.path.substring(from.length());
      byPath.put(f.path, f);
    }
  }

  /** Takes {@code f} out of the path table (unlinked): a new open of its path is a new file. */
  synchronized void detach(OpenFile f) {
    if (byPath.get(f.path) == f) {
      byPath.remove(f.path);
    }
  }

  /** Registers a handle object; returns its number (never 0). */
  long register(Object handle) {
    long fh = nextHandle.getAndIncrement();
    handles.put(fh, handle);
    return fh;
  }

  <T> T handle(long fh, Class<T> type) {
    Object h = handles.get(fh);
    return type.isInstance(h) ? type.cast(h) : null;
  }

  <T> T remove(long fh, Class<T> type) {
    Object h = handles.get(fh);
    if (type.isInstance(h) && handles.remove(fh, h)) {
      return type.cast(h);
    }
    return null;
  }
}
