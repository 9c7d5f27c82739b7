package io.parityfs.node.protocol;

/**
 * The frame layout, version 1. All integers are big-endian and unsigned unless said otherwise.
 *
 * <pre>
 * offset size field           value
 * ------ ---- --------------- -------------------------------------------------------------
 *      0    4 magic           "PFSN" = 50 46 53 4E
 *      4    1 version         1
 *      5    1 opcode          {@link Opcode#code()}
 *      6    2 flags           bit0 RESPONSE, bit1 MORE, bit2 END; other bits must be 0
 *      8    8 request id      chosen by the client, unique among its in-flight requests on the
 *                             connection; 0 only in connection-level error responses
 *     16    4 status          {@link Status#code()} in responses; 0 in requests
 *     20    4 header length   H, at most {@link #MAX_HEADER_LENGTH} (64 KiB)
 *     24    4 payload length  P, at most {@link #MAX_PAYLOAD_LENGTH} (4 MiB + 64 KiB)
 *     28    4 payload CRC32C  of the P payload bytes; 0 when P = 0
 *     32    4 header CRC32C   of bytes 0..31 followed by the H header bytes
 *     36    H header          opcode-specific fields, fixed binary layout (docs/protocol.md)
 *   36+H    P payload         chunk data (DATA), list entries (LIST), UTF-8 JSON (admin replies),
 *                             UTF-8 text (error responses)
 * </pre>
 *
 * <p>Example: a STAT request, id 7, for chunk 42:3 on target
 * {@code 00112233-4455-6677-8899-aabbccddeeff}:
 *
 * <pre>
 * 50 46 53 4E  01  13  00 00  00 00 00 00 00 00 00 07  00 00 00 00  00 00 00 1C  00 00 00 00
 * 00 00 00 00  F8 32 96 17
 * 00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF  00 00 00 00 00 00 00 2A  00 00 00 03
 * </pre>
 *
 * (the header CRC32C covers the first 32 bytes and the 28 header bytes; see docs/protocol.md).
 */
public final class FrameFormat {
  /** "PFSN". */
  public static final int MAGIC = 0x5046534E;
  public static final int VERSION = 1;
  /** Bytes before the header. */
  public static final int FIXED_LENGTH = 36;
  /** Bytes covered by the header CRC before the header: all of the fixed part but the CRC itself. */
  public static final int CRC_COVERED_FIXED = 32;

  public static final int MAX_HEADER_LENGTH = 64 << 10;
  public static final int MAX_PAYLOAD_LENGTH = (4 << 20) + (64 << 10);
  /** The largest payload of one DATA frame. */
  public static final int MAX_DATA_PAYLOAD = 1 << 20;
  /** The largest UTF-8 text of an error response. */
  public static final int MAX_ERROR_TEXT = 4096;
  /** The largest UTF-8 path in REPLACE_DRIVE. */
  public static final int MAX_PATH_BYTES = 4096;
  /** The most entries one LIST reply may carry. */
  public static final int MAX_LIST_LIMIT = 10_000;

  public static final int FLAG_RESPONSE = 1;
  public static final int FLAG_MORE = 1 << 1;
  public static final int FLAG_END = 1 << 2;
  static final int KNOWN_FLAGS = FLAG_RESPONSE | FLAG_MORE | FLAG_END;

  /** Field offsets. */
  static final int OFF_VERSION = 4;
  static final int OFF_OPCODE = 5;
  static final int OFF_FLAGS = 6;
  static final int OFF_REQUEST_ID = 8;
  static final int OFF_STATUS = 16;
  static final int OFF_HEADER_LENGTH = 20;
  static final int OFF_PAYLOAD_LENGTH = 24;
  static final int OFF_PAYLOAD_CRC = 28;
  static final int OFF_HEADER_CRC = 32;

  private FrameFormat() {}
}
