package io.parityfs.raid.codec.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The factory's choice with stand-in backends: a "GPU" that is faster, slower, wrong, absent or
 * broken. (CodecSelectionTest covers the real probe on this machine.)
 */
class ParityCodecFactoryTest {
  private static final CodecGeometry G = CodecGeometry.reedSolomon(6, 3);
  /**
   * The calibration's clock: only the fakes' delays advance it, so which backend is faster does
   * not depend on how long the real encodes inside them take (a cold JIT on a newer JDK once
   * made the "fast GPU" lose to a CPU slowed by 3 ms a stripe).
   */
  static final java.util.concurrent.atomic.AtomicLong VIRTUAL =
      new java.util.concurrent.atomic.AtomicLong();

  @Test
  void autoTakesTheGpuWhenItIsCorrectAndFaster() {
    Fake gpu = new Fake(CpuParityCodec.create(G), 0, false);
    try (ParityCodecFactory f = factory(CodecBackend.AUTO, slowCpu(), gpu)) {
      assertSame(gpu, f.codec(G));
      CodecSelection s = f.selection(G);
      assertEquals(CodecBackend.GPU, s.chosen());
      assertEquals("fake-gpu", s.implementation());
      assertTrue(s.reason().startsWith("calibration of 4 x 4096-byte stripes: gpu "), s.reason());
      assertTrue(s.gpuBytesPerSecond() > s.cpuBytesPerSecond(), s.toString());
      assertEquals(0, gpu.closed.get());
    }
    assertEquals(1, gpu.closed.get(), "the factory closes the codecs it owns");
  }

  @Test
  void autoKeepsTheCpuWhenTheGpuIsSlower() {
    Fake gpu = new Fake(CpuParityCodec.create(G), 3, false);
    try (ParityCodecFactory f = factory(CodecBackend.AUTO, CpuParityCodec::create, gpu)) {
      assertTrue(f.codec(G) instanceof CpuParityCodec);
      CodecSelection s = f.selection(G);
      assertEquals(CodecBackend.CPU, s.chosen());
      assertTrue(s.reason().startsWith("calibration"), s.reason());
      assertTrue(s.cpuBytesPerSecond() > s.gpuBytesPerSecond(), s.toString());
      assertEquals(1, gpu.closed.get(), "the losing GPU codec is released");
    }
  }

  @Test
  void autoRejectsAGpuThatFailsTheSelfCheck() {
    Fake wrong = new Fake(CpuParityCodec.create(G), 0, true);
    try (ParityCodecFactory f = factory(CodecBackend.AUTO, slowCpu(), wrong)) {
      CodecSelection s = f.selection(G);
      assertEquals(CodecBackend.CPU, s.chosen());
      assertEquals("GPU self-check failed: encode differs from the CPU in stripe 0, parity 0, byte 0",
          s.reason());
      assertEquals(1, wrong.closed.get());
    }
  }

