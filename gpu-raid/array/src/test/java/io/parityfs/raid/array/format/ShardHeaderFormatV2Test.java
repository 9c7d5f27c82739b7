package io.parityfs.raid.array.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Shard header format version 2: format 1 with a {@link VersionTag} at 68..83. */
class ShardHeaderFormatV2Test {
  static final VersionTag TAG = new VersionTag(7, 1234);

  /** The v1 golden header, tagged. */
  static ShardHeader golden() {
    ShardHeader h = ShardHeaderFormatTest.golden();
    return ShardHeader.of(h.objectId(), h.objectVersion(), h.shardIndex(), h.layout(),
        h.created(), TAG);
  }

  static byte[] goldenBytes() throws IOException {
    try (InputStream in =
        ShardHeaderFormatV2Test.class.getResourceAsStream("shard-header-v2.bin")) {
      if (in == null) {
        throw new IOException("golden file shard-header-v2.bin missing from the test resources");
      }
      return in.readAllBytes();
    }
  }

  private static ByteBuffer reseal(byte[] b) {
    CRC32C crc = new CRC32C();
    crc.update(b, 0, 4092);
    ByteBuffer buf = ByteBuffer.wrap(b);
    buf.putInt(4092, (int) crc.getValue());
    return buf;
  }

  @Test
  void encoderMatchesTheGoldenFileByteForByte() throws IOException {
    assertArrayEquals(goldenBytes(), ShardHeaderEncoder.encode(golden()),
        "the shard format changed: bump the version instead of editing version 2");
  }

  @Test
  void goldenIsVersion1WithTheTagInItsFirstReservedBytes() throws IOException {
    byte[] v1 = ShardHeaderFormatTest.goldenBytes();
    byte[] v2 = goldenBytes();
    ByteBuffer b = ByteBuffer.wrap(v2);
    assertEquals(4096, v2.length);
    assertEquals(2, b.getShort(8));
    assertEquals(7, b.getLong(68));
    assertEquals(1234, b.getLong(76));
    assertEquals(0xbd340cd7, b.getInt(4092), "as in the Javadoc");
    for (int i = 0; i < 4092; i++) {
      if (i != 9 && (i < 68 || i >= 84)) {
        assertEquals(v1[i], v2[i], "byte " + i);
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(v2, 0, 4092);
    assertEquals((int) crc.getValue(), b.getInt(4092));
  }

  @Test
  void goldenFileDecodesToTheTaggedHeader() throws IOException {
    ShardHeader h = ShardHeaderDecoder.decode(ByteBuffer.wrap(goldenBytes()),
        ShardHeaderFormatTest.FILE);
    assertEquals(golden(), h);
    assertEquals(TAG, h.tag());
  }

  @Test
  void anUntaggedHeaderIsStillWrittenAsVersion1() throws IOException {
    assertEquals(VersionTag.NONE, ShardHeaderFormatTest.golden().tag());
    assertArrayEquals(ShardHeaderFormatTest.goldenBytes(),
        ShardHeaderEncoder.encode(ShardHeaderFormatTest.golden()));
    assertEquals(VersionTag.NONE, ShardHeaderDecoder.decode(
        ByteBuffer.wrap(ShardHeaderFormatTest.goldenBytes()), ShardHeaderFormatTest.FILE).tag());
  }

  @Test
  void taggedHeadersRoundTrip() throws ArrayException {
    ObjectLayout layout = new ObjectLayout(Protection.parse("rs:6+3"), 1 << 20, 12_345_678);
    for (VersionTag tag : new VersionTag[] {new VersionTag(1, 0), new VersionTag(0, 1),
        new VersionTag(Long.MAX_VALUE, Long.MAX_VALUE), new VersionTag(3, 0x0102030405060708L)}) {
      for (int shard = 0; shard < layout.shards(); shard++) {
        ShardHeader h = ShardHeader.of(5, 6, shard, layout, ManifestFormatTest.CREATED, tag);
        byte[] bytes = ShardHeaderEncoder.encode(h);
        assertEquals(2, ByteBuffer.wrap(bytes).getShort(8));
        assertEquals(h, ShardHeaderDecoder.decode(ByteBuffer.wrap(bytes),
            ShardHeaderFormatTest.FILE));
      }
    }
  }

  @Test
  void everySingleByteCorruptionOfTheHeaderBlockIsDetected() throws IOException {
    byte[] g = goldenBytes();
    for (int i = 0; i < g.length; i++) {
      for (int flip : new int[] {0x01, 0x80, 0xff}) {
        byte[] bad = g.clone();
        bad[i] ^= (byte) flip;
        int at = i;
        ArrayException e = assertThrows(ArrayException.class,
            () -> ShardHeaderDecoder.decode(ByteBuffer.wrap(bad), ShardHeaderFormatTest.FILE),
            () -> "corruption at byte " + at + " went unnoticed");
        if (i != 8 && i != 9) {
          assertEquals(ArrayError.CORRUPT_SHARD, e.error(), e.getMessage());
        }
        assertEquals(ShardHeaderFormatTest.FILE, e.path());
      }
    }
  }

  @Test
  void negativeTagFieldsUnderAValidCrcAreImpossibleValues() throws IOException {
    for (int at : new int[] {68, 76}) {
      byte[] b = goldenBytes();
      ByteBuffer.wrap(b).putLong(at, -1);
      ArrayException e = assertThrows(ArrayException.class,
          () -> ShardHeaderDecoder.decode(reseal(b), ShardHeaderFormatTest.FILE));
      assertEquals(ArrayError.CORRUPT_SHARD, e.error());
      assertTrue(e.getMessage().contains("impossible value"), e.getMessage());
      assertTrue(e.getMessage().contains(at == 68 ? "generation (-1)" : "sequence (-1)"),
          e.getMessage());
    }
  }

  @Test
  void reservedBytesAreCheckedPerVersion() throws IOException {
    byte[] afterTag = goldenBytes();
    afterTag[84] = 1;
    ArrayException e = assertThrows(ArrayException.class,
        () -> ShardHeaderDecoder.decode(reseal(afterTag), ShardHeaderFormatTest.FILE));
    assertTrue(e.getMessage().contains("reserved header byte at offset 84"), e.getMessage());

    byte[] taggedV1 = goldenBytes(); // the tag bytes are reserved in version 1
    taggedV1[9] = 1;
    e = assertThrows(ArrayException.class,
        () -> ShardHeaderDecoder.decode(reseal(taggedV1), ShardHeaderFormatTest.FILE));
    assertEquals(ArrayError.CORRUPT_SHARD, e.error());
    assertTrue(e.getMessage().contains("reserved header byte at offset 75"), e.getMessage());
  }

  @Test
  void headerRefusesANullTag() {
    ShardHeader h = ShardHeaderFormatTest.golden();
    assertThrows(IllegalArgumentException.class, () -> new ShardHeader(h.objectId(),
        h.objectVersion(), h.shardIndex(), h.protection(), h.cellSize(), h.cellCount(),
        h.objectLength(), h.dataLength(), h.created(), null));
    assertEquals(h, new ShardHeader(h.objectId(), h.objectVersion(), h.shardIndex(),
        h.protection(), h.cellSize(), h.cellCount(), h.objectLength(), h.dataLength(),
        h.created()), "the 9-argument constructor means no tag");
  }
}
