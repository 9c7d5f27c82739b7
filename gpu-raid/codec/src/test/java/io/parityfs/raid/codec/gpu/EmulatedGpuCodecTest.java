package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.ParityCodecContractTest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The whole contract suite on {@link GpuParityCodec} over the emulated driver: every host-side
 * path (staging, padding, chunking, plan choice, delta, the device layout the kernels read) is
 * byte-exact against the ISA-L vectors and the contract, with strict stream semantics.
 */
class EmulatedGpuCodecTest extends ParityCodecContractTest {
  private static final EmulatedCudaDriver DRIVER = EmulatedCudaDriver.withSms(4);
  private static final Map<CodecGeometry, GpuParityCodec> CODECS = new ConcurrentHashMap<>();

  @Override
  protected ParityCodec codec(CodecGeometry g) {
    return CODECS.computeIfAbsent(g, x -> new GpuParityCodec(x, GpuShare.DEFAULT, DRIVER));
  }

  @Test
  void describesItselfAsTheGpuCodec() {
    String impl = codec(CodecGeometry.reedSolomon(4, 2)).implementation();
    assertTrue(impl.startsWith("gpu-cuda(emulated GPU"), impl);
  }

  @AfterAll
  static void noDriverMisuse() {
    CODECS.values().forEach(GpuParityCodec::close);
    assertEquals(List.of(), DRIVER.violations());
    assertEquals(0, DRIVER.deviceBytesAllocated(), "device memory left after close");
  }
}
