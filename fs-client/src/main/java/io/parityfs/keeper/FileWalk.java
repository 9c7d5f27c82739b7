package io.parityfs.keeper;

import io.parityfs.meta.DirectoryPage;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/** Every file (and directory) under a path, depth first, a directory's entries read a page at a time. */
public final class FileWalk {
  private FileWalk() {}

  /** What is done with each file found; may throw {@code E} besides I/O errors. */
  public interface Visit<E extends Exception> {
    void file(FileStatus f) throws E, IOException;

    /** Called for each directory at or under the top, before its entries. */
    default void directory(FileStatus d) throws E, IOException {}
  }

  /**
   * Visits every file at or under {@code top} (a file: itself). Symbolic links are not visited
   * nor followed: a link has no data, and its target is walked where it lives.
   */
  public static <E extends Exception> void files(Namespace ns, FileStatus top, Visit<E> visit)
      throws E, IOException {
    Deque<FileStatus> todo = new ArrayDeque<>(List.of(top));
    while (!todo.isEmpty()) {
      FileStatus f = todo.pop();
      if (f.isSymlink()) {
        continue; // no data of its own; what it points at is walked where it is
      }
      if (!f.isDirectory()) {
        visit.file(f);
        continue;
      }
      visit.directory(f);
      String after = null;
      DirectoryPage page;
      do {
        page = ns.list(f.path(), after, 1000);
        page.entries().forEach(todo::push);
        after = page.next();
      } while (page.hasMore());
    }
  }
}
