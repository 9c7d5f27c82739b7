package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.gpu.EmulatedCudaDriver.Kind;
import io.parityfs.raid.codec.gpu.EmulatedCudaDriver.Op;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The pipeline's use of streams, staging buffers and grids, read from the emulated driver's log. */
class StripePipelineTest {
  private final EmulatedCudaDriver driver = EmulatedCudaDriver.withSms(4);

  @AfterEach
  void noDriverMisuse() {
    assertEquals(List.of(), driver.violations());
  }

  @Test
  void chunksAlternateBetweenTheStreams() {
    CodecGeometry g = CodecGeometry.reedSolomon(10, 4);
    try (GpuParityCodec codec = new GpuParityCodec(g, GpuBatchTest.TINY, driver)) {
      RandomBatch b = RandomBatch.sameLength(g, 40, 1000, new Random(31));
      codec.encodeBatch(b.data(), b.parity());
      List<Long> launchStreams = new ArrayList<>();
      for (Op op : driver.log()) {
        if (op.kind() == Kind.LAUNCH) {
          launchStreams.add(op.stream());
        }
      }
      // 28 KiB of shards per chunk and 14 x 1008 bytes per stripe: 2 stripes a chunk.
      assertEquals(20, launchStreams.size());
      assertEquals(2, new HashSet<>(launchStreams).size(), "streams used");
      for (int i = 2; i < launchStreams.size(); i++) {
        assertEquals(launchStreams.get(i % 2), launchStreams.get(i), "launch " + i);
        assertNotEquals(launchStreams.get(i - 1), launchStreams.get(i), "launch " + i);
      }
    }
  }

  @Test
  void aStagingBufferIsReusedOnlyAfterItsStreamWasSynchronised() {
    CodecGeometry g = CodecGeometry.raid6(8);
    GpuShare share = GpuBatchTest.TINY.toBuilder().streams(3).build();
    try (GpuParityCodec codec = new GpuParityCodec(g, share, driver)) {
      RandomBatch b = RandomBatch.sameLength(g, 50, 900, new Random(32));
      codec.encodeBatch(b.data(), b.parity());
      // On each stream: an upload of inputs, a launch, a download; then a synchronize before
      // that stream's staging buffer is filled (and uploaded) again.
      Map<Long, Boolean> inFlight = new HashMap<>();
      Map<Long, Long> stagingOf = new HashMap<>();
      int uploads = 0;
      for (Op op : driver.log()) {
        switch (op.kind()) {
          case COPY_TO_DEVICE -> {
            assertTrue(!inFlight.getOrDefault(op.stream(), false),
                "stream " + op.stream() + " staged again before it was synchronised");
            Long before = stagingOf.put(op.stream(), op.pinned());
            assertTrue(before == null || before == op.pinned(), "a stream changed staging buffer");
            uploads++;
          }
          case COPY_TO_HOST -> inFlight.put(op.stream(), true);
          case SYNCHRONIZE -> inFlight.put(op.stream(), false);
          default -> { }
        }
      }
      assertTrue(uploads >= 10, uploads + " uploads");
      assertEquals(3, new HashSet<>(stagingOf.values()).size(), "one staging buffer per stream");
      assertTrue(inFlight.values().stream().noneMatch(x -> x), "work left in flight after the call");
    }
  }

  @Test
  void buffersArePooledAcrossCallsOfTheSameShape() {
    CodecGeometry g = CodecGeometry.reedSolomon(6, 3);
    try (GpuParityCodec codec = new GpuParityCodec(g, GpuBatchTest.TINY, driver)) {
      Random rnd = new Random(33);
      RandomBatch first = RandomBatch.sameLength(g, 24, 1500, rnd);
      codec.encodeBatch(first.data(), first.parity());
      long allocations = count(Kind.ALLOC_DEVICE) + count(Kind.ALLOC_PINNED);
      assertTrue(allocations > 0);
      driver.clearLog();
      for (int round = 0; round < 3; round++) {
        RandomBatch again = RandomBatch.sameLength(g, 24, 1500, rnd);
        codec.encodeBatch(again.data(), again.parity());
        ByteBuffer[][] shards = new ByteBuffer[24][];
        for (int s = 0; s < 24; s++) {
          shards[s] = again.shards[s].clone();
        }
        codec.reconstructBatch(shards, new int[] {0, 4});
        codec.updateParity(1, again.shards[0][1], again.shards[1][1], again.parity()[0]);
      }
      assertEquals(0, count(Kind.ALLOC_DEVICE) + count(Kind.ALLOC_PINNED),
          "allocations after the first batch");
      assertTrue(codec.pipeline().deviceBytes() <= GpuBatchTest.TINY.memoryCap());
    }
  }

