package io.parityfs.node.protocol.admin;

import java.io.IOException;

/**
 * An admin reply that {@link AdminCodec} cannot read: not JSON, not the document asked for, a
 * field missing or of the wrong type, or another schema than {@link AdminCodec#SCHEMA}.
 */
public final class AdminPayloadException extends IOException {
  private static final long serialVersionUID = 1L;

  public AdminPayloadException(String message) {
    super(message);
  }

  public AdminPayloadException(String message, Throwable cause) {
    super(message, cause);
  }
}
