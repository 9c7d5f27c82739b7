package io.parityfs.hadoop;

import io.parityfs.meta.DirectoryPage;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import java.io.IOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * A directory listed page by page through {@link Namespace#list}: one page in memory at a time,
 * the next fetched when this one is used up. The first page is read at construction, so a
 * missing directory fails there ({@code FileNotFoundException}), as HDFS's listing does. An
 * entry present during the whole listing appears exactly once; see {@code docs/metadata.md},
 * "Listing".
 */
final class DirectoryListing implements RemoteIterator<FileStatus> {
  private final Namespace ns;
  private final String path;
  private final int pageSize;
  private Iterator<FileStatus> page;
  private String next;

  DirectoryListing(Namespace ns, String path, int pageSize) throws IOException {
    this.ns = ns;
    this.path = path;
    this.pageSize = pageSize;
    fetch(null);
  }

  private void fetch(String after) throws IOException {
    try {
      DirectoryPage p = ns.list(path, after, pageSize);
      page = p.entries().iterator();
      next = p.next();
    } catch (NamespaceException e) {
      throw NamespaceErrors.toHadoop(e);
    }
  }

  @Override
  public boolean hasNext() throws IOException {
    while (!page.hasNext() && next != null) {
      fetch(next);
    }
    return page.hasNext();
  }

  @Override
  public FileStatus next() throws IOException {
    if (!hasNext()) {
      throw new NoSuchElementException("no more entries in " + path);
    }
    return page.next();
  }
}
