package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * A failed request: any response frame whose status is not OK. It ends the request (and its
 * stream: the frame carries END). No header; payload: a UTF-8 message for humans, at most
 * {@link FrameFormat#MAX_ERROR_TEXT} bytes (longer messages are cut). Request id 0 means the
 * connection itself is condemned (bad magic, version, framing); the node closes it after sending.
 *
 * @param opcode the request's opcode, or {@link Opcode#NONE} when it is unknown or untrusted
 */
public record ErrorResponse(long requestId, Opcode opcode, Status status, String message)
    implements Response {
  private static final int MAX_CHARS = 1024;

  public ErrorResponse {
    Objects.requireNonNull(opcode, "opcode");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(message, "message");
    if (status == Status.OK) {
      throw new IllegalArgumentException("an error response needs a status other than OK");
    }
    if (message.length() > MAX_CHARS) {
      int cut = Character.isHighSurrogate(message.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
      message = message.substring(0, cut);
    }
  }
}