  @Test
  void streamsRunAtTheLowestPriority() {
    try (GpuParityCodec codec =
        new GpuParityCodec(CodecGeometry.raid5(3), GpuShare.DEFAULT, driver)) {
      List<Op> created = driver.log().stream().filter(op -> op.kind() == Kind.CREATE_STREAM).toList();
      assertEquals(2, created.size());
      for (Op op : created) {
        assertEquals(driver.device().leastStreamPriority(), driver.streamPriority(op.stream()));
      }
      assertTrue(codec.implementation().contains("emulated GPU"));
    }
  }

  @Test
  void theCoefficientMatrixIsUploadedOncePerStream() {
    CodecGeometry g = CodecGeometry.reedSolomon(10, 4);
    try (GpuParityCodec codec = new GpuParityCodec(g, GpuBatchTest.TINY, driver)) {
      Random rnd = new Random(34);
      for (int round = 0; round < 3; round++) {
        RandomBatch b = RandomBatch.sameLength(g, 12, 1000, rnd);
        codec.encodeBatch(b.data(), b.parity());
      }
      long matrixUploads = driver.log().stream()
          .filter(op -> op.kind() == Kind.COPY_TO_DEVICE && op.bytes() == 40).count();
      assertEquals(2, matrixUploads);
    }
  }

  @Test
  void burstWidensTheGrid() {
    CodecGeometry g = CodecGeometry.reedSolomon(4, 2);
    // 4 SMs x min(32, 2048 / 256) blocks = 32 resident blocks: 8 normally, 32 in burst.
    try (GpuParityCodec codec = new GpuParityCodec(g, GpuShare.DEFAULT, driver)) {
      RandomBatch b = RandomBatch.sameLength(g, 2, 65536, new Random(35));
      codec.encodeBatch(b.data(), b.parity());
      assertEquals(Set.of(8), launchGrids());
      driver.clearLog();
      codec.setBurst(true);
      assertTrue(codec.burst());
      codec.encodeBatch(b.data(), b.parity());
      assertEquals(Set.of(32), launchGrids());
      driver.clearLog();
      codec.setBurst(false);
      RandomBatch small = RandomBatch.sameLength(g, 1, 100, new Random(36));
      codec.encodeBatch(small.data(), small.parity());
      assertEquals(Set.of(1), launchGrids(), "28 words of work need one block");
    }
  }

  @Test
  void aCudaErrorSurfacesWithItsNameAndTheCodecRecovers() {
    CodecGeometry g = CodecGeometry.reedSolomon(6, 3);
    try (GpuParityCodec codec = new GpuParityCodec(g, GpuBatchTest.TINY, driver)) {
      Random rnd = new Random(37);
      RandomBatch b = RandomBatch.sameLength(g, 20, 1000, rnd);
      driver.failLaunchesAfter(3);
      GpuException e = assertThrows(GpuException.class,
          () -> codec.encodeBatch(b.data(), b.parity()));
      assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.cudaError());
      assertTrue(e.getMessage().contains("pfs_gf_apply"), e.getMessage());
      driver.failLaunchesAfter(-1);
      codec.encodeBatch(b.data(), b.parity());
      for (int s = 0; s < 20; s++) {
        byte[][] want = b.cpuParity(s);
        for (int r = 0; r < g.m(); r++) {
          assertArrayEquals(want[r], b.get(s, g.k() + r));
        }
      }
    }
  }

  @Test
  void closeFreesEverythingAndLaterCallsFail() {
    CodecGeometry g = CodecGeometry.raid6(4);
    GpuParityCodec codec = new GpuParityCodec(g, GpuShare.DEFAULT, driver);
    RandomBatch b = RandomBatch.sameLength(g, 3, 100, new Random(38));
    codec.encodeBatch(b.data(), b.parity());
    codec.close();
    codec.close();
    assertEquals(0, driver.deviceBytesAllocated());
    assertEquals(count(Kind.CREATE_STREAM), count(Kind.DESTROY_STREAM));
    assertEquals(count(Kind.ALLOC_PINNED), count(Kind.FREE_PINNED));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> codec.encodeBatch(b.data(), b.parity()));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
  }

  private long count(Kind kind) {
    return driver.log().stream().filter(op -> op.kind() == kind).count();
  }

  private Set<Integer> launchGrids() {
    Set<Integer> grids = new HashSet<>();
    for (Op op : driver.log()) {
      if (op.kind() == Kind.LAUNCH) {
        grids.add(op.grid());
      }
    }
    return grids;
  }
}
