package io.parityfs.node.net;

import io.parityfs.node.protocol.Opcode;
import java.util.Locale;

/** A request the node has accepted and not yet answered in full: what its metrics need. */
final class PendingRequest {
  final long id;
  final Opcode opcode;
  final long startNanos = System.nanoTime();
  volatile long bytesIn;
  volatile long bytesOut;

  PendingRequest(long id, Opcode opcode) {
    this.id = id;
    this.opcode = opcode;
  }

  String op() {
    return opcode.name().toLowerCase(Locale.ROOT);
  }
}
