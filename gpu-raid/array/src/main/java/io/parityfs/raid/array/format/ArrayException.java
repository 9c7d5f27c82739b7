package io.parityfs.raid.array.format;

import java.io.IOException;
import java.nio.file.Path;

/**
 * An array-layer failure with its {@link ArrayError} code, and the drive path it concerns when
 * there is one. The message names the path, the array and the values involved, so it can be shown
 * to an admin as is.
 */
public final class ArrayException extends IOException {
  private static final long serialVersionUID = 1L;

  private final ArrayError error;
  private final transient Path path;

  public ArrayException(ArrayError error, Path path, String message) {
    super(message);
    this.error = error;
    this.path = path;
  }

  public ArrayException(ArrayError error, Path path, String message, Throwable cause) {
    super(message, cause);
    this.error = error;
    this.path = path;
  }

  /** The error code. */
  public ArrayError error() {
    return error;
  }

  /** The drive directory or label file concerned, or null when the error is about the array. */
  public Path path() {
    return path;
  }
}
