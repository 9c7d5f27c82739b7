package io.parityfs.cli;

import io.parityfs.meta.NamespaceException;
import io.parityfs.node.client.NodeException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;

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
      + " not apply in the array's state");

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

  /** The status a failure maps to. */
  static ExitStatus of(Throwable e) {
    if (e instanceof CliException c) {
      return c.status();
    }
    if (e instanceof NamespaceException n) {
      return switch (n.status()) {
        case NOT_FOUND -> NOT_FOUND;
        case ALREADY_EXISTS -> EXISTS;
        case PERMISSION_DENIED -> PERMISSION_DENIED;
        case UNAVAILABLE -> UNAVAILABLE;
        case CONFLICT, LEASE_CONFLICT, LEASE_EXPIRED -> CONFLICT;
        case INVALID_PATH -> USAGE;
        default -> FAILED;
      };
    }
    if (e instanceof NodeException n) {
      return switch (n.status()) {
        case NOT_FOUND, UNKNOWN_TARGET -> NOT_FOUND;
        case ALREADY_EXISTS -> EXISTS;
        case CONFLICT, ILLEGAL_STATE -> CONFLICT;
        case BUSY, TIMEOUT, SHUTTING_DOWN, UNAVAILABLE -> UNAVAILABLE;
        case INVALID_ARGUMENT -> USAGE;
        default -> FAILED;
      };
    }
    if (e instanceof NoSuchFileException) {
      return NOT_FOUND;
    }
    if (e instanceof FileAlreadyExistsException) {
      return EXISTS;
    }
    if (e instanceof AccessDeniedException) {
      return PERMISSION_DENIED;
    }
    if (e instanceof IllegalArgumentException) {
      return USAGE;
    }
    if (e instanceof InterruptedIOException) {
      return UNAVAILABLE;
    }
    return FAILED;
  }
}
