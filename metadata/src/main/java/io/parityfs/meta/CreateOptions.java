package io.parityfs.meta;

/**
 * How {@link Namespace#create} and {@link Namespace#mkdirs} make an inode.
 *
 * @param overwrite create only: replace an existing file (never a directory)
 * @param createParents create only: make missing parent directories (Hadoop {@code create});
 *     false is {@code createNonRecursive}
 * @param permission mode bits asked for, 0..07777; the caller's umask is removed from them
 * @param owner owner of the new inode(s); null = the calling user (another user needs a
 *     superuser)
 * @param group group of the new inode(s); null = the parent directory's group (BSD rule, as
 *     HDFS); a non-superuser must belong to a group it names
 * @param layout the file's layout, or a new directory's default layout; null inherits the parent
 *     directory's default layout
 * @param lease create only: the new file is open for writing, its lease held by this client's
 *     ZooKeeper session until {@link Namespace#complete}; false makes a closed, empty file
 * @param posixGroup with no {@code group}: the POSIX (System V, Linux) rule instead of HDFS's:
 *     the new inode takes the caller's primary group, unless the parent directory is setgid
 *     (then the parent's group, and a new directory is setgid too); the FUSE mount's rule
 */
public record CreateOptions(boolean overwrite, boolean createParents, int permission,
    String owner, String group, Layout layout, boolean lease, boolean posixGroup) {

  public CreateOptions {
    if (permission < 0 || permission > 07777) {
      throw new IllegalArgumentException("permission (" + Integer.toOctalString(permission)
          + ") must be in 0..07777");
    }
    if ((owner != null && (owner.isEmpty() || owner.length() > 256))
        || (group != null && (group.isEmpty() || group.length() > 256))) {
      throw new IllegalArgumentException("owner (" + owner + ") and group (" + group
          + ") must be 1..256 characters");
    }
  }

  /** A file open for writing: no overwrite, parents created, 0644, the caller's, inherited layout. */
  public static CreateOptions file() {
    return new CreateOptions(false, true, 0644, null, null, null, true, false);
  }

  /** A directory: 0755, the caller's, inherited default layout. */
  public static CreateOptions directory() {
    return new CreateOptions(false, true, 0755, null, null, null, false, false);
  }

  public CreateOptions withOverwrite(boolean v) {
    return new CreateOptions(v, createParents, permission, owner, group, layout, lease, posixGroup);
  }

  public CreateOptions withCreateParents(boolean v) {
    return new CreateOptions(overwrite, v, permission, owner, group, layout, lease, posixGroup);
  }

  public CreateOptions withPermission(int v) {
    return new CreateOptions(overwrite, createParents, v, owner, group, layout, lease, posixGroup);
  }

  public CreateOptions withOwner(String newOwner, String newGroup) {
    return new CreateOptions(overwrite, createParents, permission, newOwner, newGroup, layout,
        lease, posixGroup);
  }

  public CreateOptions withLayout(Layout v) {
    return new CreateOptions(overwrite, createParents, permission, owner, group, v, lease,
        posixGroup);
  }

  public CreateOptions withLease(boolean v) {
    return new CreateOptions(overwrite, createParents, permission, owner, group, layout, v,
        posixGroup);
  }

  public CreateOptions withPosixGroup(boolean v) {
    return new CreateOptions(overwrite, createParents, permission, owner, group, layout, lease, v);
  }
}
