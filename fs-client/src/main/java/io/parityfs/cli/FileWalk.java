package io.parityfs.cli;

import io.parityfs.meta.DirectoryPage;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/** Every file under a path, depth first, a directory's entries read a page at a time. */
final class FileWalk {
  private FileWalk() {}

  /** What is done with each file found. */
  interface Visit {
    void file(FileStatus f) throws CliException, IOException;
  }

  static void files(Namespace ns, FileStatus top, Visit visit) throws CliException, IOException {
    Deque<FileStatus> todo = new ArrayDeque<>(List.of(top));
    while (!todo.isEmpty()) {
      FileStatus f = todo.pop();
      if (!f.isDirectory()) {
        visit.file(f);
        continue;
      }
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
