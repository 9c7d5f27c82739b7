package io.parityfs.node.client;

import io.parityfs.node.protocol.Status;
import java.io.IOException;
import java.util.Objects;

/**
 * A request to a node failed: the node answered with an error status, or the client gave up
 * (TIMEOUT, UNAVAILABLE). {@link #status()} is the wire status; {@link #retryable()} says whether
 * sending the request again could succeed.
 */
public class NodeException extends IOException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  public NodeException(Status status, String message) {
    this(status, message, null);
  }

  public NodeException(Status status, String message, Throwable cause) {
    super(status + ": " + message, cause);
    this.status = Objects.requireNonNull(status, "status");
  }

  public Status status() {
    return status;
  }

  public boolean retryable() {
    return status.retryable();
  }
}
