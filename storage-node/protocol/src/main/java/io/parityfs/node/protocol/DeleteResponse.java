package io.parityfs.node.protocol;

/** The answer to DELETE. Header, 1 byte: 1 if the chunk existed, else 0. */
public record DeleteResponse(long requestId, boolean existed) implements Response {
  @Override
  public Opcode opcode() {
    return Opcode.DELETE;
  }
}
