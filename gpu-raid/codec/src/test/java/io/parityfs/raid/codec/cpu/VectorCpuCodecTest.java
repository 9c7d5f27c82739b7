package io.parityfs.raid.codec.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.ParityCodecContractTest;
import org.junit.jupiter.api.Test;

/**
 * The contract suite on the Vector API kernels. The build always runs tests with
 * {@code --add-modules jdk.incubator.vector}, so the kernels must be there: a missing module is
 * a failure here, not a skip.
 */
class VectorCpuCodecTest extends ParityCodecContractTest {

  @Override
  protected ParityCodec codec(CodecGeometry g) {
    return CpuParityCodec.create(g, CpuParityCodec.Kernels.VECTOR);
  }

  @Test
  void vectorKernelsAreActiveInTheTestJvm() {
    assertTrue(CpuParityCodec.vectorAvailable(), CpuParityCodec.vectorUnavailableReason());
    ParityCodec c = CpuParityCodec.create(CodecGeometry.reedSolomon(4, 2));
    // AUTO: the vector kernels, alone or beside ISA-L's (JDK 22+ with libisal2, IsalCpuCodecTest)
    String expected = CpuParityCodec.isalAvailable()
        ? "cpu-isal+" + VectorKernels.INSTANCE.name().substring("cpu-".length())
        : VectorKernels.INSTANCE.name();
    assertEquals(expected, c.implementation());
    assertTrue(CpuParityCodec.create(CodecGeometry.reedSolomon(4, 2), CpuParityCodec.Kernels.VECTOR)
        .implementation().startsWith("cpu-vector("));
  }
}
