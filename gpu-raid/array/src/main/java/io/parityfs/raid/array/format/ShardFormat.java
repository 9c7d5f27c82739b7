package io.parityfs.raid.array.format;

import java.nio.charset.StandardCharsets;

/**
 * The on-disk shard file, format version 1 or 2: one shard (data, parity or mirror copy) of one
 * object version. {@link ShardHeaderEncoder} and {@link ShardHeaderDecoder} write and read the
 * header, {@link CellChecksums} the CRC table, {@link ObjectLayout} says which object bytes the
 * cells hold.
 *
 * <p>Every region starts and ends on a {@value #BLOCK}-byte boundary, so every cell can be read
 * or written with O_DIRECT:
 *
 * <pre>
 * file offset                     size                  region
 *   0                             4096                  header block (below)
 *   4096 + i * cellSize           cellSize              cell i, i = 0..cells-1; the last data
 *                                                       bytes are followed by zeros to a full cell
 *   4096 + cells * cellSize       tableBlocks * 4096    CRC table: entry i = CRC32C of cell i,
 *                                                       4 bytes big-endian; zeros after the last
 *   tableBlocks = ceil(cells * 4 / 4096); the file is 4096 + cells * cellSize + tableBlocks * 4096
 * </pre>
 *
 * <p>The header block, big-endian. Version 2 is version 1 with the version's {@link VersionTag}
 * in the first 16 reserved bytes; the encoder writes version 1 when the tag is {@link
 * VersionTag#NONE} (byte for byte what releases before the tag wrote), version 2 otherwise:
 *
 * <pre>
 * offset size field
 *      0    8 magic          "PFSSHARD" (50 46 53 53 48 41 52 44)
 *      8    2 version        1, or 2 with a tag
 *     10    2 length         4096, the whole header block including the CRC
 *     12    4 reserved       0
 *     16    8 object id
 *     24    8 object version >= 0
 *     32    8 created        milliseconds since the epoch (UTC)
 *     40    8 object length  logical bytes of the object, >= 0
 *     48    8 data length    bytes of this shard before its zero padding (see
 *                            {@link ObjectLayout#shardDataLength})
 *     56    4 cell size      bytes, a power of two, 4 KiB..16 MiB
 *     60    4 cell count     cells in this shard = the object's stripes
 *     64    1 protection     1 raid5, 2 raid6, 3 rs (Cauchy), 4 mirror (as in the drive label)
 *     65    1 k              data shards; for mirror: the copy count
 *     66    1 m              parity shards; for mirror: 0
 *     67    1 shard index    0..k-1 data, k..k+m-1 parity; for mirror: the copy
 * version 1:
 *     68 4024 reserved       0
 * version 2:
 *     68    8 tag generation {@link VersionTag#generation()}, >= 0 as a signed long
 *     76    8 tag sequence   {@link VersionTag#sequence()}, >= 0 as a signed long
 *     84 4008 reserved       0
 * both:
 *   4092    4 CRC32C         over bytes 0..4091
 * </pre>
 *
 * <p>Example (the golden file {@code shard-header-v1.bin} in the tests): object
 * 0x0123456789abcdef version 42, raid6:4+2, 64 KiB cells, 300000 bytes (one full stripe of
 * 262144 bytes and 37856 more, so 2 cells per shard), shard 0 (65536 + 37856 = 103392 data
 * bytes), created 2025-01-02T03:04:05.678Z; the file is 4096 + 2 * 65536 + 4096 = 139264 bytes:
 *
 * <pre>
 * 0000  50 46 53 53 48 41 52 44  00 01 10 00 00 00 00 00  PFSSHARD........
 * 0010  01 23 45 67 89 ab cd ef  00 00 00 00 00 00 00 2a  .#Eg...........*
 * 0020  00 00 01 94 24 f8 63 2e  00 00 00 00 00 04 93 e0  ....$.c.........
 * 0030  00 00 00 00 00 01 93 e0  00 01 00 00 00 00 00 02  ................
 * 0040  02 04 02 00 00 00 00 00  00 00 00 00 00 00 00 00  ................
 *  ...   (zeros)
 * 0ff0  00 00 00 00 00 00 00 00  00 00 00 00 e7 91 f2 04  ................
 * </pre>
 *
 * <p>The same header tagged (generation 7, sequence 1234) is version 2 (the golden file {@code
 * shard-header-v2.bin}): bytes 8..9 are {@code 00 02}, the tag is at 68..83, the CRC changes:
 *
 * <pre>
 * 0000  50 46 53 53 48 41 52 44  00 02 10 00 00 00 00 00  PFSSHARD........
 *  ...   (as above)
 * 0040  02 04 02 00 00 00 00 00  00 00 00 07 00 00 00 00  ................
 * 0050  00 00 04 d2 00 00 00 00  00 00 00 00 00 00 00 00  ................
 *  ...   (zeros)
 * 0ff0  00 00 00 00 00 00 00 00  00 00 00 00 bd 34 0c d7  .............4..
 * </pre>
 *
 * <p>Why the CRC table follows the cells rather than the header: a streaming write does not know
 * the object's length until it ends, yet cell i's offset must be fixed from the start; with the
 * table at the end, cells are written as they arrive, then the table, then the header (it holds
 * the lengths), then fsync. Reading and checking one cell costs the cell plus the one table block
 * holding its entry ({@link #tableEntryOffset}), the same as a table before the cells. The table is
 * sized by the shard's real cell count, not the array's maximum, so a small object's shard stays
 * small. A corrupt table entry makes a good cell look bad: the read reconstructs it from the other
 * shards and the repair rewrites the cell and its entry, so no wrong data is returned.
 *
 * <p>The tag is in the header only so that a manifest rebuilt from the headers ({@code
 * ManifestRecovery}) keeps it; the manifest's tag is the version's, and reads do not compare the
 * two. A reader refuses a header whose magic, version, length or CRC is wrong, whose reserved
 * bytes are not zero, or whose fields are impossible (a negative tag field among them) or disagree
 * with each other.
 */
