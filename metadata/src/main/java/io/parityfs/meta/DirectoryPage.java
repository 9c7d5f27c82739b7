package io.parityfs.meta;

import java.util.List;

/**
 * One page of a directory listing, sorted by the entries' names (UTF-8 byte order).
 *
 * @param entries at most the page size asked for
 * @param next the cursor for the next page (the last name of this page), or null when the
 *     listing is complete
 */
public record DirectoryPage(List<FileStatus> entries, String next) {
  public DirectoryPage {
    entries = List.copyOf(entries);
  }

  public boolean hasMore() {
    return next != null;
  }
}
