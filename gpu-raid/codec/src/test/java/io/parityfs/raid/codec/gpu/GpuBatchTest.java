package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batches through the GPU codec on the emulated driver, with a memory cap so small that a batch
 * becomes many chunks on every stream: results equal the CPU codec's, stripe by stripe.
 */
class GpuBatchTest {
  /** 64 KiB over two streams: 28 KiB of shards per chunk. */
  static final GpuShare TINY =
      GpuShare.builder().memoryCap(GpuShare.MIN_MEMORY_CAP).stagingThreads(4).build();

  private final EmulatedCudaDriver driver = EmulatedCudaDriver.withSms(4);

  @AfterEach
  void noDriverMisuse() {
    assertEquals(List.of(), driver.violations());
  }

  @Test
  void encodeBatchOfManyChunksEqualsTheCpu() {
    Random rnd = new Random(21);
    for (CodecGeometry g : List.of(CodecGeometry.reedSolomon(10, 4), CodecGeometry.raid6(6),
        CodecGeometry.raid5(5), CodecGeometry.reedSolomon(3, 5))) {
      try (GpuParityCodec codec = new GpuParityCodec(g, TINY, driver)) {
        RandomBatch b = RandomBatch.sameLength(g, 37, 1000, rnd);
        codec.encodeBatch(b.data(), b.parity());
        assertParityIsCpus(b);
        long launches = driver.log().stream()
            .filter(op -> op.kind() == EmulatedCudaDriver.Kind.LAUNCH).count();
        assertTrue(launches >= 6, g + ": " + launches + " launches");
      }
    }
  }

  @Test
  void oddAndMixedLengthsInOneBatch() {
    Random rnd = new Random(22);
    CodecGeometry g = CodecGeometry.reedSolomon(6, 3);
    int[] lens = {1, 2, 3, 15, 16, 17, 17, 17, 31, 0, 33, 1000, 1001, 2047, 2048, 2049, 3001, 63, 5};
    try (GpuParityCodec codec = new GpuParityCodec(g, TINY, driver)) {
      RandomBatch b = new RandomBatch(g, lens, rnd);
      byte[][] guards = new byte[lens.length][];
      for (int s = 0; s < lens.length; s++) {
        guards[s] = b.whole(s, g.k());
      }
      codec.encodeBatch(b.data(), b.parity());
      assertParityIsCpus(b);
      b.assertPositionsUntouched();
      for (int s = 0; s < lens.length; s++) {
        byte[] after = b.whole(s, g.k());
        for (int j = 0; j < RandomBatch.PAD; j++) {
          assertEquals(guards[s][j], after[j], "stripe " + s + " written before its window");
          assertEquals(guards[s][guards[s].length - 1 - j], after[after.length - 1 - j],
              "stripe " + s + " written after its window");
        }
      }
    }
  }

  @Test
  void reconstructBatchWithDifferentSurvivorsPerStripe() {
    Random rnd = new Random(23);
    CodecGeometry g = CodecGeometry.reedSolomon(8, 4);
    try (GpuParityCodec codec = new GpuParityCodec(g, TINY, driver)) {
      RandomBatch b = RandomBatch.sameLength(g, 30, 777, rnd);
      codec.encodeBatch(b.data(), b.parity());
      byte[][][] want = new byte[30][g.shards()][];
      for (int s = 0; s < 30; s++) {
        for (int i = 0; i < g.shards(); i++) {
          want[s][i] = b.get(s, i);
        }
      }
      int[] targets = {1, 9};
      ByteBuffer[][] shards = new ByteBuffer[30][];
      for (int s = 0; s < 30; s++) {
        shards[s] = b.shards[s].clone();
        // Runs of stripes share an erasure pattern (one launch), others differ.
        if (s % 7 >= 4) {
          shards[s][s % 7 - 2] = null;
        }
        if (s == 29) {
          shards[s][0] = null;
          shards[s][11] = null;
        }
        for (int t : targets) {
          b.scramble(s, t, rnd);
        }
      }
      codec.reconstructBatch(shards, targets);
      for (int s = 0; s < 30; s++) {
        for (int t : targets) {
          assertArrayEquals(want[s][t], b.get(s, t), "stripe " + s + " shard " + t);
        }
      }
    }
  }

  @Test
  void aStripeTooBigForTheCapFailsBeforeAnyByteIsWritten() {
    Random rnd = new Random(24);
    CodecGeometry g = CodecGeometry.reedSolomon(10, 4);
    try (GpuParityCodec codec = new GpuParityCodec(g, TINY, driver)) {
      // Stripe 0 fits; stripe 1 (14 shards of 4096 bytes) does not fit 28 KiB.
      RandomBatch b = new RandomBatch(g, new int[] {100, 4096}, rnd);
      byte[] before = b.get(0, g.k());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> codec.encodeBatch(b.data(), b.parity()));
      assertTrue(e.getMessage().contains("a stripe of rs:10+4 needs 57344 bytes of device memory"),
          e.getMessage());
      assertTrue(e.getMessage().contains("each of the 2 streams may stage 28672"), e.getMessage());
      assertTrue(e.getMessage().contains("memoryCap 65536"), e.getMessage());
      assertArrayEquals(before, b.get(0, g.k()), "stripe 0 was written");
      assertTrue(driver.log().stream().noneMatch(op -> op.kind() == EmulatedCudaDriver.Kind.LAUNCH));
      // A single-stripe call says the same.
      assertThrows(IllegalArgumentException.class,
          () -> codec.encode(b.data()[1], b.parity()[1]));
    }
  }

  @Test
  void updateParityOnTheGpuEqualsReencoding() {
    Random rnd = new Random(25);
    CodecGeometry g = CodecGeometry.reedSolomon(5, 3);
    try (GpuParityCodec codec = new GpuParityCodec(g, TINY, driver)) {
      RandomBatch b = RandomBatch.sameLength(g, 1, 1234, rnd);
      codec.encodeBatch(b.data(), b.parity());
      byte[] newData = new byte[1234];
      rnd.nextBytes(newData);
      codec.updateParity(2, b.shards[0][2], ByteBuffer.wrap(newData), b.parity()[0]);
      b.shards[0][2].duplicate().put(newData);
      assertParityIsCpus(b);
    }
  }

  @Test
  void zeroLengthAndEmptyBatchesLaunchNothing() {
    CodecGeometry g = CodecGeometry.raid6(4);
    try (GpuParityCodec codec = new GpuParityCodec(g, TINY, driver)) {
      RandomBatch b = new RandomBatch(g, new int[] {0, 0, 0}, new Random(26));
      codec.encodeBatch(b.data(), b.parity());
      codec.encodeBatch(new ByteBuffer[0][], new ByteBuffer[0][]);
      assertTrue(driver.log().stream().noneMatch(op -> op.kind() == EmulatedCudaDriver.Kind.LAUNCH));
    }
  }

  private static void assertParityIsCpus(RandomBatch b) {
    for (int s = 0; s < b.lens.length; s++) {
      byte[][] want = b.cpuParity(s);
      for (int r = 0; r < b.g.m(); r++) {
        assertArrayEquals(want[r], b.get(s, b.g.k() + r),
            b.g + " stripe " + s + " (" + b.lens[s] + " bytes) parity " + r);
      }
    }
  }
}
