package io.parityfs.node.protocol;

/** PING: no header. Answered by {@link AckResponse}. */
public record PingRequest(long requestId) implements Request {
  @Override
  public Opcode opcode() {
    return Opcode.PING;
  }
}
