package io.parityfs.meta;

/** What an inode is. There are no hard links. */
public enum FileType {
  FILE,
  DIRECTORY,
  /** A symbolic link: its target path is its content ({@link FileStatus#linkTarget}). */
  SYMLINK
}
