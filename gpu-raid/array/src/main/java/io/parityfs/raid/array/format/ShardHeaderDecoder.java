package io.parityfs.raid.array.format;

import static io.parityfs.raid.array.format.ShardFormat.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.zip.CRC32C;

/**
 * Reads a {@link ShardFormat} header block, version 1 or 2, back into a {@link ShardHeader},
 * checking in this order: length at least the fixed prefix, magic, version, declared and actual
 * length, CRC, reserved bytes, then every field's range and their agreement with each other. A
 * version-1 header has no tag: its header's is {@link VersionTag#NONE}. Stateless.
 */
public final class ShardHeaderDecoder {
  private ShardHeaderDecoder() {}

  /**
   * The header in the remaining bytes of {@code block} (position and limit are left as they
   * were; heap or direct), read from {@code file} (named in errors, may be null).
   *
   * @throws ArrayException CORRUPT_SHARD or UNSUPPORTED_VERSION, naming the file and the fault
   */
  public static ShardHeader decode(ByteBuffer block, Path file) throws ArrayException {
    ByteBuffer b = block.slice().order(ByteOrder.BIG_ENDIAN);
    int size = b.remaining();
    if (size < OFF_OBJECT_ID) {
      throw corrupt(file, "is truncated: " + size + " bytes, a header has " + HEADER_LENGTH);
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (b.get(i) != MAGIC[i]) {
        throw corrupt(file, "is not a ParityFS shard: magic is " + printable(b)
            + ", expected " + new String(MAGIC, StandardCharsets.US_ASCII));
      }
    }
    int version = Short.toUnsignedInt(b.getShort(OFF_VERSION));
    if (version > VERSION_2) {
      throw new ArrayException(ArrayError.UNSUPPORTED_VERSION, file,
          "shard " + file + " has format version " + version + "; this ParityFS reads versions "
              + VERSION_1 + " and " + VERSION_2 + " (was it written by a newer release?)");
    }
    if (version < 1) {
      throw corrupt(file, "has format version " + version + ", versions start at 1");
    }
    int declared = Short.toUnsignedInt(b.getShort(OFF_LENGTH));
    if (declared != HEADER_LENGTH) {
      throw corrupt(file, "declares header length " + declared + ", version " + version
          + " headers have " + HEADER_LENGTH);
    }
    if (size != HEADER_LENGTH) {
      throw corrupt(file, (size < HEADER_LENGTH ? "is truncated: " : "has trailing bytes: ")
          + size + " bytes, a header has " + HEADER_LENGTH);
    }
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().limit(OFF_CRC)); // a view: the caller's buffer is not moved
    int expected = (int) crc.getValue();
    int stored = b.getInt(OFF_CRC);
    if (stored != expected) {
      throw corrupt(file, String.format(
          "header fails its checksum: stored CRC32C %08x, computed %08x", stored, expected));
    }
    for (int i = version == VERSION_1 ? OFF_RESERVED : OFF_RESERVED_V2; i < OFF_CRC; i++) {
      if (b.get(i) != 0) {
        throw corrupt(file, "has a non-zero reserved header byte at offset " + i);
      }
    }
    for (int i = OFF_LENGTH + 2; i < OFF_OBJECT_ID; i++) {
      if (b.get(i) != 0) {
        throw corrupt(file, "has a non-zero reserved header byte at offset " + i);
      }
    }
    try {
      VersionTag tag = version == VERSION_1 ? VersionTag.NONE
          : new VersionTag(b.getLong(OFF_TAG), b.getLong(OFF_TAG + 8));
      return new ShardHeader(
          b.getLong(OFF_OBJECT_ID),
          b.getLong(OFF_OBJECT_VERSION),
          Byte.toUnsignedInt(b.get(OFF_SHARD)),
          ProtectionCode.get(b, OFF_KIND),
          b.getInt(OFF_CELL_SIZE),
          b.getInt(OFF_CELL_COUNT),
          b.getLong(OFF_OBJECT_LENGTH),
          b.getLong(OFF_DATA_LENGTH),
          Instant.ofEpochMilli(b.getLong(OFF_CREATED)),
          tag);
    } catch (IllegalArgumentException e) {
      // The CRC matched, so the writer itself put an impossible value there.
      throw corrupt(file, "holds an impossible value: " + e.getMessage());
    }
  }

  private static String printable(ByteBuffer b) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < MAGIC.length; i++) {
      byte x = b.get(i);
      s.append(x >= 0x20 && x < 0x7f ? String.valueOf((char) x) : String.format("\\x%02x", x));
    }
    return "'" + s + "'";
  }

  private static ArrayException corrupt(Path file, String fault) {
    return new ArrayException(ArrayError.CORRUPT_SHARD, file, "shard " + file + " " + fault);
  }
}
