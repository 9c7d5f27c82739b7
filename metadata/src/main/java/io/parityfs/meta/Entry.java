package io.parityfs.meta;

/**
 * An inode found by a walk: where its directory entry lives, the record read and the znode
 * version of that read (the expected version of any write that follows).
 *
 * @param path the normalised path it was found at
 * @param parentId the id of the directory holding the entry (0 for the root)
 * @param znode the entry znode ({@code R/root} for the root)
 */
record Entry(String path, long parentId, String znode, Inode inode, int zkVersion) {
  boolean isDirectory() {
    return inode.isDirectory();
  }
}
