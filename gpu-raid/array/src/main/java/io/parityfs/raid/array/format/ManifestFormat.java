package io.parityfs.raid.array.format;

import java.nio.charset.StandardCharsets;

/**
 * The on-disk object manifest, format version 1: the commit point of one object version. It is
 * written, after every shard of the version is published, on each drive of the version's
 * placement, under the name {@code ObjectFiles.manifest}; a version exists once its manifest is
 * durable. {@link ManifestEncoder} writes it, {@link ManifestDecoder} reads it, {@code
 * ManifestFile} stores it crash-safely.
 *
 * <p>A big-endian record of {@code 60 + n} bytes, where n is the object's width (k + m, or the
 * copy count for a mirror):
 *
 * <pre>
 * offset size field
 *      0    8 magic          "PFSMANIF" (50 46 53 4d 41 4e 49 46)
 *      8    2 version        1
 *     10    2 length         60 + n, the whole record including the CRC
 *     12    4 reserved       0
 *     16    8 object id
 *     24    8 object version >= 0
 *     32    8 created        milliseconds since the epoch (UTC)
 *     40    8 object length  logical bytes, >= 0
 *     48    4 cell size      bytes, a power of two, 4 KiB..16 MiB
 *     52    1 protection     1 raid5, 2 raid6, 3 rs (Cauchy), 4 mirror ({@link ProtectionCode})
 *     53    1 k              data shards; for mirror: the copy count
 *     54    1 m              parity shards; for mirror: 0
 *     55    1 slot count     n, must equal k + m (mirror: the copy count)
 *     56    n slots          the array slot holding shard i, in shard order (0..k-1 data,
 *                            k..k+m-1 parity; mirror: copy i); distinct, each 0..63
 *   56+n    4 CRC32C         over bytes 0..55+n
 * </pre>
 *
 * <p>Example (the golden file {@code manifest-v1.bin} in the tests): object 0x0123456789abcdef
 * version 42, raid6:4+2, 64 KiB cells, 300000 bytes, shards 0..5 on slots 3, 7, 0, 12, 5, 9,
 * created 2025-01-02T03:04:05.678Z; 66 bytes:
 *
 * <pre>
 * 0000  50 46 53 4d 41 4e 49 46  00 01 00 42 00 00 00 00  PFSMANIF...B....
 * 0010  01 23 45 67 89 ab cd ef  00 00 00 00 00 00 00 2a  .#Eg...........*
 * 0020  00 00 01 94 24 f8 63 2e  00 00 00 00 00 04 93 e0  ....$.c.........
 * 0030  00 01 00 00 02 04 02 06  03 07 00 0c 05 09 3b f5  ..............;.
 * 0040  b8 ee                                             ..
 * </pre>
 *
 * <p>The slot count is stored although the protection implies it, so that the declared length,
 * the slot count and the protection are checked against each other before anything is trusted.
 * A reader refuses a manifest whose magic, version, length or CRC is wrong, whose reserved bytes
 * are not zero, or whose fields are impossible (a slot out of range or used twice, a slot count
 * that is not the width).
 */
public final class ManifestFormat {
  private ManifestFormat() {}

  static final byte[] MAGIC = "PFSMANIF".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;

  static final int OFF_VERSION = 8;
  static final int OFF_LENGTH = 10;
  static final int OFF_RESERVED = 12;
  static final int OFF_OBJECT_ID = 16;
  static final int OFF_OBJECT_VERSION = 24;
  static final int OFF_CREATED = 32;
  static final int OFF_OBJECT_LENGTH = 40;
  static final int OFF_CELL_SIZE = 48;
  static final int OFF_PROTECTION = 52;
  static final int OFF_SLOT_COUNT = 55;
  static final int OFF_SLOTS = 56;
  /** Bytes besides the slots: the fixed fields and the CRC. */
  static final int FIXED_LENGTH = OFF_SLOTS + 4;
  /** The largest manifest: 64 slots. */
  public static final int MAX_LENGTH = FIXED_LENGTH + DrivePlacement.MAX_SLOTS;

  /** The record's length for an object {@code width} shards wide. */
  static int length(int width) {
    return FIXED_LENGTH + width;
  }
}
