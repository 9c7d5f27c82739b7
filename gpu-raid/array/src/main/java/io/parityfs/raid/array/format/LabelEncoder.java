package io.parityfs.raid.array.format;

import static io.parityfs.raid.array.format.LabelFormat.*;

import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.zip.CRC32C;

/** Writes a {@link DriveLabel} as the {@link LabelFormat} record. Stateless. */
public final class LabelEncoder {
  private LabelEncoder() {}

  /** The {@value LabelFormat#LENGTH} bytes of {@code label}, CRC included. */
  public static byte[] encode(DriveLabel label) {
    ByteBuffer b = ByteBuffer.allocate(LENGTH); // big-endian, zero-filled: reserved bytes are 0
    b.put(MAGIC);
    b.putShort(OFF_VERSION, (short) VERSION);
    b.putShort(OFF_LENGTH, (short) LENGTH);
    putUuid(b, OFF_ARRAY_ID, label.arrayId());
    putUuid(b, OFF_DRIVE_ID, label.driveId());
    b.putLong(OFF_GENERATION, label.generation());
    b.putLong(OFF_FAILED_SLOTS, label.failedSlots());
    b.putLong(OFF_REBUILDING_SLOTS, label.rebuildingSlots());
    b.putLong(OFF_CREATED, label.created().toEpochMilli());
    ArrayConfig c = label.config();
    b.putLong(OFF_MAX_OBJECT, c.maxObjectSize());
    b.putInt(OFF_CELL_SIZE, c.cellSize());
    ProtectionCode.put(b, OFF_KIND, c.protection());
    b.put(OFF_SLOT_COUNT, (byte) label.slotCount());
    b.put(OFF_SPARES, (byte) c.hotSpares());
    b.put(OFF_SLOT, (byte) label.slot());
    b.put(OFF_ROLE, label.role() == DriveRole.DATA ? ROLE_DATA : ROLE_SPARE);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, OFF_CRC);
    b.putInt(OFF_CRC, (int) crc.getValue());
    return b.array();
  }

  private static void putUuid(ByteBuffer b, int offset, UUID id) {
    b.putLong(offset, id.getMostSignificantBits());
    b.putLong(offset + 8, id.getLeastSignificantBits());
  }
}
