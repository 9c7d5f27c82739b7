package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.ReconstructionPlan;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.gpu.HostShimRunner.Kernel;
import io.parityfs.raid.codec.gpu.HostShimRunner.Launch;
import io.parityfs.raid.gf.GfMatrix;
import io.parityfs.testkit.SystemDeps;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CUDA kernels (src/main/cuda/parity_kernels.cu), compiled with gcc through the host shim
 * and run on the CPU, produce byte for byte what the CPU codec produces, for every kernel, in
 * the batch layout and padding the GPU host code uses: several stripes per launch, shard lengths
 * that are not multiples of 16 (zero-padded to 16 bytes), and grids smaller than the work (the
 * grid-stride loop), exactly fitting, and larger than the work.
 *
 * <p>Needs gcc on the PATH (skipped, with that reason, without it); no GPU.
 */
class KernelHostShimTest {
  private static final Path MODULE_DIR = Path.of("");
  private static final Path BUILD_DIR = Path.of("target", "kernel-runner");
  private static final int[] STRIPES = {1, 3, 7};
  private static final byte[] NONE = new byte[0];
  private static final int[] NO_WORDS = new int[0];

  private static Path gcc;
  private static HostShimRunner runner;
  /** Why every test skips (no gcc), or null. */
  private static String skipped;

  @BeforeAll
  static void compileRunner() throws Exception {
    Optional<Path> found = Executables.onPath("gcc");
    skipped = SystemDeps.missing("gcc", found.isPresent(),
        "gcc is not on the PATH: the CUDA kernels cannot be compiled through the host shim, "
            + "so KernelHostShimTest is skipped");
    if (skipped != null) {
      return;
    }
    gcc = found.get();
    runner = HostShimRunner.compile(gcc, MODULE_DIR, BUILD_DIR);
  }

  @BeforeEach
  void skipWithoutGcc() {
    SystemDeps.skipIf(skipped);
  }

  @Test
  void xorMatchesRaid5Encode() throws Exception {
    Random rnd = new Random(0x5a1);
    for (int k : new int[] {1, 2, 3, 5, 16, 63}) {
      ParityCodec cpu = CpuParityCodec.create(CodecGeometry.raid5(k));
      for (int stripes : STRIPES) {
        encodeCase(cpu, Kernel.XOR, NONE, stripes, rnd);
      }
    }
  }

  @Test
  void pqMatchesRaid6Encode() throws Exception {
    Random rnd = new Random(0x5a2);
    for (int k : new int[] {1, 2, 3, 8, 20, 62}) {
      ParityCodec cpu = CpuParityCodec.create(CodecGeometry.raid6(k));
      for (int stripes : STRIPES) {
        encodeCase(cpu, Kernel.PQ, NONE, stripes, rnd);
      }
    }
  }

  /** Reed-Solomon encode with the Cauchy parity matrix, and the P+Q and XOR matrices too. */
  @Test
  void gfApplyMatchesEncode() throws Exception {
    Random rnd = new Random(0x5a3);
    List<CodecGeometry> geometries = List.of(
        CodecGeometry.reedSolomon(10, 4), CodecGeometry.reedSolomon(6, 3),
        CodecGeometry.reedSolomon(32, 32), CodecGeometry.reedSolomon(1, 1),
        CodecGeometry.reedSolomon(5, 6), CodecGeometry.raid6(7), CodecGeometry.raid5(4));
    for (CodecGeometry g : geometries) {
      ParityCodec cpu = CpuParityCodec.create(g);
      byte[] coef = bytes(g.parityMatrix());
      for (int stripes : STRIPES) {
        encodeCase(cpu, Kernel.GF_APPLY, coef, stripes, rnd);
      }
    }
  }

