package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.CodecSelection;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import org.junit.jupiter.api.Test;

/**
 * Codec selection through the public factory, on this machine. Where there is no GPU (the
 * tests that need that are skipped on a GPU machine): auto falls back to the CPU and says why,
 * gpu refuses to start and says why, cpu is the CPU codec.
 */
class CodecSelectionTest {
  private static final CodecGeometry RS = CodecGeometry.reedSolomon(10, 4);

  @Test
  void cpuIsTheCpuCodec() {
    try (ParityCodecFactory f = ParityCodecFactory.builder().backend(CodecBackend.CPU).build()) {
      ParityCodec c = f.codec(RS);
      assertInstanceOf(CpuParityCodec.class, c);
      CodecSelection s = f.selection(RS);
      assertEquals(CodecBackend.CPU, s.chosen());
      assertEquals(CodecBackend.CPU, s.requested());
      assertEquals("configured", s.reason());
      assertEquals(c.implementation(), s.implementation());
      assertSame(c, f.codec(RS), "one codec per geometry");
    }
  }

  @Test
  void autoWithoutAGpuIsTheCpuWithTheReason() {
    CudaProbe.Result probe = CudaProbe.result();
    assumeFalse(probe.available(), "this machine has a GPU");
    try (ParityCodecFactory f = ParityCodecFactory.builder().build()) {
      assertEquals(CodecBackend.AUTO, f.backend());
      long t0 = System.nanoTime();
      ParityCodec c = f.codec(RS);
      assertTrue(System.nanoTime() - t0 < 1_000_000_000L, "auto must not slow a GPU-less start");
      assertInstanceOf(CpuParityCodec.class, c);
      CodecSelection s = f.selection(RS);
      assertEquals(CodecBackend.CPU, s.chosen());
      assertEquals("GPU unavailable: " + probe.reason(), s.reason());
      assertSame(s, f.selection(RS), "the verdict is cached");
      assertTrue(s.toString().startsWith("codec for rs:10+4: cpu cpu-"), s.toString());
    }
  }

  @Test
  void gpuWithoutAGpuRefusesToStartWithTheReason() {
    CudaProbe.Result probe = CudaProbe.result();
    assumeFalse(probe.available(), "this machine has a GPU");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> ParityCodecFactory.builder().backend(CodecBackend.GPU).build());
    assertEquals("codec gpu requested but no GPU: " + probe.reason(), e.getMessage());
    e = assertThrows(IllegalStateException.class, () -> GpuParityCodec.create(RS));
    assertEquals(probe.reason(), e.getMessage());
  }

  @Test
  void onThisMachineWithoutLibcudaTheReasonSaysSo() {
    assumeFalse(java.nio.file.Files.exists(java.nio.file.Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"))
        || System.getenv("LD_LIBRARY_PATH") != null || Boolean.getBoolean(CudaProbe.DISABLED_PROPERTY),
        "this machine may have libcuda.so.1");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> ParityCodecFactory.builder().backend(CodecBackend.GPU).build());
    assertTrue(e.getMessage().startsWith("codec gpu requested but no GPU: libcuda.so.1 not found"),
        e.getMessage());
  }

  @Test
  void backendNamesParse() {
    assertEquals(CodecBackend.AUTO, CodecBackend.parse("auto"));
    assertEquals(CodecBackend.GPU, CodecBackend.parse(" GPU "));
    assertEquals(CodecBackend.CPU, CodecBackend.parse("Cpu"));
    assertEquals("gpu", CodecBackend.GPU.label());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CodecBackend.parse("tpu"));
    assertEquals("codec backend (tpu) must be auto, cpu or gpu", e.getMessage());
  }
}
