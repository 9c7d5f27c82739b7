package io.parityfs.cli;

import io.parityfs.client.ClientStatus;

/**
 * The exit codes of {@code parityfs}, stable for scripts (listed in {@code parityfs --help} and
 * {@code docs/cli.md}). A command that fails on several arguments exits with the code of the
 * first failure.
 */
public enum ExitStatus {
  OK(0, "success"),
  FAILED(1, "the operation failed (any failure without a code of its own)"),
  USAGE(2, "usage error: unknown option, missing or malformed argument, invalid path or layout"),
  NOT_FOUND(3, "not found: path, local file, target or slot"),
  EXISTS(4, "already exists"),
  PERMISSION_DENIED(5, "permission denied (namespace or local file)"),
  UNAVAILABLE(6, "cluster unavailable: ZooKeeper or a storage node unreachable, busy or timed out"),
  CONFLICT(7, "conflict: a lease held by another writer, contention, or an operation that does"
      + " not apply in the array's state"),
  NO_SPACE(8, "no space: a storage target of the file is full (or the namespace's file ids are"
      + " used up)");

  private final int code;
  private final String meaning;

  ExitStatus(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  public int code() {
    return code;
  }

  public String meaning() {
    return meaning;
  }

  /** The status a failure maps to: a {@link CliException}'s own, else by its client status. */
  static ExitStatus of(Throwable e) {
    if (e instanceof CliException c) {
      return c.status();
    }
    return of(ClientStatus.of(e));
  }

  /** The exit status of a client status (every one; the switch has no default). */
  static ExitStatus of(ClientStatus s) {
    return switch (s) {
      case NOT_FOUND, TARGET_NOT_FOUND -> NOT_FOUND;
      case ALREADY_EXISTS -> EXISTS;
      case PERMISSION_DENIED -> PERMISSION_DENIED;
      case UNAVAILABLE, INTERRUPTED -> UNAVAILABLE;
      case CONFLICT, LEASE_CONFLICT, LEASE_EXPIRED, ILLEGAL_STATE -> CONFLICT;
      case INVALID_PATH, INVALID_ARGUMENT -> USAGE;
      case NO_SPACE -> NO_SPACE;
      case PARENT_NOT_DIRECTORY, NOT_A_DIRECTORY, IS_A_DIRECTORY, NOT_EMPTY, INVALID_RENAME,
          UNRESOLVED_LINK, TOO_LARGE, FILE_TOO_LARGE, CORRUPT, FENCED, DATA_LOST,
          IO_ERROR -> FAILED;
    };
  }
}