  /** Reconstruction matrices from ReconstructionPlan, for chosen and random erasure patterns. */
  @Test
  void gfApplyMatchesReconstruct() throws Exception {
    Random rnd = new Random(0x5a4);
    int caseNo = 0;
    for (CodecGeometry g : List.of(
        CodecGeometry.reedSolomon(10, 4), CodecGeometry.reedSolomon(6, 3),
        CodecGeometry.reedSolomon(32, 32), CodecGeometry.reedSolomon(1, 1),
        CodecGeometry.reedSolomon(5, 6), CodecGeometry.raid6(5), CodecGeometry.raid5(4))) {
      ParityCodec cpu = CpuParityCodec.create(g);
      List<long[]> patterns = new ArrayList<>();
      int k = g.k();
      int m = g.m();
      patterns.add(new long[] {range(k, k + m), 0}); // every parity shard: P+Q for RAID-6
      patterns.add(new long[] {range(0, Math.min(k, m)), 0}); // leading data shards
      patterns.add(new long[] {1L << (k - 1) | 1L << (k + m - 1), 0}); // last data + last parity
      for (int i = 0; i < 6; i++) {
        patterns.add(randomPattern(g, rnd));
      }
      for (long[] pattern : patterns) {
        if (Long.bitCount(pattern[0] | pattern[1]) > m) {
          continue; // "last data + last parity" on a 1-parity geometry
        }
        reconstructCase(cpu, pattern[0], pattern[1], STRIPES[caseNo % STRIPES.length], caseNo, rnd);
        caseNo++;
      }
    }
  }

  /** The partial-write parity delta against CpuParityCodec.updateParity. */
  @Test
  void deltaMatchesUpdateParity() throws Exception {
    Random rnd = new Random(0x5a5);
    int caseNo = 0;
    for (CodecGeometry g : List.of(
        CodecGeometry.reedSolomon(10, 4), CodecGeometry.reedSolomon(6, 3),
        CodecGeometry.reedSolomon(32, 32), CodecGeometry.reedSolomon(1, 1),
        CodecGeometry.reedSolomon(5, 6), CodecGeometry.raid6(6), CodecGeometry.raid5(4))) {
      ParityCodec cpu = CpuParityCodec.create(g);
      int[] indexes = {0, g.k() - 1, rnd.nextInt(g.k())};
      for (int dataIndex : indexes) {
        deltaCase(cpu, dataIndex, STRIPES[caseNo % STRIPES.length], caseNo, rnd);
        caseNo++;
      }
    }
  }

  /**
   * The kernels stay inside their buffers: the runner built with AddressSanitizer and
   * UndefinedBehaviorSanitizer runs each kernel on the smallest shapes (one word of one stripe,
   * lengths just past a 16-byte boundary) and with grids larger than the work.
   */
  @Test
  void kernelsStayInsideTheirBuffers() throws Exception {
    HostShimRunner checked = HostShimRunner.compile(gcc, MODULE_DIR, BUILD_DIR,
        "kernel_runner_sanitized",
        List.of("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g"));
    Random rnd = new Random(0x5a6);
    for (int len : new int[] {1, 17, 47}) {
      for (int stripes : new int[] {1, 2}) {
        CodecGeometry rs = CodecGeometry.reedSolomon(3, 5);
        int words = DeviceBatch.words(len);
        Launch wide = new Launch(4 * (words * stripes) + 5, 32);
        Launch narrow = new Launch(1, 3);
        for (Launch launch : List.of(wide, narrow)) {
          int[] in = randomWords(3 * stripes * words, rnd);
          int[] out1 = randomWords(stripes * words, rnd);
          int[] out2 = randomWords(2 * stripes * words, rnd);
          int[] out5 = randomWords(5 * stripes * words, rnd);
          checked.run(Kernel.XOR, 1, 3, words, stripes, launch, NONE, in, NO_WORDS, out1);
          checked.run(Kernel.PQ, 2, 3, words, stripes, launch, NONE, in, NO_WORDS, out2);
          checked.run(Kernel.GF_APPLY, 5, 3, words, stripes, launch, bytes(rs.parityMatrix()),
              in, NO_WORDS, out5);
          checked.run(Kernel.DELTA, 5, 1, words, stripes, launch, new byte[] {1, 2, 3, 4, 5},
              randomWords(stripes * words, rnd), randomWords(stripes * words, rnd), out5);
        }
      }
    }
  }

  /** Encodes `stripes` random stripes with the kernel under every launch shape. */
  private static void encodeCase(ParityCodec cpu, Kernel kernel, byte[] coef, int stripes,
      Random rnd) throws Exception {
    CodecGeometry g = cpu.geometry();
    int len = shardLength(rnd);
    byte[][][] data = new byte[stripes][][];
    byte[][][] expected = new byte[stripes][][];
    for (int s = 0; s < stripes; s++) {
      data[s] = randomShards(g.k(), len, rnd);
      expected[s] = encode(cpu, data[s], len);
    }
    int words = DeviceBatch.words(len);
    int[] in = DeviceBatch.pack(data, len);
    for (Launch launch : launches((long) words * stripes)) {
      // Garbage in the output: the kernel must write every word, padding included.
      int[] out = randomWords(stripes * g.m() * words, rnd);
      int[] result = runner.run(kernel, g.m(), g.k(), words, stripes, launch, coef, in, NO_WORDS,
          out);
      assertBatch(kernel + " " + g + " stripes=" + stripes + " len=" + len + " launch=" + launch,
          expected, result, g.m(), len);
    }
  }

