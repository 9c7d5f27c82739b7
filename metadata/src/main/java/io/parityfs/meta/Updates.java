package io.parityfs.meta;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.Op;

/**
 * The attribute updates of one {@link Namespace} view (times, set-id bits, permission, owner,
 * layout), and the read, check, change, versioned write loop that they, {@link XAttrs} and
 * {@link WriterCommits} share. Thread-safe.
 */
final class Updates {
  /** A change of one inode's record. */
  @FunctionalInterface
  interface Change {
    Inode apply(Inode current) throws NamespaceException;
  }

  /** The permission check of an update, given the entry it is about to change. */
  @FunctionalInterface
  interface Guard {
    void check(Entry current) throws NamespaceException;
  }

  /** Ops that commit together with an update (open records). */
  @FunctionalInterface
  interface Also {
    List<Op> ops(Inode before, Inode after);
  }

  private final NamespaceCore core;
  private final EntryWalker walker;
  private final AccessChecker access;
  /** Checks and completes layouts against the cluster; null: taken as given. */
  private final LayoutPlacer placer;

  Updates(NamespaceCore core, EntryWalker walker, LayoutPlacer placer) {
    this.core = core;
    this.walker = walker;
    this.access = walker.access();
    this.placer = placer;
  }

  FileStatus update(String path, Guard guard, Change change) throws NamespaceException {
    return update(path, guard, change, (before, after) -> List.of());
  }

  /** Read, check, change, versioned write; re-read and re-apply on a version conflict. */
  FileStatus update(String path, Guard guard, Change change, Also also)
      throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      Entry e = walker.findChecked(comps, p, 0);
      guard.check(e);
      Inode next = change.apply(e.inode());
      if (core.write(e, next, also.ops(e.inode(), next), p)) {
        return next.status(p);
      }
    }
    throw core.conflict(p);
  }

  /** {@link Namespace#setTimes}. */
  FileStatus setTimes(String path, long mtime, long atime) throws NamespaceException {
    if (mtime < -1 || atime < -1) {
      throw new IllegalArgumentException("times (" + mtime + ", " + atime + ") must be >= -1");
    }
    return update(path, e -> access.check(e, AccessChecker.WRITE),
        i -> i.withTimes(mtime == -1 ? i.mtime() : mtime, atime == -1 ? i.atime() : atime));
  }

  /** {@link Namespace#setTimesPosix}. */
  FileStatus setTimesPosix(String path, long mtime, long atime, boolean touch)
      throws NamespaceException {
    if (mtime < -1 || atime < -1) {
      throw new IllegalArgumentException("times (" + mtime + ", " + atime + ") must be >= -1");
    }
    return update(path, e -> {
      if (!touch || !access.caller().user().equals(e.inode().owner())) {
        if (touch) {
          access.check(e, AccessChecker.WRITE);
        } else {
          access.owner(e);
        }
      }
    }, i -> i.withTimes(mtime == -1 ? i.mtime() : mtime, atime == -1 ? i.atime() : atime));
  }

  /** {@link Namespace#clearSetIdBits}. */
  FileStatus clearSetIdBits(String path, int bits) throws NamespaceException {
    if (bits == 0 || (bits & ~(AccessChecker.SETUID | AccessChecker.SETGID)) != 0) {
      throw new IllegalArgumentException("bits (" + Integer.toOctalString(bits)
          + ") must be set-user-ID and/or set-group-ID (06000)");
    }
    return update(path, e -> {
      if (!access.caller().user().equals(e.inode().owner())) {
        access.check(e, AccessChecker.WRITE);
      }
    }, i -> i.withPermission(i.perm() & ~bits));
  }

  /** {@link Namespace#setPermission}. */
  FileStatus setPermission(String path, int permission) throws NamespaceException {
    if (permission < 0 || permission > 07777) {
      throw new IllegalArgumentException("permission (" + Integer.toOctalString(permission)
          + ") must be in 0..07777");
    }
    return update(path, access::owner, i -> i.withPermission(permission));
  }

  /** {@link Namespace#setOwner}. */
  FileStatus setOwner(String path, String owner, String group)
      throws NamespaceException {
    for (String v : Arrays.asList(owner, group)) {
      if (v != null && (v.isEmpty() || v.length() > 256)) {
        throw new IllegalArgumentException("owner/group (" + v + ") must be 1..256 characters");
      }
    }
    return update(path, e -> {
      // HDFS's rule: the owner (or a superuser) only; a user may name itself as owner and
      // one of its own groups as group
      access.owner(e);
      if (owner != null && !owner.equals(access.caller().user())) {
        access.superuser(e.path(), "change the owner to " + owner);
      }
      if (group != null && access.active()) {
        if (!access.caller().inGroup(group)) {
          throw new NamespaceException(NamespaceStatus.PERMISSION_DENIED, e.path(),
              "Permission denied: user=" + access.caller().user() + " is not in group " + group);
        }
      }
    }, i -> i.withOwner(owner == null ? i.owner() : owner, group == null ? i.group() : group));
  }

  /** {@link Namespace#setLayout}. */
  FileStatus setLayout(String path, Layout layout) throws NamespaceException {
    Objects.requireNonNull(layout, "layout");
    if (placer != null) {
      placer.check(layout, path);
    }
    return update(path, e -> {
      if (e.inode().isSymlink()) {
        throw EntryWalker.unresolvedLink(e); // a link has no layout of its own: its target's
      }
      access.check(e, AccessChecker.WRITE);
    }, i -> {
      if (!i.isDirectory() && (i.length() != 0 || i.version() != 0)) {
        throw new NamespaceException(NamespaceStatus.CONFLICT, path,
            "the layout of a file with data cannot change");
      }
      boolean place = placer != null && !i.isDirectory()
          && layout.targets().size() < layout.stripeCount();
      return i.withLayout(place ? placer.place(layout, path) : layout);
    });
  }
}
