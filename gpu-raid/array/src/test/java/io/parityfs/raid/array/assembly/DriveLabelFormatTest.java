package io.parityfs.raid.array.assembly;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.LabelFile;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayConfigTest;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DriveLabel;
import io.parityfs.raid.array.format.DriveRole;
import io.parityfs.raid.array.format.LabelDecoder;
import io.parityfs.raid.array.format.LabelEncoder;
import io.parityfs.raid.array.format.Labels;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.codec.CodecGeometry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriveLabelFormatTest {
  @TempDir Path dir;

  static byte[] goldenBytes() throws IOException {
    try (InputStream in = DriveLabelFormatTest.class.getResourceAsStream("drive-label-v1.bin")) {
      if (in == null) {
        throw new IOException("golden file drive-label-v1.bin missing from the test resources");
      }
      return in.readAllBytes();
    }
  }

  @Test
  void encoderMatchesTheGoldenFileByteForByte() throws IOException {
    assertArrayEquals(goldenBytes(), LabelEncoder.encode(Labels.golden()),
        "the label format changed: bump LabelFormat.VERSION instead of editing version 1");
  }

  @Test
  void goldenFileDecodesToTheGoldenLabel() throws IOException {
    assertEquals(Labels.golden(), LabelDecoder.decode(goldenBytes(), Path.of("golden")));
  }

  @Test
  void goldenFieldsSitWhereTheLayoutSays() throws IOException {
    ByteBuffer b = ByteBuffer.wrap(goldenBytes());
    assertEquals(128, b.capacity());
    assertEquals("PFSLABEL", new String(goldenBytes(), 0, 8, StandardCharsets.US_ASCII));
    assertEquals(1, b.getShort(8));
    assertEquals(128, b.getShort(10));
    assertEquals(Labels.ARRAY, new UUID(b.getLong(16), b.getLong(24)));
    assertEquals(Labels.DRIVE, new UUID(b.getLong(32), b.getLong(40)));
    assertEquals(7, b.getLong(48));
    assertEquals(1L << 5, b.getLong(56));
    assertEquals(Instant.parse("2025-01-02T03:04:05.678Z").toEpochMilli(), b.getLong(64));
    assertEquals(64L << 20, b.getLong(72));
    assertEquals(64 << 10, b.getInt(80));
    assertArrayEquals(new byte[] {3, 10, 4, 15, 1, 3, 0}, Arrays.copyOfRange(b.array(), 84, 91));
    assertEquals(0, b.getLong(96), "no slot rebuilding");
    assertEquals(0L, Labels.golden().rebuildingSlots());
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, 124);
    assertEquals((int) crc.getValue(), b.getInt(124));
  }

  @Test
  void everyProtectionAndRoleRoundTrips() throws IOException {
    for (Protection p : new Protection[] {Protection.parse("raid5:4+1"),
        Protection.parse("raid6:14+2"), Protection.parse("rs:32+32"), Protection.mirror(2),
        Protection.mirror(4)}) {
      ArrayConfig c = ArrayConfig.builder().protection(p).cellSize(16 << 20)
          .maxObjectSize(Long.MAX_VALUE).hotSpares(0).build();
      DriveLabel l = new DriveLabel(UUID.randomUUID(), UUID.randomUUID(), 63, DriveRole.SPARE, c,
          64, Long.MAX_VALUE, 1L << 63, Instant.ofEpochMilli(123456789));
      LabelFile.write(dir, l);
      assertEquals(l, LabelFile.read(dir));
      assertEquals(128, Files.size(dir.resolve("parityfs.label")));
    }
  }

  @Test
  void rebuildingSlotsSitAtOffset96BigEndian() throws IOException {
    DriveLabel g = Labels.golden();
    DriveLabel l = g.at(g.generation(), g.failedSlots(), (1L << 2) | (1L << 14));
    byte[] bytes = LabelEncoder.encode(l);
    byte[] golden = goldenBytes();
    assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0x40, 0x04},
        Arrays.copyOfRange(bytes, 96, 104));
    for (int i = 0; i < 124; i++) {
      if (i < 96 || i >= 104) {
        assertEquals(golden[i], bytes[i], "offset " + i + " must not change");
      }
    }
    DriveLabel back = LabelDecoder.decode(bytes, Path.of("x"));
    assertEquals(l, back);
    assertTrue(back.isRebuilding(2) && back.isRebuilding(14) && !back.isRebuilding(3));
    LabelFile.write(dir, l);
    assertEquals(l, LabelFile.read(dir));
    // A label rewritten at another generation keeps the set, less the slots it fails.
    assertEquals(1L << 14, l.at(8, (1L << 5) | (1L << 2)).rebuildingSlots());
  }

  @Test
  void everyFlippedByteIsCaught() throws IOException {
    byte[] good = goldenBytes();
    for (int i = 0; i < good.length; i++) {
      byte[] bad = good.clone();
      bad[i] ^= 0x10;
      ArrayException e = assertThrows(ArrayException.class,
          () -> LabelDecoder.decode(bad, Path.of("/d/parityfs.label")), "offset " + i);
      // Bytes 8-9 are the version: a flipped version reads as a version we do not know.
      ArrayError expected = i == 8 || i == 9 ? ArrayError.UNSUPPORTED_VERSION
          : ArrayError.CORRUPT_LABEL;
      assertEquals(expected, e.error(), "offset " + i + ": " + e.getMessage());
      assertTrue(e.getMessage().contains("/d/parityfs.label"), e.getMessage());
    }
  }

  @Test
  void corruptFileOnDiskNamesThePathAndTheFault() throws IOException {
    LabelFile.write(dir, Labels.golden());
    Path file = dir.resolve("parityfs.label");
    byte[] bytes = Files.readAllBytes(file);
    bytes[50] ^= 1;
    Files.write(file, bytes);
    ArrayException e = assertThrows(ArrayException.class, () -> ArrayLabels.readLabel(dir));
    assertEquals(ArrayError.CORRUPT_LABEL, e.error());
    assertEquals(file, e.path());
    assertTrue(e.getMessage().contains(file + " fails its checksum"), e.getMessage());
  }

  @Test
  void truncatedLabels() throws IOException {
    byte[] good = goldenBytes();
    for (int len : new int[] {0, 5, 15, 16, 100, 127}) {
      ArrayException e = assertThrows(ArrayException.class,
          () -> LabelDecoder.decode(Arrays.copyOf(good, len), Path.of("x")));
      assertEquals(ArrayError.CORRUPT_LABEL, e.error());
      assertTrue(e.getMessage().contains("is truncated: " + len + " bytes"), e.getMessage());
    }
    ArrayException e = assertThrows(ArrayException.class,
        () -> LabelDecoder.decode(Arrays.copyOf(good, 129), Path.of("x")));
    assertTrue(e.getMessage().contains("trailing bytes"), e.getMessage());
  }

  @Test
  void wrongMagicIsNamed() {
    byte[] bytes = new byte[128];
    System.arraycopy("NOTALABL".getBytes(StandardCharsets.US_ASCII), 0, bytes, 0, 8);
    ArrayException e = assertThrows(ArrayException.class,
        () -> LabelDecoder.decode(bytes, Path.of("x")));
    assertEquals(ArrayError.CORRUPT_LABEL, e.error());
    assertTrue(e.getMessage().contains("magic is 'NOTALABL', expected PFSLABEL"), e.getMessage());
  }

  @Test
  void unknownVersionIsNotCalledCorrupt() throws IOException {
    byte[] bytes = goldenBytes();
    bytes[9] = 2;
    resealCrc(bytes);
    ArrayException e = assertThrows(ArrayException.class,
        () -> LabelDecoder.decode(bytes, Path.of("x")));
    assertEquals(ArrayError.UNSUPPORTED_VERSION, e.error());
    assertTrue(e.getMessage().contains("format version 2; this ParityFS reads version 1"),
        e.getMessage());
  }

  @Test
  void impossibleValuesUnderAValidCrcAreCorrupt() throws IOException {
    int[][] cases = {{84, 9}, {90, 7}, {89, 15}, {87, 65}, {110, 1}, {12, 1}, {91, 1}, {95, 1},
        {104, 1}, {123, 1}, {102, 0x80}, {103, 0x20}};
    String[] says = {"protection kind 9", "role 7", "slot (15) must be in 0..14",
        "slotCount (65)", "reserved byte at offset 110", "reserved byte at offset 12",
        "reserved byte at offset 91", "reserved byte at offset 95", "reserved byte at offset 104",
        "reserved byte at offset 123", "rebuildingSlots (0x8000) names slots beyond slotCount (15)",
        "slot 5 is both failed and rebuilding"};
    for (int i = 0; i < cases.length; i++) {
      byte[] bytes = goldenBytes();
      bytes[cases[i][0]] = (byte) cases[i][1];
      resealCrc(bytes);
      ArrayException e = assertThrows(ArrayException.class,
          () -> LabelDecoder.decode(bytes, Path.of("x")));
      assertEquals(ArrayError.CORRUPT_LABEL, e.error());
      assertTrue(e.getMessage().contains(says[i]), e.getMessage());
    }
  }

  @Test
  void missingDirectoryOrLabelIsNoLabel() {
    ArrayException e = assertThrows(ArrayException.class, () -> ArrayLabels.readLabel(dir));
    assertEquals(ArrayError.NO_LABEL, e.error());
    assertTrue(e.getMessage().contains("has no label"), e.getMessage());
    Path gone = dir.resolve("gone");
    e = assertThrows(ArrayException.class, () -> ArrayLabels.readLabel(gone));
    assertEquals(ArrayError.NO_LABEL, e.error());
    assertTrue(e.getMessage().contains(gone + " does not exist"), e.getMessage());
  }

  @Test
  void rewriteReplacesTheLabelAndLeavesNoTempFile() throws IOException {
    DriveLabel l = Labels.golden();
    LabelFile.write(dir, l);
    LabelFile.write(dir, l.at(8, 0));
    assertEquals(8, LabelFile.read(dir).generation());
    try (var s = Files.list(dir)) {
      assertEquals(1, s.count());
    }
  }

  @Test
  void labelValuesAreChecked() {
    ArrayConfig c = ArrayConfig.builder().geometry(CodecGeometry.raid5(2)).build();
    Instant t = Instant.EPOCH;
    UUID a = UUID.randomUUID();
    ArrayConfigTest.assertMessage("slotCount (2) must be in 3..64",
        () -> new DriveLabel(a, a, 0, DriveRole.DATA, c, 2, 1, 0, t));
    ArrayConfigTest.assertMessage("generation (0) must be >= 1",
        () -> new DriveLabel(a, a, 0, DriveRole.DATA, c, 3, 0, 0, t));
    ArrayConfigTest.assertMessage("failedSlots (0x8) names slots beyond slotCount (3)",
        () -> new DriveLabel(a, a, 0, DriveRole.DATA, c, 3, 1, 8, t));
    ArrayConfigTest.assertMessage("rebuildingSlots (0x10) names slots beyond slotCount (3)",
        () -> new DriveLabel(a, a, 0, DriveRole.DATA, c, 3, 1, 0, 16, t));
    ArrayConfigTest.assertMessage("slot 1 is both failed and rebuilding",
        () -> new DriveLabel(a, a, 0, DriveRole.DATA, c, 3, 1, 2, 3, t));
  }

  private static void resealCrc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, 124);
    ByteBuffer.wrap(bytes).putInt(124, (int) crc.getValue());
  }
}
