package io.parityfs.raid.array.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class ShardHeaderFormatTest {
  static final Path FILE = Path.of("drive3/objects/42.shard0");

  static ShardHeader golden() {
    ObjectLayout layout = new ObjectLayout(Protection.parity(CodecGeometry.raid6(4)), 64 << 10,
        300_000);
    return ShardHeader.of(0x0123456789abcdefL, 42, 0, layout,
        Instant.parse("2025-01-02T03:04:05.678Z"));
  }

  static byte[] goldenBytes() throws IOException {
    try (InputStream in = ShardHeaderFormatTest.class.getResourceAsStream("shard-header-v1.bin")) {
      if (in == null) {
        throw new IOException("golden file shard-header-v1.bin missing from the test resources");
      }
      return in.readAllBytes();
    }
  }

  @Test
  void encoderMatchesTheGoldenFileByteForByte() throws IOException {
    assertArrayEquals(goldenBytes(), ShardHeaderEncoder.encode(golden()),
        "the shard format changed: bump ShardFormat.VERSION instead of editing version 1");
  }

  @Test
  void goldenFileDecodesToTheGoldenHeader() throws IOException {
    ShardHeader h = ShardHeaderDecoder.decode(ByteBuffer.wrap(goldenBytes()), FILE);
    assertEquals(golden(), h);
    assertEquals(2, h.cellCount());
    assertEquals(103_392, h.dataLength());
    assertEquals(4096 + 2 * 65536 + 4096, h.fileLength());
  }

  @Test
  void goldenFieldsSitWhereTheLayoutSays() throws IOException {
    ByteBuffer b = ByteBuffer.wrap(goldenBytes());
    assertEquals(4096, b.capacity());
    assertEquals(1, b.getShort(8));
    assertEquals(4096, b.getShort(10));
    assertEquals(0x0123456789abcdefL, b.getLong(16));
    assertEquals(42, b.getLong(24));
    assertEquals(Instant.parse("2025-01-02T03:04:05.678Z").toEpochMilli(), b.getLong(32));
    assertEquals(300_000, b.getLong(40));
    assertEquals(103_392, b.getLong(48));
    assertEquals(65536, b.getInt(56));
    assertEquals(2, b.getInt(60));
    assertArrayEquals(new byte[] {2, 4, 2, 0}, Arrays.copyOfRange(b.array(), 64, 68));
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, 4092);
    assertEquals((int) crc.getValue(), b.getInt(4092));
  }

  @Test
  void everyProtectionShardAndExtremeRoundTrips() throws ArrayException {
    for (Protection p : new Protection[] {Protection.parse("raid5:4+1"),
        Protection.parse("raid6:14+2"), Protection.parse("rs:32+32"), Protection.mirror(2),
        Protection.mirror(4)}) {
      for (long length : new long[] {0, 1, 4096, 12345678, 1L << 40}) {
        ObjectLayout layout = new ObjectLayout(p, 16 << 20, length);
        for (int shard = 0; shard < p.width(); shard++) {
          ShardHeader h = ShardHeader.of(-1L, Long.MAX_VALUE, shard, layout,
              Instant.ofEpochMilli(-5));
          byte[] bytes = ShardHeaderEncoder.encode(h);
          assertEquals(h, ShardHeaderDecoder.decode(ByteBuffer.wrap(bytes), FILE));
        }
      }
    }
  }

  @Test
  void decodesFromADirectBufferWithoutMovingIt() throws IOException {
    byte[] g = goldenBytes();
    ByteBuffer direct = ByteBuffer.allocateDirect(g.length + 10);
    direct.position(10);
    direct.put(g).position(10);
    assertEquals(golden(), ShardHeaderDecoder.decode(direct, FILE));
    assertEquals(10, direct.position());
    assertEquals(g.length + 10, direct.limit());
  }

  @Test
  void everySingleByteCorruptionOfTheHeaderBlockIsDetected() throws IOException {
    byte[] g = goldenBytes();
    for (int i = 0; i < g.length; i++) {
      for (int flip : new int[] {0x01, 0x80, 0xff}) {
        byte[] bad = g.clone();
        bad[i] ^= (byte) flip;
        final int at = i;
        ArrayException e = assertThrows(ArrayException.class,
            () -> ShardHeaderDecoder.decode(ByteBuffer.wrap(bad), FILE),
            () -> "corruption at byte " + at + " went unnoticed");
        if (i == 8) { // the high byte of the version: 257 or more
          assertEquals(ArrayError.UNSUPPORTED_VERSION, e.error(), e.getMessage());
        } else if (i != 8 && i != 9) {
          assertEquals(ArrayError.CORRUPT_SHARD, e.error(), e.getMessage());
        }
        assertTrue(e.getMessage().contains(FILE.toString()), e.getMessage());
        assertEquals(FILE, e.path());
      }
    }
  }

  @Test
  void truncatedOrOverlongHeadersAreCorrupt() throws IOException {
    byte[] g = goldenBytes();
    for (int n : new int[] {0, 7, 15, 16, 100, 4091, 4095, 4097, 8192}) {
      byte[] b = Arrays.copyOf(g, n);
      ArrayException e = assertThrows(ArrayException.class,
          () -> ShardHeaderDecoder.decode(ByteBuffer.wrap(b), FILE), "length " + n);
      assertEquals(ArrayError.CORRUPT_SHARD, e.error());
      assertTrue(e.getMessage().contains(n < 4096 ? "truncated" : "trailing"), e.getMessage());
    }
  }

  @Test
  void wrongMagicAndNewerVersionAreNamed() throws IOException {
    byte[] label = new byte[4096];
    System.arraycopy("PFSLABEL".getBytes(), 0, label, 0, 8);
    ArrayException magic = assertThrows(ArrayException.class,
        () -> ShardHeaderDecoder.decode(ByteBuffer.wrap(label), FILE));
    assertEquals(ArrayError.CORRUPT_SHARD, magic.error());
    assertTrue(magic.getMessage().contains("'PFSLABEL'"), magic.getMessage());

    byte[] v3 = goldenBytes();
    v3[9] = 3;
    ArrayException version = assertThrows(ArrayException.class,
        () -> ShardHeaderDecoder.decode(ByteBuffer.wrap(v3), FILE));
    assertEquals(ArrayError.UNSUPPORTED_VERSION, version.error());
    assertTrue(version.getMessage().contains("format version 3; this ParityFS reads versions 1"
        + " and 2"), version.getMessage());
  }

  @Test
  void aValidCrcOverInconsistentFieldsIsStillCorrupt() throws IOException {
    // The writer itself was wrong: cell count 3 where the layout says 2; CRC recomputed.
    ByteBuffer b = ByteBuffer.wrap(goldenBytes());
    b.putInt(60, 3);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, 4092);
    b.putInt(4092, (int) crc.getValue());
    ArrayException e = assertThrows(ArrayException.class,
        () -> ShardHeaderDecoder.decode(b, FILE));
    assertEquals(ArrayError.CORRUPT_SHARD, e.error());
    assertTrue(e.getMessage().contains("cell count (3) must be 2"), e.getMessage());
  }

  @Test
  void headerRefusesInconsistentValuesAtConstruction() {
    Protection p = Protection.parse("raid5:2+1");
    Instant t = Instant.EPOCH;
    assertThrows(IllegalArgumentException.class,
        () -> new ShardHeader(1, 1, 3, p, 4096, 1, 100, 100, t)); // shard 3 of 3
    assertThrows(IllegalArgumentException.class,
        () -> new ShardHeader(1, 1, 1, p, 4096, 1, 100, 100, t)); // shard 1 holds 0 bytes
    assertThrows(IllegalArgumentException.class,
        () -> new ShardHeader(1, 1, 0, p, 2048, 1, 100, 100, t)); // cell below 4 KiB
    assertThrows(IllegalArgumentException.class,
        () -> new ShardHeader(1, -1, 0, p, 4096, 1, 100, 100, t));
    assertEquals(0, new ShardHeader(1, 1, 1, p, 4096, 1, 100, 0, t).dataLength());
    assertEquals(100, new ShardHeader(1, 1, 2, p, 4096, 1, 100, 100, t).dataLength());
  }

  @Test
  void fileRegionsAreBlockAligned() {
    for (int cells : new int[] {0, 1, 1023, 1024, 1025, 5000}) {
      for (int cellSize : new int[] {4096, 65536}) {
        assertEquals(0, ShardFormat.tableOffset(cellSize, cells) % 4096);
        assertEquals(0, ShardFormat.fileLength(cellSize, cells) % 4096);
        assertEquals(4096 + (long) cells * cellSize + ((cells + 1023) / 1024) * 4096L,
            ShardFormat.fileLength(cellSize, cells));
        for (int c = 0; c < cells; c += 511) {
          assertEquals(0, ShardFormat.cellOffset(cellSize, c) % 4096);
          long entry = ShardFormat.tableOffset(cellSize, cells) + 4L * c;
          long block = ShardFormat.tableEntryOffset(cellSize, cells, c);
          assertTrue(block <= entry && entry + 4 <= block + 4096, "cell " + c);
        }
      }
    }
    assertEquals(4096, ShardFormat.fileLength(65536, 0), "an empty object's shard is a header");
  }
}
