package io.parityfs.meta;

import java.io.IOException;

/** The one exception type of the namespace: a {@link NamespaceStatus} and the path involved. */
public final class NamespaceException extends IOException {
  private static final long serialVersionUID = 1L;

  private final NamespaceStatus status;
  private final String path;

  public NamespaceException(NamespaceStatus status, String path, String message) {
    super(status + ": " + path + ": " + message);
    this.status = status;
    this.path = path;
  }

  public NamespaceException(NamespaceStatus status, String path, String message, Throwable cause) {
    this(status, path, message);
    initCause(cause);
  }

  public NamespaceStatus status() {
    return status;
  }

  /** The path the failure is about (may be a parent of the path asked for). */
  public String path() {
    return path;
  }
}
