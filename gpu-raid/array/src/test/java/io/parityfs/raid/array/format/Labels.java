package io.parityfs.raid.array.format;

import io.parityfs.raid.codec.CodecGeometry;
import java.time.Instant;
import java.util.UUID;

/** The label the golden file holds, and helpers shared by the tests. */
public final class Labels {
  private Labels() {}

  public static final UUID ARRAY = UUID.fromString("00112233-4455-6677-8899-aabbccddeeff");
  public static final UUID DRIVE = UUID.fromString("01234567-89ab-cdef-fedc-ba9876543210");

  /** rs:10+4, 64 KiB cells, 64 MiB objects, 1 spare, 15 slots, slot 3, generation 7, slot 5 failed. */
  public static DriveLabel golden() {
    ArrayConfig config = ArrayConfig.builder()
        .geometry(CodecGeometry.reedSolomon(10, 4))
        .cellSize(64 << 10)
        .maxObjectSize(64L << 20)
        .hotSpares(1)
        .build();
    return new DriveLabel(ARRAY, DRIVE, 3, DriveRole.DATA, config, 15, 7, 1L << 5,
        Instant.parse("2025-01-02T03:04:05.678Z"));
  }
}
