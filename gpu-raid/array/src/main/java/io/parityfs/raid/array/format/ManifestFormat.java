package io.parityfs.raid.array.format;

import java.nio.charset.StandardCharsets;

/**
 * The on-disk object manifest: the commit point of one object version. It is written, after
 * every shard of the version is published, on each drive of the version's placement, under the
 * name {@code ObjectFiles.manifest}; a version exists once its manifest is durable. {@link
 * ManifestEncoder} writes it, {@link ManifestDecoder} reads it, {@code ManifestFile} stores it
 * crash-safely.
 *
 * <p>Two format versions, both read: version 1, for a version without a {@link VersionTag} (the
 * encoder writes it whenever the tag is {@link VersionTag#NONE}, so untagged manifests are what
 * every release wrote), and version 2, which is version 1 with the tag after the slots. A
 * big-endian record of {@code 60 + n} bytes (version 1) or {@code 76 + n} bytes (version 2),
 * where n is the object's width (k + m, or the copy count for a mirror):
 *
 * <pre>
 * offset size field
 *      0    8 magic          "PFSMANIF" (50 46 53 4d 41 4e 49 46)
 *      8    2 version        1, or 2 with a tag
 *     10    2 length         60 + n (version 1) or 76 + n (version 2), the whole record
 *                            including the CRC
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
 * version 1:
 *   56+n    4 CRC32C         over bytes 0..55+n
 * version 2:
 *   56+n    8 tag generation {@link VersionTag#generation()}, >= 0 as a signed long
 *   64+n    8 tag sequence   {@link VersionTag#sequence()}, >= 0 as a signed long
 *   72+n    4 CRC32C         over bytes 0..71+n
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
 * <p>The same version tagged (generation 7, sequence 1234), version 2 (the golden file {@code
 * manifest-v2.bin}); 82 bytes:
 *
 * <pre>
 * 0000  50 46 53 4d 41 4e 49 46  00 02 00 52 00 00 00 00  PFSMANIF...R....
 * 0010  01 23 45 67 89 ab cd ef  00 00 00 00 00 00 00 2a  .#Eg...........*
 * 0020  00 00 01 94 24 f8 63 2e  00 00 00 00 00 04 93 e0  ....$.c.........
 * 0030  00 01 00 00 02 04 02 06  03 07 00 0c 05 09 00 00  ................
 * 0040  00 00 00 00 00 07 00 00  00 00 00 00 04 d2 c4 c5  ................
 * 0050  a3 31                                            .1
 * </pre>
 *
 * <p>The slot count is stored although the protection implies it, so that the declared length,
 * the slot count and the protection are checked against each other before anything is trusted.
 * A reader refuses a manifest whose magic, version, length or CRC is wrong, whose reserved bytes
 * are not zero, or whose fields are impossible (a slot out of range or used twice, a slot count
 * that is not the width, a negative tag field). The tag is opaque: the array stores it and gives
 * it back, and never reads it for itself.
 */
public final class ManifestFormat {
  private ManifestFormat() {}

  static final byte[] MAGIC = "PFSMANIF".getBytes(StandardCharsets.US_ASCII);
  /** The format without a tag: what the encoder writes for {@link VersionTag#NONE}. */
  static final int VERSION_1 = 1;
  /** Version 1 plus the tag after the slots. */
  static final int VERSION_2 = 2;

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
  /** Bytes of the tag (version 2), after the slots: generation, then sequence. */
  static final int TAG_LENGTH = 16;
  /** The largest manifest: version 2 with 64 slots. */
  public static final int MAX_LENGTH = fixedLength(VERSION_2) + DrivePlacement.MAX_SLOTS;

  /** Bytes besides the slots in format {@code version} (1 or 2): the fixed fields and the CRC. */
  static int fixedLength(int version) {
    return OFF_SLOTS + (version == VERSION_2 ? TAG_LENGTH : 0) + 4;
  }

  /** The record's length in format {@code version} (1 or 2) for an object {@code width} wide. */
  static int length(int version, int width) {
    return fixedLength(version) + width;
  }

  /** Offset of the tag's generation in a version-2 record with {@code width} slots. */
  static int tagOffset(int width) {
    return OFF_SLOTS + width;
  }
}
