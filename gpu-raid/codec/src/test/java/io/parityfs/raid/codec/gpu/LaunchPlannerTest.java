package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LaunchPlannerTest {
  /** An H200's shape: 132 SMs, 2048 threads and 32 blocks resident per SM. */
  static final DeviceInfo H200 =
      new DeviceInfo("NVIDIA H200", 0, 132, 141L << 30, 9, 0, 2048, 32, 0, -5);

  @Test
  void residentBlocksAreLimitedByThreadsOrByTheBlockLimit() {
    assertEquals(132 * 8, new LaunchPlanner(H200, 256).residentBlocks());
    assertEquals(132 * 2, new LaunchPlanner(H200, 1024).residentBlocks());
    assertEquals(132 * 32, new LaunchPlanner(H200, 32).residentBlocks(), "32 blocks per SM at most");
    DeviceInfo old = new DeviceInfo("old", 0, 10, 1L << 30, 7, 0, 2048, 0, 0, -1);
    assertEquals(10 * 16, new LaunchPlanner(old, 64).residentBlocks(), "fallback of 16 per SM");
  }

  @Test
  void theGridIsTheWorkCappedByTheShare() {
    LaunchPlanner p = new LaunchPlanner(H200, 256);
    assertEquals(264, p.maxBlocks(0.25));
    assertEquals(1056, p.maxBlocks(1.0));
    assertEquals(1, p.maxBlocks(1e-9), "at least one block");
    assertEquals(1, p.grid(1, 0.25));
    assertEquals(1, p.grid(256, 0.25));
    assertEquals(2, p.grid(257, 0.25));
    assertEquals(264, p.grid(10_000_000, 0.25));
    assertEquals(1056, p.grid(10_000_000, 1.0));
    assertTrue(p.grid(Long.MAX_VALUE / 2, 1.0) <= 1056);
  }

  @Test
  void badValuesAreNamed() {
    LaunchPlanner p = new LaunchPlanner(H200, 256);
    assertMessage("fraction (0.0) must be in (0, 1]", () -> p.maxBlocks(0));
    assertMessage("fraction (1.5) must be in (0, 1]", () -> p.grid(10, 1.5));
    assertMessage("threads (0) must be >= 1", () -> p.grid(0, 0.5));
    assertMessage("threadsPerBlock (4096) must be in 1..2048 on NVIDIA H200",
        () -> new LaunchPlanner(H200, 4096));
    assertMessage("multiprocessors (0) must be >= 1",
        () -> new DeviceInfo("x", 0, 0, 0, 0, 0, 2048, 0, 0, 0));
  }

  @Test
  void deviceDescriptionForLogs() {
    assertEquals("NVIDIA H200 (device 0, sm_90, 132 SMs, 141 GiB)", H200.describe());
  }

  static void assertMessage(String expected, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(expected), "'" + e.getMessage() + "' lacks '" + expected + "'");
  }
}
