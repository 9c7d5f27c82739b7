package io.parityfs.node.protocol;

/**
 * A request or a response: what one frame carries once decoded. Implementations are the records
 * of this package and {@link DataFrame}; only {@link DataFrame} holds a buffer (and must be
 * released by whoever receives it).
 */
public interface Message {
  /** The request this frame belongs to. */
  long requestId();

  /** The frame's opcode. */
  Opcode opcode();

  /** Whether the frame travels from node to client. */
  boolean isResponse();
}
