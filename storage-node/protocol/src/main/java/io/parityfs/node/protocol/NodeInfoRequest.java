package io.parityfs.node.protocol;

/**
 * NODE_INFO: the node's id, version, addresses and targets. No header. Answered by
 * {@link AdminResponse} (JSON).
 */
public record NodeInfoRequest(long requestId) implements Request {
  @Override
  public Opcode opcode() {
    return Opcode.NODE_INFO;
  }
}