  @Test
  void gpuRequiresTheSelfCheckToPass() {
    Fake wrong = new Fake(CpuParityCodec.create(G), 0, true);
    try (ParityCodecFactory f = factory(CodecBackend.GPU, CpuParityCodec::create, wrong)) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.codec(G));
      assertEquals("codec gpu requested but the GPU self-check failed: encode differs from the "
          + "CPU in stripe 0, parity 0, byte 0", e.getMessage());
    }
    Fake right = new Fake(CpuParityCodec.create(G), 3, false);
    try (ParityCodecFactory f = factory(CodecBackend.GPU, CpuParityCodec::create, right)) {
      assertSame(right, f.codec(G), "gpu is taken even when slower: the operator asked for it");
      assertEquals("configured; self-check passed", f.selection(G).reason());
    }
  }

  @Test
  void withoutAGpuAutoFallsBackAndGpuRefuses() {
    GpuCodecSource none = new GpuCodecSource() {
      @Override
      public String unavailableReason() {
        return "libcuda.so.1 not found";
      }

      @Override
      public ParityCodec open(CodecGeometry geometry) {
        throw new AssertionError("must not be called");
      }
    };
    ParityCodecFactory.Builder b = ParityCodecFactory.builder().gpuSource(none);
    try (ParityCodecFactory auto = b.build()) {
      assertEquals("GPU unavailable: libcuda.so.1 not found", auto.selection(G).reason());
    }
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> b.backend(CodecBackend.GPU).build(), "gpu fails at start-up, not at first use");
    assertEquals("codec gpu requested but no GPU: libcuda.so.1 not found", e.getMessage());
  }

  @Test
  void aGpuCodecThatFailsToStartMeansTheCpuInAuto() {
    GpuCodecSource broken = new GpuCodecSource() {
      @Override
      public String unavailableReason() {
        return null;
      }

      @Override
      public ParityCodec open(CodecGeometry geometry) {
        throw new IllegalStateException("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY");
      }
    };
    try (ParityCodecFactory f = ParityCodecFactory.builder().gpuSource(broken).build()) {
      assertEquals("GPU codec failed to start: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY",
          f.selection(G).reason());
    }
  }

  @Test
  void theChoiceIsMadeOncePerGeometry() {
    AtomicInteger opened = new AtomicInteger();
    GpuCodecSource counting = new GpuCodecSource() {
      @Override
      public String unavailableReason() {
        return null;
      }

      @Override
      public ParityCodec open(CodecGeometry geometry) {
        opened.incrementAndGet();
        return new Fake(CpuParityCodec.create(geometry), 0, false);
      }
    };
    try (ParityCodecFactory f = factory(CodecBackend.AUTO, slowCpu(), counting)) {
      ParityCodec first = f.codec(G);
      assertSame(first, f.codec(G));
      assertSame(f.selection(G), f.selection(G));
      f.codec(CodecGeometry.raid6(4));
      assertEquals(2, opened.get());
    }
  }

  @Test
  void builderChecksItsValues() {
    assertMessage("calibrationStripes (0) must be in 1..4096",
        () -> ParityCodecFactory.builder().calibrationStripes(0));
    assertMessage("calibrationShardBytes (0) must be in 1..67108864",
        () -> ParityCodecFactory.builder().calibrationShardBytes(0));
    assertMessage("backend must not be null", () -> ParityCodecFactory.builder().backend(null));
    ParityCodecFactory f = ParityCodecFactory.builder().backend(CodecBackend.CPU)
        .calibrationStripes(8).build();
    assertEquals(CodecBackend.CPU, f.toBuilder().build().backend());
  }

  private static void assertMessage(String expected, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertEquals(expected, e.getMessage());
  }

  private static ParityCodecFactory factory(CodecBackend backend,
      java.util.function.Function<CodecGeometry, ParityCodec> cpu, ParityCodec gpu) {
    return factory(backend, cpu, new GpuCodecSource() {
      @Override
      public String unavailableReason() {
        return null;
      }

      @Override
      public ParityCodec open(CodecGeometry geometry) {
        return gpu;
      }
    });
  }

  private static ParityCodecFactory factory(CodecBackend backend,
      java.util.function.Function<CodecGeometry, ParityCodec> cpu, GpuCodecSource gpu) {
    return ParityCodecFactory.builder().backend(backend).calibrationStripes(4)
        .calibrationShardBytes(4096).cpuSource(cpu).gpuSource(gpu).clock(VIRTUAL::get).build();
  }

  private static java.util.function.Function<CodecGeometry, ParityCodec> slowCpu() {
    return g -> new Fake(CpuParityCodec.create(g), 3, false) {
      @Override
      public String implementation() {
        return "slow-cpu";
      }
    };
  }

  /**
   * A stand-in codec: the CPU's results, optionally slowed by ms per stripe (on {@link #VIRTUAL}),
   * optionally wrong.
   */
  static class Fake implements ParityCodec, AutoCloseable {
    final ParityCodec inner;
    final int delayMillis;
    final boolean wrong;
    final AtomicInteger closed = new AtomicInteger();

    Fake(ParityCodec inner, int delayMillis, boolean wrong) {
      this.inner = inner;
      this.delayMillis = delayMillis;
      this.wrong = wrong;
    }

    @Override
    public CodecGeometry geometry() {
      return inner.geometry();
    }

    @Override
    public String implementation() {
      return "fake-gpu";
    }

    @Override
    public void encode(ByteBuffer[] data, ByteBuffer[] parity) {
      pause();
      inner.encode(data, parity);
      if (wrong) {
        parity[0].put(parity[0].position(), (byte) (parity[0].get(parity[0].position()) ^ 1));
      }
    }

    @Override
    public void reconstruct(ByteBuffer[] shards, int[] targets) {
      pause();
      inner.reconstruct(shards, targets);
    }

    @Override
    public void updateParity(int i, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity) {
      inner.updateParity(i, oldData, newData, parity);
    }

    @Override
    public void close() {
      closed.incrementAndGet();
    }

    /** The delay, on the calibration's virtual clock (no sleep). */
    private void pause() {
      VIRTUAL.addAndGet(delayMillis * 1_000_000L);
    }
  }
}
