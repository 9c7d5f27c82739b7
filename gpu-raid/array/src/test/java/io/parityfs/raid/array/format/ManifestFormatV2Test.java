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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Manifest format version 2: format 1 with a {@link VersionTag} after the slots. */
class ManifestFormatV2Test {
  static final VersionTag TAG = new VersionTag(7, 1234);

  /** The v1 golden manifest, tagged. */
  static ObjectManifest golden() {
    ObjectManifest m = ManifestFormatTest.golden();
    return ObjectManifest.of(m.objectId(), m.version(), m.layout(), new int[] {3, 7, 0, 12, 5, 9},
        m.created(), TAG);
  }

  static byte[] goldenBytes() throws IOException {
    try (InputStream in = ManifestFormatV2Test.class.getResourceAsStream("manifest-v2.bin")) {
      if (in == null) {
        throw new IOException("golden file manifest-v2.bin missing from the test resources");
      }
      return in.readAllBytes();
    }
  }

  /** The v2 golden record field by field from the layout table, not from the encoder. */
  static byte[] handAssembled() {
    ByteBuffer b = ByteBuffer.allocate(82);
    b.put("PFSMANIF".getBytes(StandardCharsets.US_ASCII)); //  0 magic
    b.putShort((short) 2); //                                    8 version
    b.putShort((short) 82); //                                  10 length = 76 + 6 slots
    b.putInt(0); //                                             12 reserved
    b.putLong(0x0123456789abcdefL); //                          16 object id
    b.putLong(42); //                                           24 object version
    b.putLong(1735787045678L); //                               32 created (ms)
    b.putLong(300_000); //                                      40 object length
    b.putInt(65536); //                                         48 cell size
    b.put(new byte[] {2, 4, 2}); //                             52 raid6, k 4, m 2
    b.put((byte) 6); //                                         55 slot count
    b.put(new byte[] {3, 7, 0, 12, 5, 9}); //                   56 slots
    b.putLong(7); //                                            62 tag generation (56 + n)
    b.putLong(1234); //                                         70 tag sequence (64 + n)
    b.putInt(ManifestFormatTest.referenceCrc32c(b.array(), 78)); // 78 CRC32C of 0..77
    return b.array();
  }

  /** {@code good} with the long at {@code at} set to {@code value}, CRC recomputed. */
  private static byte[] resealedLong(byte[] good, int at, long value) {
    byte[] b = good.clone();
    ByteBuffer.wrap(b).putLong(at, value);
    return reseal(b);
  }

  private static byte[] reseal(byte[] b) {
    ByteBuffer.wrap(b).putInt(b.length - 4, ManifestFormatTest.referenceCrc32c(b, b.length - 4));
    return b;
  }

  @Test
  void goldenFileIsTheHandAssembledLayout() throws IOException {
    assertArrayEquals(handAssembled(), goldenBytes());
    assertEquals(0xc4c5a331, ByteBuffer.wrap(goldenBytes()).getInt(78), "as in the Javadoc");
  }

  @Test
  void encoderMatchesTheGoldenFileByteForByte() throws IOException {
    assertArrayEquals(goldenBytes(), ManifestEncoder.encode(golden()),
        "the manifest format changed: bump the version instead of editing version 2");
  }

  @Test
  void goldenFileDecodesToTheTaggedManifest() throws IOException {
    ObjectManifest m = ManifestDecoder.decode(goldenBytes(), ManifestFormatTest.FILE);
    assertEquals(golden(), m);
    assertEquals(TAG, m.tag());
    assertEquals(List.of(3, 7, 0, 12, 5, 9), m.slots());
  }

