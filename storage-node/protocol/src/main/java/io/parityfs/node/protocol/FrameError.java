package io.parityfs.node.protocol;

/**
 * A malformed frame, as {@link FrameDecoder} reports it: emitted in place of a message, never
 * thrown. Not sent on the wire; the receiver decides, following {@link #fatal()}:
 *
 * <ul>
 *   <li>not fatal: the frame was well delimited and its header CRC correct, so the connection is
 *       still in step; a node answers {@link #toResponse()} (an ErrorResponse for the frame's
 *       request id) and carries on. Payload CRC mismatch, unknown opcode, a bad field (chunk id
 *       out of range, unknown mode or flag bits, wrong header length for the opcode).
 *   <li>fatal: the byte stream can no longer be trusted (bad magic or version, a length over the
 *       maximum, a header CRC mismatch, a frame in the wrong direction). The decoder discards
 *       everything after it; a node answers {@link #toResponse()} (request id 0) and closes the
 *       connection; a client closes it.
 * </ul>
 *
 * @param requestId the frame's request id, or 0 when the frame is untrusted (fatal errors)
 * @param opcode the frame's opcode, or {@link Opcode#NONE} when unknown or untrusted
 */
public record FrameError(long requestId, Opcode opcode, Status status, String message, boolean fatal) {
  /** The error response a node sends for this error. */
  public ErrorResponse toResponse() {
    return new ErrorResponse(requestId, opcode, status, message);
  }
}
