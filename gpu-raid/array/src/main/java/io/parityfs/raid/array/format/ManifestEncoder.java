package io.parityfs.raid.array.format;

import static io.parityfs.raid.array.format.ManifestFormat.*;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Writes an {@link ObjectManifest} as the {@link ManifestFormat} record: version 1 when its tag is
 * {@link VersionTag#NONE} (byte for byte what releases before the tag wrote), version 2 otherwise.
 * Stateless.
 */
public final class ManifestEncoder {
  private ManifestEncoder() {}

  /** The bytes of {@code manifest}, CRC included. */
  public static byte[] encode(ObjectManifest manifest) {
    int n = manifest.slots().size();
    VersionTag tag = manifest.tag();
    int version = tag.isNone() ? VERSION_1 : VERSION_2;
    int length = ManifestFormat.length(version, n);
    ByteBuffer b = ByteBuffer.allocate(length); // big-endian, zero-filled: reserved bytes are 0
    b.put(MAGIC);
    b.putShort(OFF_VERSION, (short) version);
    b.putShort(OFF_LENGTH, (short) length);
    b.putLong(OFF_OBJECT_ID, manifest.objectId());
    b.putLong(OFF_OBJECT_VERSION, manifest.version());
    b.putLong(OFF_CREATED, manifest.created().toEpochMilli());
    b.putLong(OFF_OBJECT_LENGTH, manifest.objectLength());
    b.putInt(OFF_CELL_SIZE, manifest.cellSize());
    ProtectionCode.put(b, OFF_PROTECTION, manifest.protection());
    b.put(OFF_SLOT_COUNT, (byte) n);
    for (int i = 0; i < n; i++) {
      b.put(OFF_SLOTS + i, (byte) manifest.slotOf(i));
    }
    if (version == VERSION_2) {
      b.putLong(tagOffset(n), tag.generation());
      b.putLong(tagOffset(n) + 8, tag.sequence());
    }
    int crcAt = length - 4;
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, crcAt);
    b.putInt(crcAt, (int) crc.getValue());
    return b.array();
  }
}
