package io.parityfs.meta;

import java.util.Objects;

/**
 * How {@link Namespace#create} and {@link Namespace#mkdirs} make an inode.
 *
 * @param overwrite create only: replace an existing file (never a directory)
 * @param createParents create only: make missing parent directories (Hadoop {@code create});
 *     false is {@code createNonRecursive}
 * @param permission mode bits of the new inode, 0..07777
 * @param owner owner of the new inode(s)
 * @param group group of the new inode(s)
 * @param layout the file's layout, or a new directory's default layout; null inherits the parent
 *     directory's default layout
 */
public record CreateOptions(boolean overwrite, boolean createParents, int permission,
    String owner, String group, Layout layout) {

  public CreateOptions {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(group, "group");
    if (permission < 0 || permission > 07777) {
      throw new IllegalArgumentException("permission (" + Integer.toOctalString(permission)
          + ") must be in 0..07777");
    }
    if (owner.isEmpty() || owner.length() > 256 || group.isEmpty() || group.length() > 256) {
      throw new IllegalArgumentException("owner (" + owner + ") and group (" + group
          + ") must be 1..256 characters");
    }
  }

  /** A file: no overwrite, parents created, 0644, root:root, inherited layout. */
  public static CreateOptions file() {
    return new CreateOptions(false, true, 0644, "root", "root", null);
  }

  /** A directory: 0755, root:root, inherited default layout. */
  public static CreateOptions directory() {
    return new CreateOptions(false, true, 0755, "root", "root", null);
  }

  public CreateOptions withOverwrite(boolean v) {
    return new CreateOptions(v, createParents, permission, owner, group, layout);
  }

  public CreateOptions withCreateParents(boolean v) {
    return new CreateOptions(overwrite, v, permission, owner, group, layout);
  }

  public CreateOptions withPermission(int v) {
    return new CreateOptions(overwrite, createParents, v, owner, group, layout);
  }

  public CreateOptions withOwner(String newOwner, String newGroup) {
    return new CreateOptions(overwrite, createParents, permission, newOwner, newGroup, layout);
  }

  public CreateOptions withLayout(Layout v) {
    return new CreateOptions(overwrite, createParents, permission, owner, group, v);
  }
}
