package io.parityfs.node.protocol;

/**
 * The result of a request, carried in the status field of every response frame. The numeric
 * value is stable forever; {@link #retryable()} says whether the same request may succeed if sent
 * again (a client retries only idempotent requests, see {@link Opcode#idempotent()}).
 *
 * <p>Values are grouped: 1..15 the request itself is wrong or does not apply; 16..31 the node or
 * its array failed; 32..47 transient conditions; 48..63 the frame or the conversation is broken.
 */
public enum Status {
  OK(0, false, "success"),

  INVALID_ARGUMENT(1, false, "a field is out of range or malformed (includes chunk ids outside the store)"),
  NOT_FOUND(2, false, "the chunk does not exist"),
  ALREADY_EXISTS(3, false, "WRITE with mode CREATE on an existing chunk"),
  CONFLICT(4, false, "APPEND at an offset other than the chunk's length, or a concurrent writer"
      + " that held the chunk longer than the node waits"),
  UNKNOWN_TARGET(5, false, "no storage target (array) with this id on the node"),
  ILLEGAL_STATE(6, false, "the operation does not apply in the array's current state"),
  STALE_GENERATION(7, false, "WRITE or DELETE by an older writer generation of the file than the"
      + " target has seen: the writer's lease was recovered or the file reopened (fenced)"),
  PERMISSION_DENIED(8, false, "the peer's certificate has no role that may run this opcode (an"
      + " admin opcode from a client or node certificate)"),

  NO_SPACE(16, false, "the target is full"),
  NOT_ENOUGH_DRIVES(17, false, "the array has lost more drives than it can tolerate"),
  OBJECT_LOST(18, false, "the chunk cannot be reconstructed"),
  DRIVE_IO(19, false, "a drive failed in a way the array could not hide"),
  INTERNAL(20, false, "a bug or an unexpected failure on the node"),

  BUSY(32, true, "the node sheds load; nothing was done"),
  TIMEOUT(33, true, "no answer in time (client) or the operation took too long (node)"),
  SHUTTING_DOWN(34, true, "the node is stopping; nothing was done"),
  UNAVAILABLE(35, true, "client side only: no connection, or the connection was lost"),

  UNSUPPORTED_VERSION(48, false, "the frame's protocol version is not spoken here"),
  UNKNOWN_OPCODE(49, false, "the opcode is not known"),
  CRC_MISMATCH(50, true, "the payload does not match its CRC32C"),
  BAD_FRAME(51, false, "bad magic, bad header CRC, or a frame sent in the wrong direction"),
  FRAME_TOO_LARGE(52, false, "a declared length is over the protocol's maximum"),
  PROTOCOL_VIOLATION(53, false, "frames out of order: DATA for no open WRITE, a reused request id");

  private static final Status[] BY_CODE = new Status[64];

  static {
    for (Status s : values()) {
      BY_CODE[s.code] = s;
    }
  }

  private final int code;
  private final boolean retryable;
  private final String meaning;

  Status(int code, boolean retryable, String meaning) {
    this.code = code;
    this.retryable = retryable;
    this.meaning = meaning;
  }

  /** The value of the status field on the wire. */
  public int code() {
    return code;
  }

  /** Whether the same (idempotent) request may succeed if sent again. */
  public boolean retryable() {
    return retryable;
  }

  /** One line saying what the status means. */
  public String meaning() {
    return meaning;
  }

  /**
   * The status with this value. An unknown value (from a newer node) reads as {@link #INTERNAL},
   * which is not retryable.
   */
  public static Status fromCode(long code) {
    if (code >= 0 && code < BY_CODE.length && BY_CODE[(int) code] != null) {
      return BY_CODE[(int) code];
    }
    return INTERNAL;
  }
}
