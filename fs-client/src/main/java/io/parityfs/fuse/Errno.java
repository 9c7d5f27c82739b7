package io.parityfs.fuse;

import io.parityfs.client.ClientStatus;
import io.parityfs.meta.NamespaceStatus;

/**
 * The Linux errno values the mount returns (negated), and the mapping of ParityFS failures to
 * them. The values are those of Linux on x86-64 and arm64 (asm-generic); the mount is Linux-only.
 * The table is in {@code docs/fuse.md}.
 */
public final class Errno {
  public static final int EPERM = 1;
  public static final int ENOENT = 2;
  public static final int EINTR = 4;
  public static final int EIO = 5;
  public static final int E2BIG = 7;
  public static final int EBADF = 9;
  public static final int EAGAIN = 11;
  public static final int EACCES = 13;
  public static final int EBUSY = 16;
  public static final int EEXIST = 17;
  public static final int ENOTDIR = 20;
  public static final int EISDIR = 21;
  public static final int EINVAL = 22;
  public static final int EFBIG = 27;
  public static final int ENOSPC = 28;
  public static final int ERANGE = 34;
  public static final int ENAMETOOLONG = 36;
  /** A link where none may be followed (O_NOFOLLOW's answer). */
  public static final int ELOOP = 40;
  public static final int ENOSYS = 38;
  public static final int ENOTEMPTY = 39;
  public static final int ENODATA = 61;
  public static final int EOPNOTSUPP = 95;
  public static final int ESTALE = 116;

  private Errno() {}

  /**
   * The errno of a client status (every one; the switch has no default). LEASE_CONFLICT (another
   * client writes the file) is EBUSY, not EACCES: it is a passing state of the file, not a
   * matter of permissions; UNAVAILABLE is EIO, as a hard NFS mount that gave up, rather than
   * EAGAIN, which tools take for "retry now". A full storage target is ENOSPC, as a full id
   * space is. A node's refusal of a malformed request is EINVAL, as the caller's own.
   */
  public static int of(ClientStatus status) {
    return switch (status) {
      case NOT_FOUND -> ENOENT;
      case ALREADY_EXISTS -> EEXIST;
      case PARENT_NOT_DIRECTORY, NOT_A_DIRECTORY -> ENOTDIR;
      case IS_A_DIRECTORY -> EISDIR;
      case NOT_EMPTY -> ENOTEMPTY;
      case UNRESOLVED_LINK -> ELOOP;
      case INVALID_PATH, INVALID_RENAME, INVALID_ARGUMENT -> EINVAL;
      case TOO_LARGE -> E2BIG;
      case FILE_TOO_LARGE -> EFBIG;
      case NO_SPACE -> ENOSPC;
      case CONFLICT -> EAGAIN;
      case PERMISSION_DENIED -> EACCES;
      case LEASE_CONFLICT -> EBUSY;
      case INTERRUPTED -> EINTR;
      case UNAVAILABLE, CORRUPT, LEASE_EXPIRED, DATA_LOST, FENCED, ILLEGAL_STATE,
          TARGET_NOT_FOUND, IO_ERROR -> EIO;
    };
  }

  /** The errno of a namespace status (as its client status). */
  public static int of(NamespaceStatus status) {
    return of(ClientStatus.of(status));
  }

  /** The errno of any failure of an operation: its {@link ClientStatus#of(Throwable)}. */
  public static int of(Throwable e) {
    return of(ClientStatus.of(e));
  }
}
