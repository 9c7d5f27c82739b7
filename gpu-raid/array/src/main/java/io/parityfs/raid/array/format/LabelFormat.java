package io.parityfs.raid.array.format;

import java.nio.charset.StandardCharsets;

/**
 * The on-disk drive label, format version 1: a 128-byte big-endian record in the file {@value
 * #FILE_NAME} at the root of the drive directory. {@link LabelEncoder} writes it, {@link
 * LabelDecoder} reads it, {@code LabelFile} stores it crash-safely.
 *
 * <pre>
 * offset size field
 *      0    8 magic          "PFSLABEL" (50 46 53 4c 41 42 45 4c)
 *      8    2 version        1
 *     10    2 length         128, the whole record including the CRC
 *     12    4 reserved       0
 *     16   16 array id       UUID, most significant long first
 *     32   16 drive id       UUID, most significant long first
 *     48    8 generation     >= 1, bumped on every membership change
 *     56    8 failed slots   bit i set: slot i held no trusted data at this generation
 *     64    8 created        array creation time, milliseconds since the epoch (UTC)
 *     72    8 max object     largest object, bytes
 *     80    4 cell size      bytes, a power of two, 4 KiB..16 MiB
 *     84    1 protection     1 raid5, 2 raid6, 3 rs (Cauchy), 4 mirror
 *     85    1 k              data shards; for mirror: the copy count
 *     86    1 m              parity shards; for mirror: 0
 *     87    1 slot count     drives in the array, data and spares, 1..64
 *     88    1 spares         hot spares at creation
 *     89    1 slot           this drive's slot, 0..slot count - 1
 *     90    1 role           0 data, 1 spare
 *     91    5 reserved       0
 *     96    8 rebuilding     bit i set: the drive in slot i is being rebuilt (never a failed slot)
 *    104   20 reserved       0
 *    124    4 CRC32C         over bytes 0..123
 * </pre>
 *
 * <p>Example (the golden file {@code drive-label-v1.bin} in the tests): array
 * 00112233-4455-6677-8899-aabbccddeeff, drive 01234567-89ab-cdef-fedc-ba9876543210, rs:10+4,
 * 64 KiB cells, 64 MiB objects, 1 spare, 15 slots, this drive in slot 3 (data), generation 7,
 * slot 5 failed, no slot rebuilding, created 2025-01-02T03:04:05.678Z:
 *
 * <pre>
 * 0000  50 46 53 4c 41 42 45 4c  00 01 00 80 00 00 00 00  PFSLABEL........
 * 0010  00 11 22 33 44 55 66 77  88 99 aa bb cc dd ee ff  .."3DUfw........
 * 0020  01 23 45 67 89 ab cd ef  fe dc ba 98 76 54 32 10  .#Eg........vT2.
 * 0030  00 00 00 00 00 00 00 07  00 00 00 00 00 00 00 20  ...............
 * 0040  00 00 01 94 24 f8 63 2e  00 00 00 00 04 00 00 00  ....$.c.........
 * 0050  00 01 00 00 03 0a 04 0f  01 03 00 00 00 00 00 00  ................
 * 0060  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  ................
 * 0070  00 00 00 00 00 00 00 00  00 00 00 00 f7 90 86 d6  ................
 * </pre>
 *
 * <p>The rebuilding set (bytes 96..103) came in before the first release, within version 1 (its
 * bytes were reserved, so zero: no slot rebuilding); a label with slot 2 rebuilding has {@code
 * 00 00 00 00 00 00 00 04} there.
 *
 * <p>A reader refuses a label whose magic, version, length or CRC is wrong, or whose reserved
 * bytes are not zero; a later version may use them, and will bump the version.
 */
public final class LabelFormat {
  private LabelFormat() {}

  /** The label file at the root of each drive directory. */
  public static final String FILE_NAME = "parityfs.label";
  /** Where a new label is written before it is renamed over {@link #FILE_NAME}. */
  public static final String TEMP_NAME = FILE_NAME + ".tmp";

  static final byte[] MAGIC = "PFSLABEL".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  public static final int LENGTH = 128;

  static final int OFF_VERSION = 8;
  static final int OFF_LENGTH = 10;
  static final int OFF_ARRAY_ID = 16;
  static final int OFF_DRIVE_ID = 32;
  static final int OFF_GENERATION = 48;
  static final int OFF_FAILED_SLOTS = 56;
  static final int OFF_CREATED = 64;
  static final int OFF_MAX_OBJECT = 72;
  static final int OFF_CELL_SIZE = 80;
  static final int OFF_KIND = 84;
  static final int OFF_K = 85;
  static final int OFF_M = 86;
  static final int OFF_SLOT_COUNT = 87;
  static final int OFF_SPARES = 88;
  static final int OFF_SLOT = 89;
  static final int OFF_ROLE = 90;
  static final int OFF_RESERVED = 91;
  static final int OFF_REBUILDING_SLOTS = 96;
  static final int OFF_RESERVED_2 = 104;
  static final int OFF_CRC = 124;


  static final byte ROLE_DATA = 0;
  static final byte ROLE_SPARE = 1;
}
