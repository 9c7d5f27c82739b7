package io.parityfs.client;

import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.Status;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;

/**
 * Why a client operation failed: the one code that the mount (errno, {@code fuse.Errno}), the
 * Hadoop {@code FileSystem} (exception types, {@code hadoop.NamespaceErrors}) and the CLI (exit
 * codes, {@code cli.ExitStatus}) each map with a single switch. It is mapped once from the
 * namespace's {@link NamespaceStatus} ({@link #of(NamespaceStatus)}) and once from the storage
 * nodes' wire {@link Status} ({@link #of(Status)}); {@link #of(Throwable)} finds it for any
 * failure. Every switch over it is exhaustive without a default, so a new value does not compile
 * until each surface has mapped it.
 */
public enum ClientStatus {
  /** A path, a parent of it or an extended attribute does not exist. */
  NOT_FOUND,
  /** The target of a create, mkdir or rename exists (or a local file, for the CLI's get). */
  ALREADY_EXISTS,
  /** An ancestor of the path is a file. */
  PARENT_NOT_DIRECTORY,
  /** A directory was expected. */
  NOT_A_DIRECTORY,
  /** A file was expected. */
  IS_A_DIRECTORY,
  /** A non-recursive delete of a directory that has entries. */
  NOT_EMPTY,
  /**
   * A symbolic link the operation does not follow: a link above the path, or the link itself
   * opened, appended to or overwritten (the Hadoop client follows links before it asks; the
   * mount's kernel resolves them).
   */
  UNRESOLVED_LINK,
  /** A malformed path or name. */
  INVALID_PATH,
  /** A rename of the root, or of a directory into itself or its own descendant. */
  INVALID_RENAME,
  /** A namespace record would exceed its size limits (extended attributes). */
  TOO_LARGE,
  /**
   * A length no file can take, or an extension whose zeros its targets could not hold
   * ({@link FileTooLargeException}), refused before a byte is stored.
   */
  FILE_TOO_LARGE,
  /**
   * No room: a storage target of the file is full (wire NO_SPACE; nothing of that chunk was
   * stored), or the namespace's file id space is used up.
   */
  NO_SPACE,
  /**
   * Contention: the namespace's optimistic retries were exhausted, or a node refused a chunk
   * transfer that raced another (a second stream writing the chunk, a version replaced during a
   * read). Safe to retry.
   */
  CONFLICT,
  /**
   * A node refused an operation that does not apply in its or its array's current state (an
   * admin call on a slot in the wrong state, a drive that is not blank, a node still starting).
   */
  ILLEGAL_STATE,
  /** ZooKeeper or a storage node could not be reached, was busy, stopping or timed out. */
  UNAVAILABLE,
  /** A storage target is not in the registry, or its node does not serve it. */
  TARGET_NOT_FOUND,
  /** A znode holds something this code cannot decode (foreign data or a newer schema). */
  CORRUPT,
  /** The caller lacks the access the operation needs (or a local file's, for the CLI). */
  PERMISSION_DENIED,
  /** The file is open for writing by another client whose lease is alive. */
  LEASE_CONFLICT,
  /** The caller no longer holds the file's lease. */
  LEASE_EXPIRED,
  /**
   * This writer was fenced: a target has seen a newer writer generation of the file (its lease
   * was recovered or the file reopened); see {@link FencedException}.
   */
  FENCED,
  /**
   * Bytes the file's committed length covers are gone: a chunk missing or shorter than the
   * length says, a chunk its target cannot reconstruct (OBJECT_LOST), or lease recovery's
   * DATA_MISSING.
   */
  DATA_LOST,
  /** A malformed argument: the caller's, or a request a node found malformed. */
  INVALID_ARGUMENT,
  /** The calling thread was interrupted. */
  INTERRUPTED,
  /** Any other failure: a drive a node could not hide, a node's internal error, local I/O. */
  IO_ERROR;

