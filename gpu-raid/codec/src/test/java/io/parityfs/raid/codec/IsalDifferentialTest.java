package io.parityfs.raid.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.parityfs.raid.codec.Stripe.Memory;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.gpu.Executables;
import io.parityfs.testkit.SystemDeps;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A differential test against Intel ISA-L itself, beyond the 22 fixed vectors: random geometries
 * (RAID-5, RAID-6 and Reed-Solomon, k + m up to 32), random lengths and random data, seeded;
 * our CPU codec's parity (both kernels) must equal ISA-L's byte for byte ({@code xor_gen},
 * {@code pq_gen}, {@code gf_gen_cauchy1_matrix} + {@code ec_encode_data}), and our
 * reconstruction of random erasures must equal ISA-L's decode (gf_invert_matrix on the
 * survivors' rows). ISA-L runs in gpu-raid/codec/src/test/native/isal_ref.c, compiled with gcc
 * at test time into target/isal-ref.
 *
 * <p>Needs gcc and ISA-L's headers and library (Debian: {@code libisal-dev}); skipped with the
 * reason without them, failed instead where {@code -Dparityfs.requireSystemDeps=true} (CI).
 * {@code -Dparityfs.isal.seed=N} replays another seed.
 */
class IsalDifferentialTest {
  private static final Path SOURCE = Path.of("src/test/native/isal_ref.c");
  private static final Path BUILD_DIR = Path.of("target", "isal-ref");
  private static final int MAX_SHARDS = 32;
  private static final long SEED = Long.getLong("parityfs.isal.seed", 0x15A1_2026L);
  private static final int ENCODE = 1;
  private static final int DECODE = 2;

  private static Process helper;
  private static OutputStream toHelper;
  private static DataInputStream fromHelper;
  private static Path helperErrors;
  /** Why every test skips (a missing system dependency), or null. */
  private static String skipped;

  @BeforeAll
  static void compileAndStart() throws Exception {
    Path gcc = Executables.onPath("gcc").orElse(null);
    skipped = SystemDeps.missing("gcc", gcc != null, "gcc is not on the PATH: ISA-L's"
        + " reference helper cannot be built, so IsalDifferentialTest is skipped");
    if (skipped != null) {
      return;
    }
    Files.createDirectories(BUILD_DIR);
    Path binary = BUILD_DIR.resolve("isal_ref");
    Path tmp = BUILD_DIR.resolve("isal_ref." + ProcessHandle.current().pid() + ".tmp");
    List<String> cmd = List.of(gcc.toString(), "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror",
        "-o", tmp.toString(), SOURCE.toString(), "-lisal");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("gcc did not finish in 120 s: " + String.join(" ", cmd));
    }
    boolean isalMissing = out.contains("isa-l/") && out.contains("No such file")
        || out.contains("cannot find -lisal");
    skipped = SystemDeps.missing("isal", p.exitValue() == 0 || !isalMissing, "ISA-L's headers"
        + " or library are not installed (apt-get install libisal-dev), so IsalDifferentialTest"
        + " is skipped");
    if (skipped != null) {
      return;
    }
    if (p.exitValue() != 0) {
      throw new AssertionError("gcc failed on " + SOURCE + ":\n" + String.join(" ", cmd)
          + "\n" + out);
    }
    Files.move(tmp, binary, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    helperErrors = BUILD_DIR.resolve("isal_ref.stderr");
    helper = new ProcessBuilder(binary.toAbsolutePath().toString())
        .redirectError(helperErrors.toFile()).start();
    toHelper = helper.getOutputStream();
    fromHelper = new DataInputStream(helper.getInputStream());
  }

  @BeforeEach
  void skipWithoutIsal() {
    SystemDeps.skipIf(skipped);
  }

  @AfterAll
  static void stop() throws Exception {
    if (helper != null) {
      toHelper.close();
      if (!helper.waitFor(30, TimeUnit.SECONDS)) {
        helper.destroyForcibly();
      }
      assertEquals(0, helper.exitValue(), "isal_ref exit status; " + errors());
    }
  }

  @Test
  void randomGeometriesEncodeAndDecodeLikeIsal() throws Exception {
    Random rnd = new Random(SEED);
    int cases = 0;
    for (int c = 0; c < 240; c++) {
      CodecGeometry g = randomGeometry(rnd);
      int len = randomLength(rnd);
      String what = g + " len " + len + " (case " + c + ", -Dparityfs.isal.seed=" + SEED + ")";
      Memory memory = Memory.values()[rnd.nextInt(Memory.values().length)];
      Stripe s = new Stripe(g, len, memory, rnd);
      byte[][] data = new byte[g.k()][];
      for (int i = 0; i < g.k(); i++) {
        data[i] = s.get(i);
      }
      byte[][] isalParity = isalEncode(g, len, data);
      for (CpuParityCodec.Kernels kernels : CpuParityCodec.Kernels.values()) {
        if (kernels == CpuParityCodec.Kernels.AUTO) {
          continue;
        }
        ParityCodec codec = codecOrNull(g, kernels);
        if (codec == null) {
          continue;
        }
        for (int p = g.k(); p < g.shards(); p++) {
          s.scramble(p, rnd);
        }
        codec.encode(s.data(), s.parity());
        for (int p = 0; p < g.m(); p++) {
          assertArrayEquals(isalParity[p], s.get(g.k() + p),
              what + " parity " + p + " on " + codec.implementation());
        }
        assertNull(s.damage(), what);
      }

      byte[][] all = new byte[g.shards()][];
      for (int i = 0; i < g.shards(); i++) {
        all[i] = s.get(i);
      }
      for (int d = 0; d < 2; d++) {
        int[] erased = randomErasures(g, rnd);
        byte[][] isalRestored = isalDecode(g, len, all, erased, rnd);
        for (int e = 0; e < erased.length; e++) {
          assertArrayEquals(all[erased[e]], isalRestored[e],
              what + ": ISA-L's own decode of shard " + erased[e] + " of "
                  + Arrays.toString(erased));
        }
        ParityCodec codec = CpuParityCodec.create(g);
        for (int e : erased) {
          s.scramble(e, rnd);
        }
        codec.reconstruct(s.shards.clone(), erased);
        for (int e = 0; e < erased.length; e++) {
          assertArrayEquals(isalRestored[e], s.get(erased[e]),
              what + " restored shard " + erased[e] + " of " + Arrays.toString(erased)
                  + " on " + codec.implementation());
        }
        assertNull(s.damage(), what);
      }
      cases++;
    }
    assertEquals(240, cases);
  }

