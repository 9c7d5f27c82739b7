package io.parityfs.raid.array.format;

import static io.parityfs.raid.array.format.ManifestFormat.*;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads the {@link ManifestFormat} record, version 1 or 2, back into an {@link ObjectManifest},
 * checking in this order: length at least the version field, magic, version, declared length
 * against the version, the slot count and the actual length, CRC, reserved bytes, then every
 * field's range (slot count against the protection, slots distinct and in range, tag fields not
 * negative). A version-1 record has no tag: its manifest's is {@link VersionTag#NONE}. Stateless.
 */
public final class ManifestDecoder {
  private ManifestDecoder() {}

  /**
   * The manifest in {@code bytes}, read from {@code file} (named in errors).
   *
   * @throws ArrayException CORRUPT_MANIFEST or UNSUPPORTED_VERSION, naming the file and the fault
   */
  public static ObjectManifest decode(byte[] bytes, Path file) throws ArrayException {
    if (bytes.length < OFF_RESERVED) {
      throw corrupt(file, "is truncated: " + bytes.length + " bytes, a manifest has at least "
          + fixedLength(VERSION_1));
    }
    if (!Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw corrupt(file, "is not a ParityFS object manifest: magic is "
          + printable(Arrays.copyOf(bytes, MAGIC.length)) + ", expected "
          + new String(MAGIC, StandardCharsets.US_ASCII));
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int version = Short.toUnsignedInt(b.getShort(OFF_VERSION));
    if (version != VERSION_1 && version != VERSION_2) {
      throw new ArrayException(ArrayError.UNSUPPORTED_VERSION, file,
          "object manifest " + file + " has format version " + version
              + "; this ParityFS reads versions " + VERSION_1 + " and " + VERSION_2
              + " (was it written by a newer release?)");
    }
    int declared = Short.toUnsignedInt(b.getShort(OFF_LENGTH));
    int least = fixedLength(version);
    int most = least + DrivePlacement.MAX_SLOTS;
    if (declared < least || declared > most) {
      throw corrupt(file, "declares length " + declared + ", version " + version
          + " manifests have " + least + ".." + most);
    }
    if (bytes.length != declared) {
      throw corrupt(file, (bytes.length < declared ? "is truncated: " : "has trailing bytes: ")
          + bytes.length + " bytes, its header declares " + declared);
    }
    int n = Byte.toUnsignedInt(b.get(OFF_SLOT_COUNT));
    if (ManifestFormat.length(version, n) != declared) {
      throw corrupt(file, "declares length " + declared + " but " + n + " slots, which take "
          + ManifestFormat.length(version, n) + " in version " + version);
    }
    int crcAt = declared - 4;
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, crcAt);
    int expected = (int) crc.getValue();
    int stored = b.getInt(crcAt);
    if (stored != expected) {
      throw corrupt(file, String.format(
          "fails its checksum: stored CRC32C %08x, computed %08x", stored, expected));
    }
    for (int i = OFF_RESERVED; i < OFF_OBJECT_ID; i++) {
      if (bytes[i] != 0) {
        throw corrupt(file, "has a non-zero reserved byte at offset " + i);
      }
    }
    List<Integer> slots = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      slots.add(Byte.toUnsignedInt(b.get(OFF_SLOTS + i)));
    }
    try {
      VersionTag tag = version == VERSION_1 ? VersionTag.NONE
          : new VersionTag(b.getLong(tagOffset(n)), b.getLong(tagOffset(n) + 8));
      return new ObjectManifest(
          b.getLong(OFF_OBJECT_ID),
          b.getLong(OFF_OBJECT_VERSION),
          b.getLong(OFF_OBJECT_LENGTH),
          ProtectionCode.get(b, OFF_PROTECTION),
          b.getInt(OFF_CELL_SIZE),
          slots,
          Instant.ofEpochMilli(b.getLong(OFF_CREATED)),
          tag);
    } catch (IllegalArgumentException e) {
      // The CRC matched, so the writer itself put an impossible value there.
      throw corrupt(file, "holds an impossible value: " + e.getMessage());
    }
  }

  private static String printable(byte[] bytes) {
    StringBuilder s = new StringBuilder();
    for (byte x : bytes) {
      s.append(x >= 0x20 && x < 0x7f ? String.valueOf((char) x) : String.format("\\x%02x", x));
    }
    return "'" + s + "'";
  }

  private static ArrayException corrupt(Path file, String fault) {
    return new ArrayException(ArrayError.CORRUPT_MANIFEST, file,
        "object manifest " + file + " " + fault);
  }
}
