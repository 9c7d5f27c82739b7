package io.parityfs.raid.codec.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.ParityCodecContractTest;
import org.junit.jupiter.api.Test;

/** The contract suite on the scalar kernels, the fallback for JVMs without the Vector API. */
class ScalarCpuCodecTest extends ParityCodecContractTest {

  @Override
  protected ParityCodec codec(CodecGeometry g) {
    return CpuParityCodec.create(g, CpuParityCodec.Kernels.SCALAR);
  }

  @Test
  void thePropertyChoosesTheKernels() {
    String old = System.getProperty(CpuParityCodec.KERNELS_PROPERTY);
    try {
      System.setProperty(CpuParityCodec.KERNELS_PROPERTY, "scalar");
      assertEquals("cpu-scalar", CpuParityCodec.create(CodecGeometry.raid6(4)).implementation());
      System.setProperty(CpuParityCodec.KERNELS_PROPERTY, "fastest");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CpuParityCodec.create(CodecGeometry.raid6(4)));
      assertTrue(e.getMessage().contains("(fastest) must be auto, isal, vector or scalar"), e.getMessage());
    } finally {
      if (old == null) {
        System.clearProperty(CpuParityCodec.KERNELS_PROPERTY);
      } else {
        System.setProperty(CpuParityCodec.KERNELS_PROPERTY, old);
      }
    }
  }
}
