package io.parityfs.raid.array.format;

import static io.parityfs.raid.array.format.LabelFormat.*;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Reads the {@link LabelFormat} record back into a {@link DriveLabel}, checking in this order:
 * length at least the fixed header, magic, version, declared and actual length, CRC, then every
 * field's range. Stateless.
 */
public final class LabelDecoder {
  private LabelDecoder() {}

  /**
   * The label in {@code bytes}, read from {@code file} (named in errors).
   *
   * @throws ArrayException CORRUPT_LABEL or UNSUPPORTED_VERSION, naming the file and the fault
   */
  public static DriveLabel decode(byte[] bytes, Path file) throws ArrayException {
    if (bytes.length < OFF_ARRAY_ID) {
      throw corrupt(file, "is truncated: " + bytes.length + " bytes, a label has " + LENGTH);
    }
    if (!Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw corrupt(
          file,
          "is not a ParityFS drive label: magic is "
              + printable(Arrays.copyOf(bytes, MAGIC.length))
              + ", expected "
              + new String(MAGIC, StandardCharsets.US_ASCII));
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int version = Short.toUnsignedInt(b.getShort(OFF_VERSION));
    if (version != VERSION) {
      throw new ArrayException(
          ArrayError.UNSUPPORTED_VERSION,
          file,
          "drive label "
              + file
              + " has format version "
              + version
              + "; this ParityFS reads version "
              + VERSION
              + " (was the drive written by a newer release?)");
    }
    int declared = Short.toUnsignedInt(b.getShort(OFF_LENGTH));
    if (declared != LENGTH) {
      throw corrupt(file, "declares length " + declared + ", version 1 labels have " + LENGTH);
    }
    if (bytes.length != LENGTH) {
      throw corrupt(
          file,
          (bytes.length < LENGTH ? "is truncated: " : "has trailing bytes: ")
              + bytes.length
              + " bytes, a label has "
              + LENGTH);
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, OFF_CRC);
    int expected = (int) crc.getValue();
    int stored = b.getInt(OFF_CRC);
    if (stored != expected) {
      throw corrupt(
          file,
          String.format(
              "fails its checksum: stored CRC32C %08x, computed %08x", stored, expected));
    }
    for (int i = OFF_RESERVED; i < OFF_CRC; i++) {
      boolean rebuildingField = i >= OFF_REBUILDING_SLOTS && i < OFF_RESERVED_2;
      if (bytes[i] != 0 && !rebuildingField) {
        throw corrupt(file, "has a non-zero reserved byte at offset " + i);
      }
    }
    for (int i = OFF_LENGTH + 2; i < OFF_ARRAY_ID; i++) {
      if (bytes[i] != 0) {
        throw corrupt(file, "has a non-zero reserved byte at offset " + i);
      }
    }
    try {
      ArrayConfig config =
          new ArrayConfig(
              ProtectionCode.get(b, OFF_KIND),
              b.getInt(OFF_CELL_SIZE),
              b.getLong(OFF_MAX_OBJECT),
              Byte.toUnsignedInt(b.get(OFF_SPARES)));
      return new DriveLabel(
          uuid(b, OFF_ARRAY_ID),
          uuid(b, OFF_DRIVE_ID),
          Byte.toUnsignedInt(b.get(OFF_SLOT)),
          role(b.get(OFF_ROLE)),
          config,
          Byte.toUnsignedInt(b.get(OFF_SLOT_COUNT)),
          b.getLong(OFF_GENERATION),
          b.getLong(OFF_FAILED_SLOTS),
          b.getLong(OFF_REBUILDING_SLOTS),
          Instant.ofEpochMilli(b.getLong(OFF_CREATED)));
    } catch (IllegalArgumentException e) {
      // The CRC matched, so the writer itself put an impossible value there.
      throw corrupt(file, "holds an impossible value: " + e.getMessage());
    }
  }

  private static DriveRole role(byte code) {
    return switch (code) {
      case ROLE_DATA -> DriveRole.DATA;
      case ROLE_SPARE -> DriveRole.SPARE;
      default -> throw new IllegalArgumentException("role " + code);
    };
  }

  private static UUID uuid(ByteBuffer b, int offset) {
    return new UUID(b.getLong(offset), b.getLong(offset + 8));
  }

  private static String printable(byte[] bytes) {
    StringBuilder s = new StringBuilder();
    for (byte x : bytes) {
      s.append(x >= 0x20 && x < 0x7f ? String.valueOf((char) x) : String.format("\\x%02x", x));
    }
    return "'" + s + "'";
  }

  private static ArrayException corrupt(Path file, String fault) {
    return new ArrayException(ArrayError.CORRUPT_LABEL, file, "drive label " + file + " " + fault);
  }
}
