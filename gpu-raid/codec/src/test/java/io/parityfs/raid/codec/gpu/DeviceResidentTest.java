package io.parityfs.raid.codec.gpu;

import static io.parityfs.raid.codec.gpu.LaunchPlannerTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The device-resident entry points on emulated device memory: shards laid out by the test as
 * the Javadoc says, results equal to the CPU codec's.
 */
class DeviceResidentTest {
  private final EmulatedCudaDriver driver = EmulatedCudaDriver.withSms(4);

  @AfterEach
  void noDriverMisuse() {
    assertEquals(List.of(), driver.violations());
  }

  @Test
  void encodeOnDeviceMatchesTheCpu() {
    Random rnd = new Random(41);
    for (CodecGeometry g : List.of(CodecGeometry.reedSolomon(10, 4), CodecGeometry.raid6(5),
        CodecGeometry.raid5(7))) {
      int stripes = 5;
      int words = 40;
      byte[][][] data = randomShards(stripes, g.k(), words * 4, rnd);
      long in = upload(data);
      long out = driver.allocDevice((long) stripes * g.m() * words * 4);
      try (GpuParityCodec codec = new GpuParityCodec(g, GpuShare.DEFAULT, driver)) {
        codec.encodeOnDevice(in, out, words, stripes);
      }
      ByteBuffer result = driver.deviceView(out, stripes * g.m() * words * 4);
      for (int s = 0; s < stripes; s++) {
        byte[][] want = cpuParity(g, data[s]);
        for (int r = 0; r < g.m(); r++) {
          byte[] got = new byte[words * 4];
          result.get((s * g.m() + r) * words * 4, got);
          assertArrayEquals(want[r], got, g + " stripe " + s + " parity " + r);
        }
      }
    }
  }

  @Test
  void reconstructOnDeviceReadsThePlannedSurvivors() {
    Random rnd = new Random(42);
    CodecGeometry g = CodecGeometry.reedSolomon(6, 3);
    int stripes = 3;
    int words = 12;
    int len = words * 4;
    byte[][][] data = randomShards(stripes, g.k(), len, rnd);
    byte[][][] full = new byte[stripes][][];
    for (int s = 0; s < stripes; s++) {
      full[s] = new byte[g.shards()][];
      System.arraycopy(data[s], 0, full[s], 0, g.k());
      System.arraycopy(cpuParity(g, data[s]), 0, full[s], g.k(), g.m());
    }
    long available = 0b111_111_111L & ~(1L << 1) & ~(1L << 7) & ~(1L << 2);
    int[] targets = {7, 1};
    try (GpuParityCodec codec = new GpuParityCodec(g, GpuShare.DEFAULT, driver)) {
      int[] survivors = codec.survivorsFor(available, targets);
      assertArrayEquals(new int[] {0, 3, 4, 5, 6, 8}, survivors);
      byte[][][] staged = new byte[stripes][survivors.length][];
      for (int s = 0; s < stripes; s++) {
        for (int j = 0; j < survivors.length; j++) {
          staged[s][j] = full[s][survivors[j]];
        }
      }
      long in = upload(staged);
      long out = driver.allocDevice((long) stripes * 2 * len);
      codec.reconstructOnDevice(available, targets, in, out, words, stripes);
      ByteBuffer result = driver.deviceView(out, stripes * 2 * len);
      for (int s = 0; s < stripes; s++) {
        int r = 0;
        for (int t : new int[] {1, 7}) {
          byte[] got = new byte[len];
          result.get((s * 2 + r) * len, got);
          assertArrayEquals(full[s][t], got, "stripe " + s + " shard " + t);
          r++;
        }
      }
      assertMessage("availableMask (0x1fe) must name at least 6 shards of rs:6+3 and no target",
          () -> codec.survivorsFor(0x1fe, new int[] {1}));
      assertMessage("must be non-zero and 4-byte aligned",
          () -> codec.encodeOnDevice(in + 2, out, words, stripes));
      assertMessage("words (0) and stripes (3) must be >= 1",
          () -> codec.encodeOnDevice(in, out, 0, stripes));
    }
  }

  private long upload(byte[][][] shards) {
    int len = shards[0][0].length;
    int total = shards.length * shards[0].length * len;
    long address = driver.allocDevice(total);
    ByteBuffer view = driver.deviceView(address, total);
    for (byte[][] stripe : shards) {
      for (byte[] shard : stripe) {
        view.put(shard);
      }
    }
    return address;
  }

  private static byte[][][] randomShards(int stripes, int shards, int len, Random rnd) {
    byte[][][] out = new byte[stripes][shards][len];
    for (byte[][] stripe : out) {
      for (byte[] shard : stripe) {
        rnd.nextBytes(shard);
      }
    }
    return out;
  }

  private static byte[][] cpuParity(CodecGeometry g, byte[][] data) {
    ByteBuffer[] d = new ByteBuffer[g.k()];
    for (int j = 0; j < g.k(); j++) {
      d[j] = ByteBuffer.wrap(data[j]);
    }
    byte[][] parity = new byte[g.m()][data[0].length];
    ByteBuffer[] p = new ByteBuffer[g.m()];
    for (int r = 0; r < g.m(); r++) {
      p[r] = ByteBuffer.wrap(parity[r]);
    }
    CpuParityCodec.create(g).encode(d, p);
    return parity;
  }
}
