package io.parityfs.raid.codec.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The codec's own code allocates nothing per call once a reconstruction plan is cached. Checked
 * on the scalar kernels, which allocate nothing even before the JIT compiles them; the vector
 * kernels' vectors are registers only after C2 has compiled them, which a unit test cannot wait
 * for reliably.
 */
class SteadyStateAllocationTest {

  @Test
  void encodeReconstructAndUpdateAllocateNothingOnceWarm() {
    var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(bean.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
    CodecGeometry g = CodecGeometry.reedSolomon(6, 3);
    ParityCodec codec = CpuParityCodec.create(g, CpuParityCodec.Kernels.SCALAR);
    ByteBuffer[] shards = new ByteBuffer[g.shards()];
    for (int i = 0; i < shards.length; i++) {
      shards[i] = ByteBuffer.allocateDirect(4096);
    }
    ByteBuffer[] data = java.util.Arrays.copyOfRange(shards, 0, g.k());
    ByteBuffer[] parity = java.util.Arrays.copyOfRange(shards, g.k(), g.shards());
    ByteBuffer newData = ByteBuffer.allocateDirect(4096);
    int[] targets = {1, 7};
    Runnable work = () -> {
      codec.encode(data, parity);
      codec.reconstruct(shards, targets);
      codec.updateParity(2, data[2], newData, parity);
    };
    work.run(); // computes and caches the reconstruction plan
    long before = bean.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 50; i++) {
      work.run();
    }
    long allocated = bean.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < 1024, "50 rounds of encode/reconstruct/update allocated " + allocated + " bytes");
  }
}
