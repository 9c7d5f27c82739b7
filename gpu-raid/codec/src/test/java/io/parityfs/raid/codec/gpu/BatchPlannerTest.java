package io.parityfs.raid.codec.gpu;

import static io.parityfs.raid.codec.gpu.LaunchPlannerTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class BatchPlannerTest {

  @Test
  void shardsArePaddedToWhole16ByteUnits() {
    assertEquals(0, BatchPlanner.words(0));
    assertEquals(4, BatchPlanner.words(1));
    assertEquals(4, BatchPlanner.words(16));
    assertEquals(8, BatchPlanner.words(17));
    assertEquals(1024, BatchPlanner.words(4096));
    assertEquals(4112, BatchPlanner.paddedBytes(4097));
    assertEquals(2147483648L, BatchPlanner.paddedBytes(Integer.MAX_VALUE), "no int overflow");
  }

  @Test
  void theCapIsSplitBetweenTheStreams() {
    BatchPlanner p = new BatchPlanner(GpuShare.builder().memoryCap(1 << 20).streams(4).build());
    assertEquals(256 * 1024, p.slotBytes());
    assertEquals(256 * 1024 - BatchPlanner.COEF_BYTES, p.shardBytesPerSlot());
    BatchPlanner big = new BatchPlanner(GpuShare.builder().memoryCap(64L << 30).build());
    assertEquals(BatchPlanner.MAX_SLOT_BYTES, big.slotBytes(), "one staging buffer stays < 2 GiB");
  }

  @Test
  void chunksHoldWhatFitsSplitEvenlyAndNearTheTarget() {
    BatchPlanner p = new BatchPlanner(GpuShare.builder().memoryCap(1 << 20).build());
    // 512 KiB - 4 KiB per stream; 14 shards of 1008 bytes = 14112 bytes per stripe: 36 fit.
    assertEquals(36, p.maxStripesPerChunk(14, 1000, "s"));
    assertEquals(36, p.stripesPerChunk(14, 1000, 1000, "s"));
    assertEquals(5, p.stripesPerChunk(14, 1000, 10, "s"), "an even split over 2 streams");
    assertEquals(1, p.stripesPerChunk(14, 1000, 1, "s"));
    BatchPlanner huge = new BatchPlanner(GpuShare.builder().memoryCap(16L << 30).build());
    // 14 shards of 64 KiB = 896 KiB a stripe: 16 MiB / 896 KiB = 18 stripes a chunk.
    assertEquals(18, huge.stripesPerChunk(14, 65536, 10_000, "s"));
  }

  @Test
  void aStripeThatDoesNotFitIsRejectedWithTheNumbers() {
    BatchPlanner p = new BatchPlanner(GpuShare.builder().memoryCap(GpuShare.MIN_MEMORY_CAP).build());
    assertMessage("a stripe of rs:10+4 needs 57344 bytes of device memory (14 shards of 4096 bytes, "
        + "padded to 4096) but each of the 2 streams may stage 28672 (GpuShare.memoryCap 65536)",
        () -> p.maxStripesPerChunk(14, 4096, "a stripe of rs:10+4"));
  }
}
