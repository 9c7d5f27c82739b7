package io.parityfs.meta;

import java.util.List;

/**
 * POSIX permission checks for one {@link Caller}, with HDFS's rules ({@code
 * FSPermissionChecker}): the owner's bits apply to the owner, the group's to members of the
 * inode's group, the others' to everyone else; the superuser (by name or by group) passes every
 * check; EXECUTE on every directory above a path is needed to reach it; the sticky bit on a
 * directory lets only the owner of an entry (or of the directory) remove or rename it.
 *
 * <p>Checks read nothing themselves: they judge the entries a walk already read, so a checked
 * operation costs no extra ZooKeeper read except the root's record (for the traverse check of
 * the root). Stateless and thread-safe.
 */
final class AccessChecker {
  static final int READ = 4;
  static final int WRITE = 2;
  static final int EXECUTE = 1;
  private static final int STICKY = 01000;
  static final int SETGID = 02000;
  static final int SETUID = 04000;

  private final Caller caller;
  private final boolean active;
  private final boolean superuser;

  AccessChecker(NamespaceConfig config, Caller caller) {
    this.caller = caller;
    this.superuser = caller.user().equals(config.superuser())
        || caller.inGroup(config.superGroup());
    this.active = config.permissions() && !superuser;
  }

  Caller caller() {
    return caller;
  }

  /** Whether checks apply at all (permissions on and the caller is not a superuser). */
  boolean active() {
    return active;
  }

  boolean isSuperuser() {
    return superuser;
  }

  /**
   * EXECUTE on the root and on the first {@code dirs} entries of a walk (the directories on the
   * way to what the operation touches).
   */
  void traverse(Entry root, List<Entry> walk, int dirs) throws NamespaceException {
    if (!active) {
      return;
    }
    check(root, EXECUTE);
    for (int i = 0; i < dirs && i < walk.size(); i++) {
      if (walk.get(i).isDirectory()) {
        check(walk.get(i), EXECUTE);
      }
    }
  }

  /** The caller has every bit of {@code access} (READ | WRITE | EXECUTE) on the entry. */
  void check(Entry e, int access) throws NamespaceException {
    if (!active || access == 0) {
      return;
    }
    Inode i = e.inode();
    int bits;
    if (caller.user().equals(i.owner())) {
      bits = (i.perm() >> 6) & 7;
    } else if (caller.inGroup(i.group())) {
      bits = (i.perm() >> 3) & 7;
    } else {
      bits = i.perm() & 7;
    }
    if ((bits & access) != access) {
      throw denied(e, actionName(access));
    }
  }

  /** The caller owns the entry (or is a superuser): what changing its mode or group needs. */
  void owner(Entry e) throws NamespaceException {
    if (active && !caller.user().equals(e.inode().owner())) {
      throw new NamespaceException(NamespaceStatus.PERMISSION_DENIED, e.path(),
          "Permission denied: user=" + caller.user() + " is not the owner of inode="
              + describe(e));
    }
  }

  /** Only a superuser may do this (change an owner, touch trusted. attributes). */
  void superuser(String path, String what) throws NamespaceException {
    if (active) {
      throw new NamespaceException(NamespaceStatus.PERMISSION_DENIED, path,
          "Permission denied: user=" + caller.user() + " is not a superuser, needed to " + what);
    }
  }

  /**
   * Removing or renaming {@code child} out of {@code parent}: WRITE and EXECUTE on the parent,
   * and with the parent's sticky bit set, owning the child or the parent.
   */
  void removeFrom(Entry parent, Entry child) throws NamespaceException {
    if (!active) {
      return;
    }
    check(parent, WRITE | EXECUTE);
    if ((parent.inode().perm() & STICKY) != 0
        && !caller.user().equals(child.inode().owner())
        && !caller.user().equals(parent.inode().owner())) {
      throw new NamespaceException(NamespaceStatus.PERMISSION_DENIED, child.path(),
          "Permission denied by sticky bit: user=" + caller.user() + ", path=" + describe(child)
              + ", parent=" + describe(parent));
    }
  }

  /**
   * The owner, group and mode a new inode gets: the owner is the caller (another owner needs a
   * superuser), the group is the one asked for (the caller must belong to it, unless a
   * superuser) or else the parent directory's (HDFS's rule) or, with {@link
   * CreateOptions#posixGroup()}, POSIX's (the caller's primary group unless the parent is
   * setgid; under a setgid parent a new directory is setgid, and a new file loses a setgid bit
   * asked for when the caller is not in its group), and the mode is the one asked for less the
   * caller's umask.
   */
  CreateOptions resolve(CreateOptions o, Entry parent, String path, boolean directory)
      throws NamespaceException {
    String owner = o.owner() != null ? o.owner() : caller.user();
    if (!owner.equals(caller.user())) {
      superuser(path, "create as user " + owner);
    }
    int perm = o.permission() & ~caller.umask();
    String group;
    if (o.group() != null) {
      group = o.group();
      if (active && !caller.inGroup(group)) {
        throw new NamespaceException(NamespaceStatus.PERMISSION_DENIED, path,
            "Permission denied: user=" + caller.user() + " is not in group " + group);
      }
    } else if (o.posixGroup()) {
      boolean setgid = (parent.inode().perm() & SETGID) != 0;
      group = setgid || caller.groups().isEmpty() ? parent.inode().group()
          : caller.groups().get(0);
      if (directory && setgid) {
        perm |= SETGID;
      } else if (!directory && (perm & (SETGID | 010)) == (SETGID | 010) && !superuser
          && !caller.inGroup(group)) {
        perm &= ~SETGID; // Linux's inode_init_owner
      }
    } else {
      group = parent.inode().group();
    }
    return o.withOwner(owner, group).withPermission(perm);
  }

  private NamespaceException denied(Entry e, String action) {
    return new NamespaceException(NamespaceStatus.PERMISSION_DENIED, e.path(),
        "Permission denied: user=" + caller.user() + ", access=" + action + ", inode="
            + describe(e));
  }

  /** HDFS's form: {@code "/path":owner:group:drwxr-xr-x}. */
  static String describe(Entry e) {
    Inode i = e.inode();
    return "\"" + e.path() + "\":" + i.owner() + ":" + i.group() + ":"
        + (i.isDirectory() ? 'd' : i.isSymlink() ? 'l' : '-') + modeString(i.perm());
  }

  static String modeString(int perm) {
    StringBuilder b = new StringBuilder(9);
    String rwx = "rwx";
    for (int shift = 6; shift >= 0; shift -= 3) {
      for (int bit = 0; bit < 3; bit++) {
        b.append((perm >> (shift + 2 - bit) & 1) != 0 ? rwx.charAt(bit) : '-');
      }
    }
    if ((perm & STICKY) != 0) {
      b.setCharAt(8, (perm & 1) != 0 ? 't' : 'T');
    }
    return b.toString();
  }

  private static String actionName(int access) {
    StringBuilder b = new StringBuilder();
    b.append((access & READ) != 0 ? 'R' : '-');
    b.append((access & WRITE) != 0 ? 'W' : '-');
    b.append((access & EXECUTE) != 0 ? 'X' : '-');
    return switch (b.toString()) {
      case "R--" -> "READ";
      case "-W-" -> "WRITE";
      case "--X" -> "EXECUTE";
      case "R-X" -> "READ_EXECUTE";
      case "-WX" -> "WRITE_EXECUTE";
      case "RW-" -> "READ_WRITE";
      default -> "ALL";
    };
  }
}
