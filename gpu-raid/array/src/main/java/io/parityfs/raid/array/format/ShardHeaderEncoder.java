package io.parityfs.raid.array.format;

import static io.parityfs.raid.array.format.ShardFormat.*;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Writes a {@link ShardHeader} as the {@link ShardFormat} header block: version 1 when its tag is
 * {@link VersionTag#NONE} (byte for byte what releases before the tag wrote), version 2 otherwise.
 * Stateless.
 */
public final class ShardHeaderEncoder {
  private ShardHeaderEncoder() {}

  /** The {@value ShardFormat#HEADER_LENGTH}-byte header block of {@code header}, CRC included. */
  public static byte[] encode(ShardHeader header) {
    ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH); // big-endian, zero-filled: reserved bytes 0
    b.put(MAGIC);
    VersionTag tag = header.tag();
    b.putShort(OFF_VERSION, (short) (tag.isNone() ? VERSION_1 : VERSION_2));
    b.putShort(OFF_LENGTH, (short) HEADER_LENGTH);
    b.putLong(OFF_OBJECT_ID, header.objectId());
    b.putLong(OFF_OBJECT_VERSION, header.objectVersion());
    b.putLong(OFF_CREATED, header.created().toEpochMilli());
    b.putLong(OFF_OBJECT_LENGTH, header.objectLength());
    b.putLong(OFF_DATA_LENGTH, header.dataLength());
    b.putInt(OFF_CELL_SIZE, header.cellSize());
    b.putInt(OFF_CELL_COUNT, header.cellCount());
    ProtectionCode.put(b, OFF_KIND, header.protection());
    b.put(OFF_SHARD, (byte) header.shardIndex());
    if (!tag.isNone()) {
      b.putLong(OFF_TAG, tag.generation());
      b.putLong(OFF_TAG + 8, tag.sequence());
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, OFF_CRC);
    b.putInt(OFF_CRC, (int) crc.getValue());
    return b.array();
  }
}
