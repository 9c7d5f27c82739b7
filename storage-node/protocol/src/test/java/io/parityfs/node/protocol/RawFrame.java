package io.parityfs.node.protocol;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** Builds frames field by field, including wrong ones, for hostile-input tests. */
final class RawFrame {
  int magic = FrameFormat.MAGIC;
  int version = 1;
  int opcode;
  int flags;
  long requestId = 99;
  int status;
  byte[] header = new byte[0];
  byte[] payload = new byte[0];
  Long declaredHeaderLength;
  Long declaredPayloadLength;
  Integer payloadCrc;
  Integer headerCrc;

  static RawFrame of(Opcode op, int flags, byte[] header) {
    RawFrame f = new RawFrame();
    f.opcode = op.code();
    f.flags = flags;
    f.header = header;
    return f;
  }

  /** Just the fixed part (for oversized declared lengths). */
  byte[] fixedPart() {
    byte[] all = bytes();
    byte[] fixed = new byte[FrameFormat.FIXED_LENGTH];
    System.arraycopy(all, 0, fixed, 0, fixed.length);
    return fixed;
  }

  byte[] bytes() {
    ByteBuffer b = ByteBuffer.allocate(FrameFormat.FIXED_LENGTH + header.length + payload.length);
    b.putInt(magic).put((byte) version).put((byte) opcode).putShort((short) flags);
    b.putLong(requestId).putInt(status);
    b.putInt((int) (declaredHeaderLength != null ? declaredHeaderLength : header.length));
    b.putInt((int) (declaredPayloadLength != null ? declaredPayloadLength : payload.length));
    CRC32C pc = new CRC32C();
    pc.update(payload);
    b.putInt(payloadCrc != null ? payloadCrc : payload.length == 0 ? 0 : (int) pc.getValue());
    CRC32C hc = new CRC32C();
    hc.update(b.array(), 0, FrameFormat.CRC_COVERED_FIXED);
    hc.update(header);
    b.putInt(headerCrc != null ? headerCrc : (int) hc.getValue());
    b.put(header).put(payload);
    return b.array();
  }

  /** target (16) + fileId + chunkIndex as raw values. */
  static ByteBuffer targetAndChunk(int extra, long fileId, int chunkIndex) {
    ByteBuffer b = ByteBuffer.allocate(28 + extra);
    b.putLong(0x0011223344556677L).putLong(0x8899AABBCCDDEEFFL).putLong(fileId).putInt(chunkIndex);
    return b;
  }
}
