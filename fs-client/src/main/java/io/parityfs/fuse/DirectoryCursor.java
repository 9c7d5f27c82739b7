package io.parityfs.fuse;

import io.parityfs.meta.DirectoryPage;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import java.util.List;

/**
 * A directory being listed (an {@code opendir} handle): one page of the namespace's paged
 * listing at a time, so a directory of millions of entries streams through the kernel's
 * readdir buffers in pages, never whole. Entry {@code i} (0-based, "." and ".." not counted) is
 * reached by paging forward; asking for an entry before the current page (rewinddir) starts
 * again from the first page. Not thread-safe: the caller holds its monitor.
 */
final class DirectoryCursor {
  final String path;
  private final int pageSize;
  private List<FileStatus> page;
  private long pageStart;
  private String next;

  DirectoryCursor(String path, int pageSize) {
    this.path = path;
    this.pageSize = pageSize;
  }

  /** Entry {@code index} of the listing, or null past its end. */
  FileStatus at(long index, Namespace ns) throws NamespaceException {
    if (page == null || index < pageStart) {
      load(ns, null, 0);
    }
    while (index >= pageStart + page.size()) {
      if (next == null) {
        return null;
      }
      load(ns, next, pageStart + page.size());
    }
    return page.get((int) (index - pageStart));
  }

  private void load(Namespace ns, String after, long start) throws NamespaceException {
    DirectoryPage p = ns.list(path, after, pageSize);
    page = p.entries();
    next = p.hasMore() ? p.next() : null;
    pageStart = start;
  }
}
