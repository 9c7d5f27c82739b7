package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;

/**
 * The reads of one {@link Namespace} view: statuses, existence and directory pages, each with
 * the view's permission checks. Thread-safe.
 */
final class Reads {
  private final NamespaceCore core;
  private final EntryWalker walker;
  private final AccessChecker access;

  Reads(NamespaceCore core, EntryWalker walker) {
    this.core = core;
    this.walker = walker;
    this.access = walker.access();
  }

  /** {@link Namespace#getStatus}. */
  FileStatus getStatus(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    return walker.findChecked(comps, p, 0).inode().status(p);
  }

  /** {@link Namespace#openForRead}. */
  FileStatus openForRead(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    Entry e = walker.findChecked(comps, p, AccessChecker.READ);
    if (e.isDirectory()) {
      throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, p, "cannot open a directory");
    }
    if (e.inode().isSymlink()) {
      throw EntryWalker.unresolvedLink(e);
    }
    return e.inode().status(p);
  }

  /** {@link Namespace#exists}. */
  boolean exists(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    if (comps.isEmpty()) {
      return true;
    }
    List<Entry> walk = walker.walk(comps);
    access.traverse(walker.rootForChecks(), walk, comps.size() - 1);
    return walk.size() == comps.size();
  }

  /** {@link Namespace#isFileClosed}. */
  boolean isFileClosed(String path) throws NamespaceException {
    FileStatus f = getStatus(path);
    if (f.isDirectory()) {
      throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, f.path(), "not a file");
    }
    return !f.isOpenForWrite();
  }

  /** {@link Namespace#list}. */
  DirectoryPage list(String path, String after, int limit) throws NamespaceException {
    if (limit < 1 || limit > core.config.maxPageSize()) {
      throw new IllegalArgumentException("limit (" + limit + ") must be in [1, "
          + core.config.maxPageSize() + "]");
    }
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    Entry dir = walker.findChecked(comps, p, 0);
    if (!dir.isDirectory()) {
      return new DirectoryPage(after == null ? List.of(dir.inode().status(p)) : List.of(), null);
    }
    access.check(dir, AccessChecker.READ | AccessChecker.EXECUTE);
    return core.lister.page(dir, after, limit);
  }

  /** {@link Namespace#listAll}. */
  List<FileStatus> listAll(String path) throws NamespaceException {
    List<FileStatus> out = new ArrayList<>();
    String cursor = null;
    do {
      DirectoryPage page = list(path, cursor, core.config.maxPageSize());
      out.addAll(page.entries());
      cursor = page.next();
    } while (cursor != null);
    return out;
  }
}
