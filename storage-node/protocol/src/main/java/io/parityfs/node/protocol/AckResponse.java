package io.parityfs.node.protocol;

import java.util.Set;

/** The OK answer to SYNC or PING: no header, no payload. */
public record AckResponse(long requestId, Opcode opcode) implements Response {
  static final Set<Opcode> OPCODES = Set.of(Opcode.SYNC, Opcode.PING);

  public AckResponse {
    if (!OPCODES.contains(opcode)) {
      throw new IllegalArgumentException("opcode (" + opcode + ") must be SYNC or PING");
    }
  }
}