public final class ShardFormat {
  private ShardFormat() {}

  /** The alignment unit: O_DIRECT's block, and the size of the header and each table block. */
  public static final int BLOCK = 4096;

  static final byte[] MAGIC = "PFSSHARD".getBytes(StandardCharsets.US_ASCII);
  /** The format without a tag: what the encoder writes for {@link VersionTag#NONE}. */
  static final int VERSION_1 = 1;
  /** Version 1 with the tag in the first reserved bytes. */
  static final int VERSION_2 = 2;
  public static final int HEADER_LENGTH = BLOCK;
  /** CRC table entries per table block. */
  public static final int ENTRIES_PER_BLOCK = BLOCK / 4;

  static final int OFF_VERSION = 8;
  static final int OFF_LENGTH = 10;
  static final int OFF_OBJECT_ID = 16;
  static final int OFF_OBJECT_VERSION = 24;
  static final int OFF_CREATED = 32;
  public static final int OFF_OBJECT_LENGTH = 40;
  static final int OFF_DATA_LENGTH = 48;
  static final int OFF_CELL_SIZE = 56;
  static final int OFF_CELL_COUNT = 60;
  static final int OFF_KIND = 64;
  static final int OFF_K = 65;
  static final int OFF_M = 66;
  static final int OFF_SHARD = 67;
  /** Version 2: the tag's generation, then its sequence at {@code OFF_TAG + 8}. */
  static final int OFF_TAG = 68;
  /** Where the reserved bytes start in version 1; version 2's start after the tag. */
  static final int OFF_RESERVED = 68;
  static final int OFF_RESERVED_V2 = OFF_TAG + 16;
  static final int OFF_CRC = HEADER_LENGTH - 4;

  /** File offset of cell {@code cell}. */
  public static long cellOffset(int cellSize, int cell) {
    return HEADER_LENGTH + (long) cell * cellSize;
  }

  /** Blocks of CRC table for {@code cells} cells. */
  public static int tableBlocks(int cells) {
    return (int) (((long) cells + ENTRIES_PER_BLOCK - 1) / ENTRIES_PER_BLOCK);
  }

  /** File offset of the CRC table of a shard with {@code cells} cells. */
  public static long tableOffset(int cellSize, int cells) {
    return cellOffset(cellSize, cells);
  }

  /**
   * File offset of the table block that holds cell {@code cell}'s CRC; the entry is at
   * {@code 4 * (cell % ENTRIES_PER_BLOCK)} within it.
   */
  public static long tableEntryOffset(int cellSize, int cells, int cell) {
    return tableOffset(cellSize, cells) + (long) (cell / ENTRIES_PER_BLOCK) * BLOCK;
  }

  /** Length of a shard file with {@code cells} cells. */
  public static long fileLength(int cellSize, int cells) {
    return tableOffset(cellSize, cells) + (long) tableBlocks(cells) * BLOCK;
  }
}