  /** The status of a namespace failure. */
  public static ClientStatus of(NamespaceStatus s) {
    return switch (s) {
      case NOT_FOUND -> NOT_FOUND;
      case ALREADY_EXISTS -> ALREADY_EXISTS;
      case PARENT_NOT_DIRECTORY -> PARENT_NOT_DIRECTORY;
      case NOT_A_DIRECTORY -> NOT_A_DIRECTORY;
      case IS_A_DIRECTORY -> IS_A_DIRECTORY;
      case NOT_EMPTY -> NOT_EMPTY;
      case INVALID_PATH -> INVALID_PATH;
      case INVALID_RENAME -> INVALID_RENAME;
      case TOO_LARGE -> TOO_LARGE;
      case NO_SPACE -> NO_SPACE;
      case CONFLICT -> CONFLICT;
      case UNAVAILABLE -> UNAVAILABLE;
      case CORRUPT -> CORRUPT;
      case PERMISSION_DENIED -> PERMISSION_DENIED;
      case LEASE_CONFLICT -> LEASE_CONFLICT;
      case LEASE_EXPIRED -> LEASE_EXPIRED;
      case DATA_MISSING -> DATA_LOST;
      case UNRESOLVED_LINK -> UNRESOLVED_LINK;
    };
  }

  /**
   * The status of a storage node's answer (or of the node client's own failure: UNAVAILABLE,
   * TIMEOUT). NOT_FOUND ("the chunk does not exist") is DATA_LOST: the client asks only for
   * chunks a file's length covers. UNKNOWN_TARGET is TARGET_NOT_FOUND. The frame and
   * conversation failures, INTERNAL, DRIVE_IO and NOT_ENOUGH_DRIVES are IO_ERROR.
   *
   * @throws IllegalArgumentException for OK, which is not a failure
   */
  public static ClientStatus of(Status s) {
    return switch (s) {
      case OK -> throw new IllegalArgumentException("OK is not a failure");
      case INVALID_ARGUMENT -> INVALID_ARGUMENT;
      case NOT_FOUND, OBJECT_LOST -> DATA_LOST;
      case ALREADY_EXISTS -> ALREADY_EXISTS;
      case CONFLICT -> CONFLICT;
      case UNKNOWN_TARGET -> TARGET_NOT_FOUND;
      case ILLEGAL_STATE -> ILLEGAL_STATE;
      case STALE_GENERATION -> FENCED;
      case PERMISSION_DENIED -> PERMISSION_DENIED;
      case NO_SPACE -> NO_SPACE;
      case BUSY, TIMEOUT, SHUTTING_DOWN, UNAVAILABLE -> UNAVAILABLE;
      case NOT_ENOUGH_DRIVES, DRIVE_IO, INTERNAL, UNSUPPORTED_VERSION, UNKNOWN_OPCODE,
          CRC_MISMATCH, BAD_FRAME, FRAME_TOO_LARGE, PROTOCOL_VIOLATION -> IO_ERROR;
    };
  }

  /**
   * The status of any failure: a {@link ClientException}'s own; a {@link NamespaceException}'s
   * or {@link NodeException}'s mapped as above (also as the cause of another IOException);
   * {@link InterruptedIOException} INTERRUPTED; {@link IllegalArgumentException}
   * INVALID_ARGUMENT; the local-file exceptions of {@code java.nio.file} (the CLI's put and get)
   * NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED; anything else IO_ERROR.
   */
  public static ClientStatus of(Throwable e) {
    ClientStatus own = own(e);
    if (own != null) {
      return own;
    }
    if (e instanceof InterruptedIOException) {
      return INTERRUPTED;
    }
    if (e instanceof IllegalArgumentException) {
      return INVALID_ARGUMENT;
    }
    if (e instanceof NoSuchFileException) {
      return NOT_FOUND;
    }
    if (e instanceof FileAlreadyExistsException) {
      return ALREADY_EXISTS;
    }
    if (e instanceof AccessDeniedException) {
      return PERMISSION_DENIED;
    }
    if (e instanceof IOException) {
      ClientStatus cause = own(e.getCause());
      if (cause != null) {
        return cause;
      }
    }
    return IO_ERROR;
  }

  /** The status {@code e} carries itself, or null. */
  private static ClientStatus own(Throwable e) {
    if (e instanceof ClientException c) {
      return c.status();
    }
    if (e instanceof NamespaceException n) {
      return of(n.status());
    }
    if (e instanceof NodeException n) {
      return of(n.status());
    }
    return null;
  }
}
