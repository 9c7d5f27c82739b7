package io.parityfs.meta;

/** What an inode is. There are no symbolic or hard links. */
public enum FileType {
  FILE,
  DIRECTORY
}
