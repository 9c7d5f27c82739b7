package io.parityfs.raid.codec.gpu;

import static io.parityfs.raid.codec.gpu.LaunchPlannerTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class GpuShareTest {

  @Test
  void defaults() {
    GpuShare d = GpuShare.DEFAULT;
    assertEquals(0.25, d.fraction());
    assertEquals(1.0, d.burstFraction());
    assertEquals(1L << 30, d.memoryCap());
    assertEquals(2, d.streams());
    assertEquals(256, d.threadsPerBlock());
    int staging = Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() / 4));
    assertEquals(staging, d.stagingThreads());
    assertEquals("GpuShare[fraction=0.25, burstFraction=1.0, memoryCap=1073741824, streams=2, "
        + "threadsPerBlock=256, stagingThreads=" + staging + "]", d.toString());
  }

  @Test
  void toBuilderRoundTrips() {
    GpuShare s = GpuShare.builder().fraction(0.1).burstFraction(0.5).memoryCap(1 << 24)
        .streams(4).threadsPerBlock(128).stagingThreads(5).build();
    assertEquals(s, s.toBuilder().build());
    assertEquals(s.hashCode(), s.toBuilder().build().hashCode());
    assertNotEquals(s, s.toBuilder().streams(3).build());
    assertNotEquals(s, s.toBuilder().stagingThreads(2).build());
    assertEquals(5, s.stagingThreads());
    assertEquals(0.1, s.fraction());
    assertEquals(0.5, s.burstFraction());
  }

  @Test
  void everyBadValueIsNamed() {
    assertMessage("fraction (0.0) must be in (0, 1]", () -> GpuShare.builder().fraction(0));
    assertMessage("stagingThreads (0) must be in 1..64", () -> GpuShare.builder().stagingThreads(0));
    assertMessage("stagingThreads (65) must be in 1..64", () -> GpuShare.builder().stagingThreads(65));
    assertMessage("fraction (1.01) must be in (0, 1]", () -> GpuShare.builder().fraction(1.01));
    assertMessage("fraction (NaN) must be in (0, 1]", () -> GpuShare.builder().fraction(Double.NaN));
    assertMessage("burstFraction (-1.0) must be in (0, 1]",
        () -> GpuShare.builder().burstFraction(-1));
    assertMessage("burstFraction (0.2) must be at least fraction (0.5)",
        () -> GpuShare.builder().fraction(0.5).burstFraction(0.2).build());
    assertMessage("memoryCap (1000) must be at least 65536 bytes",
        () -> GpuShare.builder().memoryCap(1000));
    assertMessage("streams (1) must be in 2..16", () -> GpuShare.builder().streams(1));
    assertMessage("streams (17) must be in 2..16", () -> GpuShare.builder().streams(17));
    assertMessage("threadsPerBlock (100) must be a multiple of 32 in 32..1024",
        () -> GpuShare.builder().threadsPerBlock(100));
    assertMessage("threadsPerBlock (2048) must be a multiple of 32 in 32..1024",
        () -> GpuShare.builder().threadsPerBlock(2048));
  }
}
