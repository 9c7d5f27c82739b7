package io.parityfs.meta;

/**
 * Why a namespace operation failed. The code travels unchanged to clients; the Hadoop
 * {@code FileSystem} maps each to the exception {@code filesystem.md} names (see the table in
 * {@code docs/metadata.md}).
 */
public enum NamespaceStatus {
  /** The path, a parent of it, or an extended attribute does not exist. */
  NOT_FOUND,
  /** The target of a create, mkdir (over a file) or rename already exists. */
  ALREADY_EXISTS,
  /** An ancestor of the path is a file. */
  PARENT_NOT_DIRECTORY,
  /** A directory was expected (list with a cursor, the parent of a create). */
  NOT_A_DIRECTORY,
  /** A file was expected (length updates of a directory). */
  IS_A_DIRECTORY,
  /** A non-recursive delete of a directory that has entries. */
  NOT_EMPTY,
  /** A malformed path or name: relative, empty component, ".", "..", too long, NUL. */
  INVALID_PATH,
  /** A rename of the root, or of a directory into itself or its own descendant. */
  INVALID_RENAME,
  /** A record would exceed its size limits (extended attributes). */
  TOO_LARGE,
  /** The file id space (2^40) is used up. */
  NO_SPACE,
  /** Optimistic retries were exhausted under contention; safe to retry. */
  CONFLICT,
  /** ZooKeeper could not be reached or refused the request. */
  UNAVAILABLE,
  /** A znode holds something this code cannot decode (foreign data or a newer schema). */
  CORRUPT,
  /** The caller's user and groups lack the access the operation needs. */
  PERMISSION_DENIED,
  /** The file is open for writing by another client whose lease is alive. */
  LEASE_CONFLICT,
  /**
   * The caller no longer holds the file's lease: its ZooKeeper session was lost, or the lease
   * was recovered by another client. Data written since the last sync may not be in the file.
   */
  LEASE_EXPIRED,
  /**
   * Lease recovery found that the storage targets hold fewer bytes than the file's committed
   * length: bytes a writer was told are stored (hflush, hsync) are missing. The file is left
   * open (not recovered, not shortened) for an operator; see {@code docs/metadata.md}.
   */
  DATA_MISSING,
  /**
   * A directory on the way to the path is a symbolic link (the exception's path is the link's):
   * the caller resolves the path through the link's target and asks again, as HDFS clients do
   * on its {@code UnresolvedLinkException}. The namespace itself never follows links.
   */
  UNRESOLVED_LINK
}