  @Test
  void anUntaggedManifestIsStillWrittenAsVersion1() throws IOException {
    ObjectManifest v1 = ManifestFormatTest.golden();
    assertEquals(VersionTag.NONE, v1.tag());
    assertArrayEquals(ManifestFormatTest.goldenBytes(), ManifestEncoder.encode(v1));
    ObjectManifest zero = ObjectManifest.of(v1.objectId(), v1.version(), v1.layout(),
        new int[] {3, 7, 0, 12, 5, 9}, v1.created(), new VersionTag(0, 0));
    assertEquals(v1, zero, "(0, 0) is NONE");
    assertArrayEquals(ManifestFormatTest.goldenBytes(), ManifestEncoder.encode(zero));
    assertEquals(VersionTag.NONE,
        ManifestDecoder.decode(ManifestFormatTest.goldenBytes(), ManifestFormatTest.FILE).tag());
  }

  @Test
  void taggedManifestsRoundTripAtEveryWidth() throws IOException {
    List<VersionTag> tags = List.of(new VersionTag(1, 0), new VersionTag(0, 1),
        new VersionTag(Long.MAX_VALUE, Long.MAX_VALUE), new VersionTag(3, 0x0102030405060708L),
        new VersionTag(0x7fff_0000_0000_0000L, 9));
    List<ObjectManifest> samples = ManifestFormatTest.samples();
    for (int i = 0; i < samples.size(); i++) {
      ObjectManifest s = samples.get(i);
      ObjectManifest m = new ObjectManifest(s.objectId(), s.version(), s.objectLength(),
          s.protection(), s.cellSize(), s.slots(), s.created(), tags.get(i));
      byte[] bytes = ManifestEncoder.encode(m);
      assertEquals(76 + m.protection().width(), bytes.length, m.toString());
      assertEquals(2, ByteBuffer.wrap(bytes).getShort(8));
      int n = m.slots().size();
      assertEquals(m.tag().generation(), ByteBuffer.wrap(bytes).getLong(56 + n));
      assertEquals(m.tag().sequence(), ByteBuffer.wrap(bytes).getLong(64 + n));
      assertEquals(m, ManifestDecoder.decode(bytes, ManifestFormatTest.FILE));
    }
    assertEquals(140, ManifestFormat.MAX_LENGTH, "version 2 with 64 slots");
  }

  @Test
  void everySingleByteCorruptionIsDetected() throws IOException {
    ObjectManifest wide = ManifestFormatTest.samples().get(4);
    List<byte[]> records = new ArrayList<>();
    records.add(goldenBytes());
    records.add(ManifestEncoder.encode(new ObjectManifest(wide.objectId(), wide.version(),
        wide.objectLength(), wide.protection(), wide.cellSize(), wide.slots(), wide.created(),
        new VersionTag(Long.MAX_VALUE, 1))));
    for (byte[] good : records) {
      for (int i = 0; i < good.length; i++) {
        for (int x = 1; x < 256; x++) {
          byte[] bad = good.clone();
          bad[i] ^= (byte) x;
          String what = "byte " + i + " xor " + x;
          ArrayException e = assertThrows(ArrayException.class,
              () -> ManifestDecoder.decode(bad, ManifestFormatTest.FILE), what);
          int version = ByteBuffer.wrap(bad).getShort(8);
          ArrayError want = (i == 8 || i == 9) && version != 1 && version != 2
              ? ArrayError.UNSUPPORTED_VERSION : ArrayError.CORRUPT_MANIFEST;
          assertEquals(want, e.error(), what + ": " + e.getMessage());
          assertEquals(ManifestFormatTest.FILE, e.path());
        }
      }
    }
  }

  @Test
  void truncatedOrExtendedRecordsAreCorrupt() throws IOException {
    byte[] good = goldenBytes();
    for (int n = 0; n < good.length; n++) {
      byte[] cut = Arrays.copyOf(good, n);
      ArrayException e = assertThrows(ArrayException.class,
          () -> ManifestDecoder.decode(cut, ManifestFormatTest.FILE), "n=" + n);
      assertEquals(ArrayError.CORRUPT_MANIFEST, e.error(), e.getMessage());
    }
    byte[] longer = Arrays.copyOf(good, good.length + 1);
    ArrayException e = assertThrows(ArrayException.class,
        () -> ManifestDecoder.decode(longer, ManifestFormatTest.FILE));
    assertTrue(e.getMessage().contains("trailing bytes"), e.getMessage());
  }

