package io.parityfs.node.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** CRC32C over ranges of a ByteBuf, without copying (heap, direct or composite). */
final class Crc32c {
  private Crc32c() {}

  static void update(CRC32C crc, ByteBuf buf, int index, int length) {
    if (length == 0) {
      return;
    }
    if (buf.nioBufferCount() == 1) {
      crc.update(buf.nioBuffer(index, length));
    } else {
      for (ByteBuffer b : buf.nioBuffers(index, length)) {
        crc.update(b);
      }
    }
  }

  static int of(ByteBuf buf, int index, int length) {
    if (length == 0) {
      return 0;
    }
    CRC32C crc = new CRC32C();
    update(crc, buf, index, length);
    return (int) crc.getValue();
  }
}