  /** The helper answers what it was asked about, not a default: a check of the harness. */
  @Test
  void theHarnessSeesADifferentParity() throws Exception {
    CodecGeometry g = CodecGeometry.reedSolomon(3, 2);
    byte[][] data = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    byte[][] p1 = isalEncode(g, 3, data);
    data[1][1] ^= 1;
    byte[][] p2 = isalEncode(g, 3, data);
    assertEquals(false, Arrays.equals(p1[0], p2[0]) && Arrays.equals(p1[1], p2[1]),
        "one flipped data bit changes ISA-L's parity");
  }

  // ---- the geometries ------------------------------------------------------------------------

  private static CodecGeometry randomGeometry(Random rnd) {
    switch (rnd.nextInt(4)) {
      case 0:
        return CodecGeometry.raid5(2 + rnd.nextInt(MAX_SHARDS - 2)); // k+1 <= 32
      case 1:
        return CodecGeometry.raid6(2 + rnd.nextInt(MAX_SHARDS - 3)); // k+2 <= 32
      default:
        int k = 1 + rnd.nextInt(MAX_SHARDS - 1);
        int m = 1 + rnd.nextInt(MAX_SHARDS - k);
        return CodecGeometry.reedSolomon(k, m);
    }
  }

  /** Mostly short and odd (every vector tail), some a few pages, a few over 64 KiB. */
  private static int randomLength(Random rnd) {
    int r = rnd.nextInt(10);
    if (r < 4) {
      return 1 + rnd.nextInt(130);
    }
    if (r < 9) {
      return 1 + rnd.nextInt(9000);
    }
    return 65536 + rnd.nextInt(5000);
  }

  /** 1..m distinct shards, data and parity alike, in random order. */
  private static int[] randomErasures(CodecGeometry g, Random rnd) {
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < g.shards(); i++) {
      all.add(i);
    }
    java.util.Collections.shuffle(all, rnd);
    int n = 1 + rnd.nextInt(g.m());
    return all.subList(0, n).stream().mapToInt(Integer::intValue).toArray();
  }

  private static ParityCodec codecOrNull(CodecGeometry g, CpuParityCodec.Kernels kernels) {
    try {
      return CpuParityCodec.create(g, kernels);
    } catch (IllegalStateException | UnsupportedOperationException e) {
      return null; // the vector kernels without --add-modules jdk.incubator.vector
    }
  }

  // ---- the helper's protocol (isal_ref.c) ---------------------------------------------------

  private static int scheme(CodecGeometry g) {
    return switch (g.scheme()) {
      case XOR -> 0;
      case PQ -> 1;
      case RS_CAUCHY -> 2;
    };
  }

  private static byte[][] isalEncode(CodecGeometry g, int len, byte[][] data) throws IOException {
    ByteBuffer head = header(ENCODE, g, len, new int[0]);
    toHelper.write(head.array(), 0, head.position());
    for (byte[] d : data) {
      toHelper.write(d);
    }
    toHelper.flush();
    return reply(g.m(), len);
  }

  /** ISA-L's decode of {@code erased}; their blocks are sent as junk, which it must not read. */
  private static byte[][] isalDecode(CodecGeometry g, int len, byte[][] all, int[] erased,
      Random rnd) throws IOException {
    ByteBuffer head = header(DECODE, g, len, erased);
    toHelper.write(head.array(), 0, head.position());
    byte[] junk = new byte[len];
    for (int i = 0; i < g.shards(); i++) {
      int index = i;
      if (Arrays.stream(erased).anyMatch(e -> e == index)) {
        rnd.nextBytes(junk);
        toHelper.write(junk);
      } else {
        toHelper.write(all[i]);
      }
    }
    toHelper.flush();
    return reply(erased.length, len);
  }

  private static ByteBuffer header(int op, CodecGeometry g, int len, int[] erased) {
    ByteBuffer b = ByteBuffer.allocate(4 * (6 + erased.length)).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(op).putInt(scheme(g)).putInt(g.k()).putInt(g.m()).putInt(len).putInt(erased.length);
    for (int e : erased) {
      b.putInt(e);
    }
    return b;
  }

  private static byte[][] reply(int blocks, int len) throws IOException {
    try {
      byte[] status = new byte[4];
      fromHelper.readFully(status);
      assertEquals(0, ByteBuffer.wrap(status).order(ByteOrder.LITTLE_ENDIAN).getInt(),
          "isal_ref status");
      byte[][] out = new byte[blocks][len];
      for (byte[] b : out) {
        fromHelper.readFully(b);
      }
      return out;
    } catch (EOFException e) {
      throw new AssertionError("isal_ref ended: " + errors(), e);
    }
  }

  private static String errors() {
    try {
      return helperErrors == null ? "" : Files.readString(helperErrors).trim();
    } catch (IOException e) {
      return "(cannot read " + helperErrors + ": " + e + ")";
    }
  }
}
