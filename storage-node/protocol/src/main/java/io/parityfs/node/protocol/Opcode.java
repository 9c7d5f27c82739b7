package io.parityfs.node.protocol;

/**
 * What a frame asks for or answers. The numeric value is the frame's opcode byte and never
 * changes; new operations get new values.
 */
public enum Opcode {
  /** Only in error responses to frames whose opcode is unknown or untrusted (request id 0). */
  NONE(0x00, false),
  /** A piece of a stream: the data of a WRITE request, or of a READ response. */
  DATA(0x01, false),
  /** Liveness check; empty request, empty response. */
  PING(0x02, true),

  WRITE(0x10, false),
  READ(0x11, true),
  /** Idempotent: deleting a missing chunk answers OK with {@code existed = false}. */
  DELETE(0x12, true),
  STAT(0x13, true),
  LIST(0x14, true),
  SYNC(0x15, true),
  /**
   * A peer operation (docs/across-nodes.md §5): the node rebuilds one member of a chunk group
   * across nodes from K others it reads from their nodes itself, and stores it. Repeating it
   * stores the same bytes under the same tag.
   */
  REBUILD_MEMBER(0x20, true),

  NODE_INFO(0x40, true),
  ARRAY_STATUS(0x41, true),
  FAIL_DRIVE(0x42, false),
  REPLACE_DRIVE(0x43, false),
  START_REBUILD(0x44, false),
  STOP_REBUILD(0x45, false),
  START_SCRUB(0x46, false),
  STOP_SCRUB(0x47, false),
  PROGRESS(0x48, true);

  private static final Opcode[] BY_CODE = new Opcode[256];

  static {
    for (Opcode op : values()) {
      BY_CODE[op.code] = op;
    }
  }

  private final int code;
  private final boolean idempotent;

  Opcode(int code, boolean idempotent) {
    this.code = code;
    this.idempotent = idempotent;
  }

  /** The opcode byte, 0..255. */
  public int code() {
    return code;
  }

  /** Whether repeating the request has the same effect as sending it once, so a client may retry. */
  public boolean idempotent() {
    return idempotent;
  }

  /** Whether this is an administrative operation (its reply is a JSON document). */
  public boolean isAdmin() {
    return code >= 0x40;
  }

  /** The opcode with this byte value, or {@code null} if there is none. */
  public static Opcode fromCode(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
