package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.ParityCodecContractTest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The contract suite again with the smallest share: one block of 32 threads per launch (the
 * grid-stride loop does all the work), three streams, and a memory cap that just fits the
 * suite's largest stripe (the ISA-L vectors of 32 shards of 4096 bytes).
 */
class OneBlockEmulatedGpuCodecTest extends ParityCodecContractTest {
  private static final EmulatedCudaDriver DRIVER = EmulatedCudaDriver.withSms(2);
  /** 3 x (4 KiB coefficients + 32 shards of 4096 bytes). */
  private static final GpuShare SHARE = GpuShare.builder()
      .fraction(0.001).burstFraction(0.001).threadsPerBlock(32).streams(3).stagingThreads(3)
      .memoryCap(3 * (4096 + 32 * 4096)).build();
  private static final Map<CodecGeometry, GpuParityCodec> CODECS = new ConcurrentHashMap<>();

  @Override
  protected ParityCodec codec(CodecGeometry g) {
    return CODECS.computeIfAbsent(g, x -> new GpuParityCodec(x, SHARE, DRIVER));
  }

  @Test
  void everyLaunchUsedOneBlockOf32Threads() {
    codec(CodecGeometry.raid6(4)).encode(
        new java.nio.ByteBuffer[] {buf(), buf(), buf(), buf()}, new java.nio.ByteBuffer[] {buf(), buf()});
    for (EmulatedCudaDriver.Op op : DRIVER.log()) {
      if (op.kind() == EmulatedCudaDriver.Kind.LAUNCH) {
        assertEquals(1, op.grid());
        assertEquals(32, op.block());
      }
    }
  }

  private static java.nio.ByteBuffer buf() {
    return java.nio.ByteBuffer.allocate(5000);
  }

  @AfterAll
  static void noDriverMisuse() {
    CODECS.values().forEach(GpuParityCodec::close);
    assertEquals(List.of(), DRIVER.violations());
  }
}