  /** Restores `targetMask` (with `unavailableMask` absent too) through the plan's matrix. */
  private static void reconstructCase(ParityCodec cpu, long targetMask, long unavailableMask,
      int stripes, int caseNo, Random rnd) throws Exception {
    CodecGeometry g = cpu.geometry();
    int n = g.shards();
    long available = range(0, n) & ~targetMask & ~unavailableMask;
    ReconstructionPlan plan = ReconstructionPlan.compute(g, available, targetMask, m -> null);
    int[] survivors = plan.survivors();
    int[] targets = plan.targets();
    int len = shardLength(rnd);
    byte[][][] in = new byte[stripes][][];
    byte[][][] expected = new byte[stripes][][];
    for (int s = 0; s < stripes; s++) {
      byte[][] data = randomShards(g.k(), len, rnd);
      byte[][] parity = encode(cpu, data, len);
      byte[][] all = new byte[n][];
      System.arraycopy(data, 0, all, 0, g.k());
      System.arraycopy(parity, 0, all, g.k(), g.m());
      in[s] = new byte[survivors.length][];
      for (int i = 0; i < survivors.length; i++) {
        in[s][i] = all[survivors[i]];
      }
      ByteBuffer[] shards = new ByteBuffer[n];
      for (int i = 0; i < n; i++) {
        if ((available >>> i & 1) != 0) {
          shards[i] = ByteBuffer.wrap(all[i].clone());
        } else if ((targetMask >>> i & 1) != 0) {
          shards[i] = ByteBuffer.allocate(len);
        }
      }
      cpu.reconstruct(shards, targets);
      expected[s] = new byte[targets.length][];
      for (int r = 0; r < targets.length; r++) {
        expected[s][r] = shards[targets[r]].array();
      }
    }
    int words = DeviceBatch.words(len);
    List<Launch> launches = launches((long) words * stripes);
    Launch launch = launches.get(caseNo % launches.size());
    int[] out = randomWords(stripes * targets.length * words, rnd);
    int[] result = runner.run(Kernel.GF_APPLY, targets.length, g.k(), words, stripes, launch,
        bytes(plan.matrix()), DeviceBatch.pack(in, len), NO_WORDS, out);
    assertBatch("reconstruct " + g + " targets=" + Arrays.toString(targets) + " survivors="
            + Arrays.toString(survivors) + " stripes=" + stripes + " len=" + len + " launch="
            + launch, expected, result, targets.length, len);
  }

  /** Changes data shard `dataIndex` of `stripes` stripes and delta-updates their parity. */
  private static void deltaCase(ParityCodec cpu, int dataIndex, int stripes, int caseNo,
      Random rnd) throws Exception {
    CodecGeometry g = cpu.geometry();
    int m = g.m();
    int len = shardLength(rnd);
    byte[][][] oldData = new byte[stripes][1][];
    byte[][][] newData = new byte[stripes][1][];
    byte[][][] oldParity = new byte[stripes][][];
    byte[][][] expected = new byte[stripes][][];
    for (int s = 0; s < stripes; s++) {
      byte[][] data = randomShards(g.k(), len, rnd);
      oldData[s][0] = data[dataIndex];
      newData[s][0] = randomShards(1, len, rnd)[0];
      oldParity[s] = encode(cpu, data, len);
      ByteBuffer[] parity = new ByteBuffer[m];
      for (int r = 0; r < m; r++) {
        parity[r] = ByteBuffer.wrap(oldParity[s][r].clone());
      }
      cpu.updateParity(dataIndex, ByteBuffer.wrap(oldData[s][0]), ByteBuffer.wrap(newData[s][0]),
          parity);
      expected[s] = new byte[m][];
      for (int r = 0; r < m; r++) {
        expected[s][r] = parity[r].array();
      }
    }
    GfMatrix pm = g.parityMatrix();
    byte[] coef = new byte[m];
    for (int r = 0; r < m; r++) {
      coef[r] = (byte) pm.get(r, dataIndex);
    }
    int words = DeviceBatch.words(len);
    List<Launch> launches = launches((long) words * stripes);
    Launch launch = launches.get(caseNo % launches.size());
    int[] result = runner.run(Kernel.DELTA, m, 1, words, stripes, launch, coef,
        DeviceBatch.pack(oldData, len), DeviceBatch.pack(newData, len),
        DeviceBatch.pack(oldParity, len));
    assertBatch("delta " + g + " dataIndex=" + dataIndex + " stripes=" + stripes + " len=" + len
        + " launch=" + launch, expected, result, m, len);
  }

