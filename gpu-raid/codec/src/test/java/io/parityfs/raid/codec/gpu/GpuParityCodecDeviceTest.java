package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.ParityCodecContractTest;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.CodecSelection;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract suite and the batch paths on the real GPU through JCuda. Every test is skipped,
 * with the probe's reason, where no GPU is usable (the reason is also printed to the test's
 * output).
 */
class GpuParityCodecDeviceTest extends ParityCodecContractTest {
  /** Small enough that the suite's many geometries fit beside a tenant, big enough for any stripe. */
  private static final GpuShare SHARE = GpuShare.builder().memoryCap(16L << 20).build();
  private static final Map<CodecGeometry, GpuParityCodec> CODECS = new ConcurrentHashMap<>();
  private static final AtomicBoolean TOLD = new AtomicBoolean();

  @BeforeEach
  void requireGpu() {
    CudaProbe.Result probe = CudaProbe.result();
    if (!probe.available() && !TOLD.getAndSet(true)) {
      System.out.println("GpuParityCodecDeviceTest skipped: " + probe.reason());
    }
    assumeTrue(probe.available(), "no usable GPU: " + probe.reason());
  }

  @Override
  protected ParityCodec codec(CodecGeometry g) {
    return CODECS.computeIfAbsent(g, x -> GpuParityCodec.create(x, SHARE));
  }

  @AfterAll
  static void closeCodecs() {
    CODECS.values().forEach(GpuParityCodec::close);
    CODECS.clear();
  }

  @Test
  void describesTheDevice() {
    String impl = codec(CodecGeometry.raid6(4)).implementation();
    System.out.println("GPU codec: " + impl);
    assertTrue(impl.startsWith("gpu-cuda("), impl);
  }

  @Test
  void batchesOfManyChunksOnBothStreamsEqualTheCpu() {
    Random rnd = new Random(61);
    GpuShare tiny = GpuShare.builder().memoryCap(1 << 20).build();
    for (CodecGeometry g : List.of(CodecGeometry.reedSolomon(10, 4), CodecGeometry.raid6(8),
        CodecGeometry.raid5(5))) {
      try (GpuParityCodec codec = GpuParityCodec.create(g, tiny)) {
        RandomBatch b = RandomBatch.sameLength(g, 64, 16 * 1024 + 3, rnd);
        codec.encodeBatch(b.data(), b.parity());
        for (int s = 0; s < 64; s++) {
          byte[][] want = b.cpuParity(s);
          for (int r = 0; r < g.m(); r++) {
            assertArrayEquals(want[r], b.get(s, g.k() + r), g + " stripe " + s + " parity " + r);
          }
        }
        byte[][] before = new byte[64][];
        ByteBuffer[][] shards = new ByteBuffer[64][];
        for (int s = 0; s < 64; s++) {
          before[s] = b.get(s, 0);
          shards[s] = b.shards[s].clone();
          b.scramble(s, 0, rnd);
        }
        codec.setBurst(true);
        codec.reconstructBatch(shards, new int[] {0});
        for (int s = 0; s < 64; s++) {
          assertArrayEquals(before[s], b.get(s, 0), g + " stripe " + s + " restored");
        }
      }
    }
  }

  @Test
  void encodeOnDeviceMatchesTheCpu() {
    CodecGeometry g = CodecGeometry.reedSolomon(6, 3);
    CudaDriver driver = CudaProbe.driver();
    int stripes = 8;
    int words = 1024;
    int inBytes = stripes * g.k() * words * 4;
    int outBytes = stripes * g.m() * words * 4;
    Random rnd = new Random(62);
    byte[] data = new byte[inBytes];
    rnd.nextBytes(data);
    driver.bindThread();
    long in = driver.allocDevice(inBytes);
    long out = driver.allocDevice(outBytes);
    PinnedBuffer pin = driver.allocPinned(inBytes + outBytes);
    long stream = driver.createStream(driver.device().leastStreamPriority());
    try (GpuParityCodec codec = GpuParityCodec.create(g, SHARE)) {
      pin.bytes().put(0, data);
      driver.copyToDevice(in, pin, 0, inBytes, stream);
      driver.synchronize(stream);
      codec.encodeOnDevice(in, out, words, stripes);
      driver.bindThread();
      driver.copyToHost(pin, inBytes, out, outBytes, stream);
      driver.synchronize(stream);
      ParityCodec cpu = CpuParityCodec.create(g);
      for (int s = 0; s < stripes; s++) {
        ByteBuffer[] d = new ByteBuffer[g.k()];
        for (int j = 0; j < g.k(); j++) {
          d[j] = ByteBuffer.wrap(data, (s * g.k() + j) * words * 4, words * 4).slice();
        }
        ByteBuffer[] p = new ByteBuffer[g.m()];
        for (int r = 0; r < g.m(); r++) {
          p[r] = ByteBuffer.allocate(words * 4);
        }
        cpu.encode(d, p);
        for (int r = 0; r < g.m(); r++) {
          byte[] got = new byte[words * 4];
          pin.bytes().get(inBytes + (s * g.m() + r) * words * 4, got);
          assertArrayEquals(p[r].array(), got, "stripe " + s + " parity " + r);
        }
      }
    } finally {
      driver.destroyStream(stream);
      driver.freePinned(pin);
      driver.freeDevice(in);
      driver.freeDevice(out);
    }
  }

  @Test
  void theFactoryTakesTheGpuWhenAskedAndExplainsAuto() {
    CodecGeometry g = CodecGeometry.reedSolomon(10, 4);
    try (ParityCodecFactory gpu = ParityCodecFactory.builder().backend(CodecBackend.GPU).build()) {
      assertTrue(gpu.codec(g) instanceof GpuParityCodec);
      assertEquals("configured; self-check passed", gpu.selection(g).reason());
    }
    try (ParityCodecFactory auto = ParityCodecFactory.builder().build()) {
      CodecSelection s = auto.selection(g);
      System.out.println("auto: " + s);
      assertTrue(s.reason().startsWith("calibration of "), s.reason());
    }
  }
}
