package io.parityfs.raid.codec.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.ParityCodecContractTest;
import io.parityfs.raid.codec.Stripe;
import io.parityfs.raid.codec.Stripe.Memory;
import io.parityfs.testkit.SystemDeps;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract suite on the ISA-L kernels (Intel ISA-L's {@code ec_encode_data} through the
 * foreign function API), which need JDK 22+: on JDK 17 every test skips with that reason, and CI
 * runs the codec tests again on JDK 25, where they must run. There a missing {@code libisal.so.2}
 * is a missing system dependency (skipped on a developer's machine, a failure in CI).
 */
class IsalCpuCodecTest extends ParityCodecContractTest {

  @BeforeEach
  void needsIsal() {
    int feature = Runtime.version().feature();
    assumeTrue(feature >= CpuParityCodec.ISAL_MIN_JDK, "the ISA-L kernels need JDK "
        + CpuParityCodec.ISAL_MIN_JDK + "+ (the foreign function API); this is JDK " + feature
        + ", CI runs these tests again on JDK 25");
    String reason = CpuParityCodec.isalUnavailableReason();
    SystemDeps.assume("isal", reason == null || !reason.contains("dynamic linker"),
        "ISA-L's library is not installed (apt-get install libisal2), so IsalCpuCodecTest is"
            + " skipped: " + reason);
    assertNull(reason, "ISA-L is installed but its kernels did not load");
  }

  @Override
  protected ParityCodec codec(CodecGeometry g) {
    return CpuParityCodec.create(g, CpuParityCodec.Kernels.ISAL);
  }

  /**
   * The contract suite's stripes are mostly heap and direct mixed, which the ISA-L kernels hand
   * to the vector kernels; here every shard is direct (with guard bytes around each window), so
   * ISA-L computes every encode and reconstruction, compared with the vector kernels on heap
   * copies.
   */
  @Test
  void directStripesEncodeAndReconstructLikeTheVectorKernels() {
    Random rnd = new Random(0x15A1);
    for (int round = 0; round < 200; round++) {
      CodecGeometry g = switch (rnd.nextInt(4)) {
        case 0 -> CodecGeometry.raid5(1 + rnd.nextInt(63));
        case 1 -> CodecGeometry.raid6(1 + rnd.nextInt(62));
        default -> {
          int m = 1 + rnd.nextInt(16);
          yield CodecGeometry.reedSolomon(1 + rnd.nextInt(64 - m), m);
        }
      };
      int len = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(200) : 1 + rnd.nextInt(70_000);
      String what = g + " len " + len + " (round " + round + ")";
      ParityCodec isal = codec(g);
      ParityCodec vector = CpuParityCodec.create(g, CpuParityCodec.Kernels.VECTOR);
      Stripe s = new Stripe(g, len, Memory.DIRECT, rnd);
      isal.encode(s.data(), s.parity());
      assertNull(s.damage(), what);
      byte[][] content = new byte[g.shards()][];
      for (int i = 0; i < g.shards(); i++) {
        content[i] = s.get(i);
      }
      Stripe heap = Stripe.of(g, content, Memory.HEAP);
      for (int p = g.k(); p < g.shards(); p++) {
        heap.scramble(p, rnd);
      }
      vector.encode(heap.data(), heap.parity());
      for (int p = g.k(); p < g.shards(); p++) {
        assertArrayEquals(heap.get(p), content[p], what + " parity " + (p - g.k()));
      }

      int lost = 1 + rnd.nextInt(g.m());
      TreeSet<Integer> erased = new TreeSet<>();
      while (erased.size() < lost) {
        erased.add(rnd.nextInt(g.shards()));
      }
      for (int e : erased) {
        s.scramble(e, rnd);
      }
      ByteBuffer[] all = new ByteBuffer[g.shards()];
      System.arraycopy(s.data(), 0, all, 0, g.k());
      System.arraycopy(s.parity(), 0, all, g.k(), g.m());
      isal.reconstruct(all, erased.stream().mapToInt(Integer::intValue).toArray());
      for (int e : erased) {
        assertArrayEquals(content[e], s.get(e), what + " restoring shard " + e + " of " + erased);
      }
      assertNull(s.damage(), what + " after the reconstruction");
    }
  }

  @Test
  void autoChoosesIsalBeforeTheVectorApi() {
    ParityCodec c = CpuParityCodec.create(CodecGeometry.reedSolomon(10, 4));
    assertTrue(c.implementation().startsWith("cpu-isal+"), c.implementation());
    assertEquals("cpu-isal+" + VectorKernels.INSTANCE.name().substring("cpu-".length()),
        c.implementation(), "ISA-L beside the Vector API kernels");
  }

  /** A library that is not there: the kernels are unavailable with the reason, AUTO falls back. */
  @Test
  void aMissingLibraryFallsBackToTheVectorApiWithTheReason() throws Exception {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    Process p = new ProcessBuilder(List.of(java, "--add-modules", "jdk.incubator.vector",
            "--enable-native-access=ALL-UNNAMED",
            "-D" + CpuParityCodec.ISAL_LIBRARY_PROPERTY + "=libisal-not-here.so.9",
            "-cp", System.getProperty("java.class.path"), IsalFallbackProbe.class.getName()))
        .redirectErrorStream(true)
        .start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("does not use ISA-L: ISA-L (libisal-not-here.so.9) did not load:"
        + " libisal-not-here.so.9 was not found by the dynamic linker"), "the reason is logged: " + out);
    assertTrue(out.contains("kernels isal: ISA-L kernels unavailable: ISA-L (libisal-not-here.so.9)"),
        "asking for ISA-L by name fails with the reason: " + out);
    String last = out.strip().lines().reduce((a, b) -> b).orElse("");
    assertEquals(VectorKernels.INSTANCE.name() + " unavailable", last, out);
  }

  @Test
  void thePropertyNamesIsalAndRefusesWhatItDoesNotKnow() {
    System.setProperty(CpuParityCodec.KERNELS_PROPERTY, "isal");
    try {
      assertTrue(CpuParityCodec.create(CodecGeometry.raid6(4)).implementation().startsWith("cpu-isal+"));
      System.setProperty(CpuParityCodec.KERNELS_PROPERTY, "isa-l");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CpuParityCodec.create(CodecGeometry.raid5(3)));
      assertTrue(e.getMessage().contains("must be auto, isal, vector or scalar"), e.getMessage());
    } finally {
      System.clearProperty(CpuParityCodec.KERNELS_PROPERTY);
    }
  }
}
