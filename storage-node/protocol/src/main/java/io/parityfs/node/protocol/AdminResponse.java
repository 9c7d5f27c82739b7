package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * The OK answer to an administrative request (NODE_INFO, ARRAY_STATUS, FAIL_DRIVE, REPLACE_DRIVE,
 * START/STOP_REBUILD, START/STOP_SCRUB, PROGRESS). No header; payload: one JSON document in UTF-8,
 * one of the records of {@code io.parityfs.node.protocol.admin} as its {@code AdminCodec} writes
 * it (see also docs/protocol.md). The frame codec does not parse it.
 */
public record AdminResponse(long requestId, Opcode opcode, String json) implements Response {
  public AdminResponse {
    Objects.requireNonNull(opcode, "opcode");
    Objects.requireNonNull(json, "json");
    if (!opcode.isAdmin()) {
      throw new IllegalArgumentException("opcode (" + opcode + ") is not an admin operation");
    }
  }
}
