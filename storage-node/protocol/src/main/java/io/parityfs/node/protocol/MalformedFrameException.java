package io.parityfs.node.protocol;

/** A frame whose fields do not make a valid message; becomes a non-fatal {@link FrameError}. */
final class MalformedFrameException extends Exception {
  private static final long serialVersionUID = 1L;

  private final Status status;

  MalformedFrameException(Status status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  Status status() {
    return status;
  }
}