  /**
   * One thread for everything, a grid much smaller than the work, an odd small grid, a grid
   * that just covers the work, and one far larger than the work.
   */
  private static List<Launch> launches(long totalWords) {
    int fit = (int) ((totalWords + 127) / 128);
    int over = (int) (2 * ((totalWords + 63) / 64) + 3);
    return List.of(new Launch(1, 1), new Launch(2, 32), new Launch(3, 7), new Launch(fit, 128),
        new Launch(over, 64));
  }

  private static void assertBatch(String what, byte[][][] expected, int[] result, int rows,
      int len) {
    for (int s = 0; s < expected.length; s++) {
      for (int r = 0; r < rows; r++) {
        byte[] actual = DeviceBatch.shard(result, rows, len, s, r, len);
        assertArrayEquals(expected[s][r], actual, what + ": stripe " + s + " output " + r);
      }
    }
    assertTrue(DeviceBatch.paddingIsZero(result, rows, len),
        what + ": the padding words of the output are not zero");
  }

  private static byte[][] encode(ParityCodec cpu, byte[][] data, int len) {
    CodecGeometry g = cpu.geometry();
    ByteBuffer[] in = new ByteBuffer[g.k()];
    for (int j = 0; j < g.k(); j++) {
      in[j] = ByteBuffer.wrap(data[j]);
    }
    ByteBuffer[] out = new ByteBuffer[g.m()];
    for (int r = 0; r < g.m(); r++) {
      out[r] = ByteBuffer.allocate(len);
    }
    cpu.encode(in, out);
    byte[][] parity = new byte[g.m()][];
    for (int r = 0; r < g.m(); r++) {
      parity[r] = out[r].array();
    }
    return parity;
  }

  /** A shard length that is not a multiple of 16, short or up to about 1 KiB. */
  private static int shardLength(Random rnd) {
    int len;
    do {
      len = rnd.nextBoolean() ? 1 + rnd.nextInt(40) : 1 + rnd.nextInt(1100);
    } while (len % 16 == 0);
    return len;
  }

  /** `targets` and extra unavailable shards, at most m together. */
  private static long[] randomPattern(CodecGeometry g, Random rnd) {
    int n = g.shards();
    int t = 1 + rnd.nextInt(g.m());
    int u = rnd.nextInt(g.m() - t + 1);
    int[] order = shuffled(n, rnd);
    long targets = 0;
    long unavailable = 0;
    for (int i = 0; i < t; i++) {
      targets |= 1L << order[i];
    }
    for (int i = t; i < t + u; i++) {
      unavailable |= 1L << order[i];
    }
    return new long[] {targets, unavailable};
  }

  private static int[] shuffled(int n, Random rnd) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int x = a[i];
      a[i] = a[j];
      a[j] = x;
    }
    return a;
  }

  /** Bits from..to-1. */
  private static long range(int from, int to) {
    long mask = 0;
    for (int i = from; i < to; i++) {
      mask |= 1L << i;
    }
    return mask;
  }

  private static byte[] bytes(GfMatrix matrix) {
    byte[] b = new byte[matrix.rows() * matrix.cols()];
    for (int r = 0; r < matrix.rows(); r++) {
      System.arraycopy(matrix.row(r), 0, b, r * matrix.cols(), matrix.cols());
    }
    return b;
  }

  private static byte[][] randomShards(int count, int len, Random rnd) {
    byte[][] shards = new byte[count][len];
    for (byte[] shard : shards) {
      rnd.nextBytes(shard);
    }
    return shards;
  }

  private static int[] randomWords(int count, Random rnd) {
    int[] w = new int[count];
    for (int i = 0; i < count; i++) {
      w[i] = rnd.nextInt();
    }
    return w;
  }
}
