package io.parityfs.raid.array.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

public class ManifestFormatTest {
  static final Path FILE = Path.of("drive3/0123456789abcdef.000000000000002a.manifest");
  public static final Instant CREATED = Instant.parse("2025-01-02T03:04:05.678Z");

  public static ObjectManifest golden() {
    ObjectLayout layout =
        new ObjectLayout(Protection.parity(CodecGeometry.raid6(4)), 64 << 10, 300_000);
    return ObjectManifest.of(0x0123456789abcdefL, 42, layout, new int[] {3, 7, 0, 12, 5, 9},
        CREATED);
  }

  public static byte[] goldenBytes() throws IOException {
    try (InputStream in = ManifestFormatTest.class.getResourceAsStream("manifest-v1.bin")) {
      if (in == null) {
        throw new IOException("golden file manifest-v1.bin missing from the test resources");
      }
      return in.readAllBytes();
    }
  }

  /** CRC32C (Castagnoli, reflected 0x82F63B78) bit by bit: independent of java.util.zip. */
  static int referenceCrc32c(byte[] data, int length) {
    int crc = 0xffffffff;
    for (int i = 0; i < length; i++) {
      crc ^= data[i] & 0xff;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x82F63B78 : crc >>> 1;
      }
    }
    return ~crc;
  }

  /** The golden record assembled field by field from the layout table, not from the encoder. */
  static byte[] handAssembled() {
    ByteBuffer b = ByteBuffer.allocate(66);
    b.put("PFSMANIF".getBytes(StandardCharsets.US_ASCII)); //  0 magic
    b.putShort((short) 1); //                                    8 version
    b.putShort((short) 66); //                                  10 length = 60 + 6 slots
    b.putInt(0); //                                             12 reserved
    b.putLong(0x0123456789abcdefL); //                          16 object id
    b.putLong(42); //                                           24 object version
    b.putLong(1735787045678L); //                               32 created (ms)
    b.putLong(300_000); //                                      40 object length
    b.putInt(65536); //                                         48 cell size
    b.put(new byte[] {2, 4, 2}); //                             52 raid6, k 4, m 2
    b.put((byte) 6); //                                         55 slot count
    b.put(new byte[] {3, 7, 0, 12, 5, 9}); //                   56 slots
    b.putInt(referenceCrc32c(b.array(), 62)); //                62 CRC32C of 0..61
    return b.array();
  }

  @Test
  void referenceCrcMatchesTheStandardCheckValue() {
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertEquals(0xe3069283, referenceCrc32c(check, check.length));
  }

  @Test
  void goldenFileIsTheHandAssembledLayout() throws IOException {
    assertArrayEquals(handAssembled(), goldenBytes());
    assertEquals(0x3bf5b8ee, ByteBuffer.wrap(goldenBytes()).getInt(62), "as in the Javadoc");
  }

  @Test
  void encoderMatchesTheGoldenFileByteForByte() throws IOException {
    assertArrayEquals(goldenBytes(), ManifestEncoder.encode(golden()),
        "the manifest format changed: bump ManifestFormat.VERSION instead of editing version 1");
  }

  @Test
  void goldenFileDecodesToTheGoldenManifest() throws IOException {
    ObjectManifest m = ManifestDecoder.decode(goldenBytes(), FILE);
    assertEquals(golden(), m);
    assertEquals(List.of(3, 7, 0, 12, 5, 9), m.slots());
    assertEquals(0x12a9L, m.slotMask()); // bits 0, 3, 5, 7, 9, 12
    assertEquals(300_000, m.layout().length());
  }

  public static List<ObjectManifest> samples() {
    List<Integer> wide = new ArrayList<>(IntStream.range(0, 64).boxed().toList());
    Collections.shuffle(wide, new Random(64));
    return List.of(
        new ObjectManifest(1, 0, 0, Protection.parity(CodecGeometry.raid5(4)), 4096,
            List.of(0, 1, 2, 3, 4), CREATED),
        new ObjectManifest(-1L, Long.MAX_VALUE, 123_456_789, Protection.parity(
            CodecGeometry.raid6(8)), 1 << 20, List.of(63, 0, 1, 2, 3, 4, 5, 6, 7, 62), CREATED),
        new ObjectManifest(77, 3, 1, Protection.parity(CodecGeometry.reedSolomon(10, 4)),
            16 << 20, List.of(13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), CREATED),
        new ObjectManifest(5, 9, 64 << 20, Protection.mirror(3), 64 << 10, List.of(40, 2, 17),
            CREATED),
        new ObjectManifest(Long.MIN_VALUE, 1, 1L << 36, Protection.parity(
            CodecGeometry.reedSolomon(60, 4)), 16 << 20, wide, CREATED));
  }

  @Test
  void roundTripsRaid5Raid6RsMirrorAnd64Wide() throws IOException {
    for (ObjectManifest m : samples()) {
      byte[] bytes = ManifestEncoder.encode(m);
      assertEquals(60 + m.protection().width(), bytes.length, m.toString());
      assertEquals(m, ManifestDecoder.decode(bytes, FILE));
    }
  }

  @Test
  void everySingleByteCorruptionIsDetected() throws IOException {
    for (ObjectManifest m : List.of(golden(), samples().get(4))) {
      byte[] good = ManifestEncoder.encode(m);
      for (int i = 0; i < good.length; i++) {
        for (int x = 1; x < 256; x++) {
          byte[] bad = good.clone();
          bad[i] ^= (byte) x;
          String what = "byte " + i + " xor " + x;
          ArrayException e =
              assertThrows(ArrayException.class, () -> ManifestDecoder.decode(bad, FILE), what);
          // A version field naming another version that is read (1 <-> 2) is a corrupt record.
          int version = ByteBuffer.wrap(bad).getShort(8);
          ArrayError want = (i == 8 || i == 9) && version != 1 && version != 2
              ? ArrayError.UNSUPPORTED_VERSION : ArrayError.CORRUPT_MANIFEST;
          assertEquals(want, e.error(), what + ": " + e.getMessage());
          assertTrue(e.getMessage().contains(FILE.toString()), e.getMessage());
          assertEquals(FILE, e.path());
        }
      }
    }
  }

  @Test
  void truncatedOrExtendedRecordsAreCorrupt() throws IOException {
    byte[] good = goldenBytes();
    for (int n = 0; n < good.length; n++) {
      byte[] cut = Arrays.copyOf(good, n);
      ArrayException e =
          assertThrows(ArrayException.class, () -> ManifestDecoder.decode(cut, FILE), "n=" + n);
      assertEquals(ArrayError.CORRUPT_MANIFEST, e.error(), e.getMessage());
    }
    byte[] longer = Arrays.copyOf(good, good.length + 1);
    ArrayException e =
        assertThrows(ArrayException.class, () -> ManifestDecoder.decode(longer, FILE));
    assertTrue(e.getMessage().contains("trailing bytes"), e.getMessage());
  }

  /** {@code good} with byte {@code at} set to {@code value}, CRC recomputed: only the field checks can tell. */
  private static byte[] resealed(byte[] good, int at, int value) {
    byte[] b = good.clone();
    b[at] = (byte) value;
    ByteBuffer.wrap(b).putInt(b.length - 4, referenceCrc32c(b, b.length - 4));
    return b;
  }

  @Test
  void impossibleValuesUnderAValidCrcAreCorrupt() throws IOException {
    byte[] good = goldenBytes();
    record Case(int at, int value, String fault) {}
    for (Case c : List.of(
        new Case(57, 3, "appears twice"),
        new Case(60, 64, "must be in 0..63"),
        new Case(52, 9, "protection kind 9"),
        new Case(53, 5, "must have 7 entries"),
        new Case(54, 0, "m (0)"),
        new Case(13, 1, "reserved byte at offset 13"),
        new Case(50, 1, "cellSize"),
        new Case(24, 0x80, "object version"))) {
      ArrayException e = assertThrows(ArrayException.class,
          () -> ManifestDecoder.decode(resealed(good, c.at, c.value), FILE), c.toString());
      assertEquals(ArrayError.CORRUPT_MANIFEST, e.error());
      assertTrue(e.getMessage().contains(c.fault), c + ": " + e.getMessage());
    }
  }

  @Test
  void aLaterVersionIsUnsupported() throws IOException {
    for (int version : new int[] {0, 3, 0x100}) {
      byte[] b = resealed(goldenBytes(), 9, version & 0xff);
      b[8] = (byte) (version >> 8);
      ArrayException e =
          assertThrows(ArrayException.class, () -> ManifestDecoder.decode(b, FILE));
      assertEquals(ArrayError.UNSUPPORTED_VERSION, e.error());
      assertTrue(e.getMessage().contains("format version " + version + "; this ParityFS reads"
          + " versions 1 and 2"), e.getMessage());
    }
  }

  @Test
  void constructorRefusesImpossibleManifests() {
    Protection rs = Protection.parity(CodecGeometry.reedSolomon(2, 1));
    assertThrows(IllegalArgumentException.class,
        () -> new ObjectManifest(1, -1, 0, rs, 4096, List.of(0, 1, 2), CREATED));
    assertThrows(IllegalArgumentException.class,
        () -> new ObjectManifest(1, 0, -1, rs, 4096, List.of(0, 1, 2), CREATED));
    assertThrows(IllegalArgumentException.class,
        () -> new ObjectManifest(1, 0, 0, rs, 1000, List.of(0, 1, 2), CREATED));
    assertThrows(IllegalArgumentException.class,
        () -> new ObjectManifest(1, 0, 0, rs, 4096, List.of(0, 1), CREATED));
    assertThrows(IllegalArgumentException.class,
        () -> new ObjectManifest(1, 0, 0, rs, 4096, List.of(0, 1, 1), CREATED));
    assertThrows(IllegalArgumentException.class,
        () -> new ObjectManifest(1, 0, 0, rs, 4096, List.of(0, 1, 64), CREATED));
    assertThrows(IllegalArgumentException.class,
        () -> new ObjectManifest(1, 0, 0, rs, 4096, List.of(0, 1, 2), null));
  }
}