  @Test
  void negativeTagFieldsUnderAValidCrcAreImpossibleValues() throws IOException {
    for (int at : new int[] {62, 70}) {
      for (long value : new long[] {-1, Long.MIN_VALUE}) {
        byte[] bad = resealedLong(goldenBytes(), at, value);
        ArrayException e = assertThrows(ArrayException.class,
            () -> ManifestDecoder.decode(bad, ManifestFormatTest.FILE), at + "=" + value);
        assertEquals(ArrayError.CORRUPT_MANIFEST, e.error());
        assertTrue(e.getMessage().contains("impossible value"), e.getMessage());
        assertTrue(e.getMessage().contains("(" + value + ") must be >= 0"), e.getMessage());
        assertTrue(e.getMessage().contains(at == 62 ? "generation" : "sequence"), e.getMessage());
      }
    }
  }

  @Test
  void aLengthOfTheOtherVersionIsCorrupt() throws IOException {
    byte[] v1AsV2 = ManifestFormatTest.goldenBytes();
    v1AsV2[9] = 2;
    ArrayException e = assertThrows(ArrayException.class,
        () -> ManifestDecoder.decode(reseal(v1AsV2), ManifestFormatTest.FILE));
    assertEquals(ArrayError.CORRUPT_MANIFEST, e.error());
    assertTrue(e.getMessage().contains("declares length 66, version 2 manifests have 76..140"),
        e.getMessage());

    byte[] v2AsV1 = goldenBytes();
    v2AsV1[9] = 1;
    e = assertThrows(ArrayException.class,
        () -> ManifestDecoder.decode(reseal(v2AsV1), ManifestFormatTest.FILE));
    assertEquals(ArrayError.CORRUPT_MANIFEST, e.error());
    assertTrue(e.getMessage().contains("declares length 82 but 6 slots, which take 66 in"
        + " version 1"), e.getMessage());

    byte[] shortV2 = goldenBytes();
    ByteBuffer.wrap(shortV2).putShort(10, (short) 75);
    e = assertThrows(ArrayException.class,
        () -> ManifestDecoder.decode(reseal(shortV2), ManifestFormatTest.FILE));
    assertTrue(e.getMessage().contains("declares length 75, version 2 manifests have 76..140"),
        e.getMessage());
  }

  @Test
  void aVersion2RecordWithAZeroTagDecodesAsNone() throws IOException {
    byte[] b = resealedLong(resealedLong(goldenBytes(), 62, 0), 70, 0);
    assertEquals(VersionTag.NONE, ManifestDecoder.decode(b, ManifestFormatTest.FILE).tag());
  }

  @Test
  void versionTagRefusesNegativeFieldsNamingThem() {
    IllegalArgumentException g =
        assertThrows(IllegalArgumentException.class, () -> new VersionTag(-1, 0));
    assertTrue(g.getMessage().contains("generation (-1)"), g.getMessage());
    IllegalArgumentException s =
        assertThrows(IllegalArgumentException.class, () -> new VersionTag(0, Long.MIN_VALUE));
    assertTrue(s.getMessage().contains("sequence (" + Long.MIN_VALUE + ")"), s.getMessage());
    assertTrue(VersionTag.NONE.isNone());
    assertTrue(new VersionTag(0, 0).isNone());
    assertEquals(false, new VersionTag(0, 1).isNone());
    assertEquals(false, new VersionTag(1, 0).isNone());
  }

  @Test
  void manifestRefusesANullTag() {
    Protection rs = Protection.parity(CodecGeometry.reedSolomon(2, 1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ObjectManifest(1, 0, 0, rs, 4096, List.of(0, 1, 2), ManifestFormatTest.CREATED,
            null));
    assertTrue(e.getMessage().contains("tag"), e.getMessage());
    assertEquals(VersionTag.NONE,
        new ObjectManifest(1, 0, 0, rs, 4096, List.of(0, 1, 2), ManifestFormatTest.CREATED)
            .tag(), "the 7-argument constructor means no tag");
  }
}
