package io.parityfs.raid.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.parityfs.raid.codec.Stripe.Memory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ParityCodec} owes: byte-exact ISA-L parity, reconstruction of every
 * erasure pattern, delta updates equal to re-encoding, untouched buffer state, and clear errors.
 * One small subclass per implementation supplies {@link #codec(CodecGeometry)}.
 */
public abstract class ParityCodecContractTest {

  /** The codec under test for a geometry. */
  protected abstract ParityCodec codec(CodecGeometry g);

  /** Lengths that cross every vector width and tail case. */
  private static final int[] LENGTHS = {1, 15, 16, 17, 63, 64, 65, 127, 200, 4096 + 13};

  // ---- known answers -------------------------------------------------------------------------

  /** One ISA-L vector file: geometry and the k+m blocks it holds. */
  record IsalVector(String file, CodecGeometry geometry, byte[][] blocks) {}

  /** Where the vectors live on the test class path (gpu-raid/codec/src/test/resources). */
  static final String VECTORS_RESOURCE = "/vectors/isal/";

  /**
   * The 22 vectors listed in manifest.tsv, read from the test class path, or from the folder
   * {@code -Dparityfs.vectors.dir} names when that is set (another copy, e.g. CI's).
   */
  static List<IsalVector> isalVectors() throws IOException {
    String dir = System.getProperty("parityfs.vectors.dir", "");
    List<IsalVector> out = new ArrayList<>();
    for (String line : new String(vectorFile(dir, "manifest.tsv"), StandardCharsets.UTF_8)
        .split("\n")) {
      String[] f = line.split("\t");
      if (f[0].isBlank() || f[0].equals("file")) {
        continue;
      }
      int k = Integer.parseInt(f[2]);
      int m = Integer.parseInt(f[3]);
      int len = Integer.parseInt(f[4].trim());
      CodecGeometry g = switch (f[1]) {
        case "xor" -> CodecGeometry.raid5(k);
        case "pq" -> CodecGeometry.raid6(k);
        case "cauchy" -> CodecGeometry.reedSolomon(k, m);
        default -> throw new AssertionError("unknown scheme in manifest: " + f[1]);
      };
      byte[] all = vectorFile(dir, f[0]);
      assertEquals((k + m) * len, all.length, f[0] + " size");
      byte[][] blocks = new byte[k + m][];
      for (int i = 0; i < k + m; i++) {
        blocks[i] = java.util.Arrays.copyOfRange(all, i * len, (i + 1) * len);
      }
      out.add(new IsalVector(f[0], g, blocks));
    }
    assertEquals(22, out.size(), "vectors listed in manifest.tsv");
    return out;
  }

  /** One file of the vectors: from {@code dir} when not empty, else from the class path. */
  private static byte[] vectorFile(String dir, String name) throws IOException {
    if (!dir.isEmpty()) {
      Path file = Path.of(dir).resolve(name);
      if (!Files.isRegularFile(file)) {
        fail("ISA-L vector file " + file.toAbsolutePath() + " not found (-Dparityfs.vectors.dir="
            + dir + ")");
      }
      return Files.readAllBytes(file);
    }
    try (InputStream in = ParityCodecContractTest.class.getResourceAsStream(
        VECTORS_RESOURCE + name)) {
      if (in == null) {
        fail("ISA-L vector " + VECTORS_RESOURCE + name + " is not on the test class path"
            + " (gpu-raid/codec/src/test/resources" + VECTORS_RESOURCE + ")");
      }
      return in.readAllBytes();
    }
  }

  @Test
  void encodeReproducesEveryIsalVectorByteForByte() throws IOException {
    for (IsalVector v : isalVectors()) {
      for (Memory mem : Memory.values()) {
        Stripe s = Stripe.of(v.geometry(), v.blocks(), mem);
        for (int p = v.geometry().k(); p < v.geometry().shards(); p++) {
          s.scramble(p, new Random(p));
        }
        codec(v.geometry()).encode(s.data(), s.parity());
        for (int p = v.geometry().k(); p < v.geometry().shards(); p++) {
          assertArrayEquals(v.blocks()[p], s.get(p), v.file() + " parity " + p + " " + mem);
        }
        assertNull(s.damage(), v.file());
      }
    }
  }

  @Test
  void everyIsalVectorIsRestoredFromAnyKSurvivors() throws IOException {
    Random rnd = new Random(11);
    for (IsalVector v : isalVectors()) {
      CodecGeometry g = v.geometry();
      List<long[]> patterns = erasurePatterns(g, 40, rnd);
      for (long[] p : patterns) {
        Stripe s = Stripe.of(g, v.blocks(), Memory.MIXED);
        checkRestore(g, s, p[0], v.blocks(), rnd, v.file());
      }
    }
  }

  // ---- reconstruction -----------------------------------------------------------------------

  @Test
  void everyErasurePatternOfSmallGeometriesIsRestored() {
    Random rnd = new Random(1);
    for (CodecGeometry g : List.of(
        CodecGeometry.raid5(2), CodecGeometry.raid5(5), CodecGeometry.raid6(2),
        CodecGeometry.raid6(4), CodecGeometry.raid6(6), CodecGeometry.reedSolomon(1, 1),
        CodecGeometry.reedSolomon(4, 2), CodecGeometry.reedSolomon(6, 3),
        CodecGeometry.reedSolomon(5, 4), CodecGeometry.reedSolomon(8, 3))) {
      for (int len : new int[] {1, 65, 300}) {
        Stripe s = new Stripe(g, len, Memory.MIXED, rnd);
        codec(g).encode(s.data(), s.parity());
        byte[][] want = contents(s);
        for (long[] p : erasurePatterns(g, Integer.MAX_VALUE, rnd)) {
          checkRestore(g, s, p[0], want, rnd, g + " len " + len);
        }
      }
    }
  }

  @Test
  void randomErasuresOfLargeGeometriesAreRestored() {
    Random rnd = new Random(2);
    for (CodecGeometry g : List.of(
        CodecGeometry.raid5(63), CodecGeometry.raid6(62), CodecGeometry.reedSolomon(48, 16),
        CodecGeometry.reedSolomon(60, 4), CodecGeometry.reedSolomon(10, 4),
        CodecGeometry.reedSolomon(17, 7), CodecGeometry.reedSolomon(32, 32))) {
      Stripe s = new Stripe(g, 1000, Memory.MIXED, rnd);
      codec(g).encode(s.data(), s.parity());
      byte[][] want = contents(s);
      for (long[] p : erasurePatterns(g, 25, rnd)) {
        checkRestore(g, s, p[0], want, rnd, g.toString());
      }
    }
  }

  @Test
  void survivorsBeyondKAndUnwantedMissingShardsAreHandled() {
    Random rnd = new Random(3);
    CodecGeometry g = CodecGeometry.reedSolomon(6, 3);
    Stripe s = new Stripe(g, 777, Memory.DIRECT, rnd);
    codec(g).encode(s.data(), s.parity());
    byte[][] want = contents(s);
    // Shard 2 is wanted, shard 7 is missing and not wanted: null in the array.
    ByteBuffer[] shards = s.shards.clone();
    shards[7] = null;
    s.scramble(2, rnd);
    codec(g).reconstruct(shards, new int[] {2});
    assertArrayEquals(want[2], s.get(2));
    // Nothing to restore is a no-op.
    codec(g).reconstruct(s.shards.clone(), new int[0]);
    assertArrayEquals(want[2], s.get(2));
  }

  @Test
  void everyLengthAndMemoryKindEncodesAndRestores() {
    Random rnd = new Random(4);
    for (CodecGeometry g : List.of(
        CodecGeometry.raid5(4), CodecGeometry.raid6(5), CodecGeometry.reedSolomon(7, 5))) {
      for (int len : LENGTHS) {
        byte[][] reference = null;
        for (Memory mem : Memory.values()) {
          Stripe s = new Stripe(g, len, mem, new Random(len));
          codec(g).encode(s.data(), s.parity());
          assertNull(s.damage(), g + " " + len + " " + mem);
          byte[][] got = contents(s);
          if (reference == null) {
            reference = got;
          } else {
            for (int i = 0; i < got.length; i++) {
              assertArrayEquals(reference[i], got[i], g + " " + len + " " + mem);
            }
          }
          long pattern = randomPattern(g, rnd);
          checkRestore(g, s, pattern, got, rnd, g + " " + len + " " + mem);
        }
      }
    }
  }

  @Test
  void readOnlyInputsAreAccepted() {
    Random rnd = new Random(9);
    for (Memory mem : Memory.values()) {
      CodecGeometry g = CodecGeometry.reedSolomon(5, 3);
      Stripe s = new Stripe(g, 1000, mem, rnd);
      codec(g).encode(s.data(), s.parity());
      byte[][] want = contents(s);
      ByteBuffer[] data = s.data();
      for (int i = 0; i < data.length; i++) {
        data[i] = data[i].asReadOnlyBuffer();
      }
      for (int p = g.k(); p < g.shards(); p++) {
        s.scramble(p, rnd);
      }
      codec(g).encode(data, s.parity());
      ByteBuffer[] shards = s.shards.clone();
      System.arraycopy(data, 0, shards, 0, g.k());
      shards[1] = s.shards[1];
      s.scramble(1, rnd);
      codec(g).reconstruct(shards, new int[] {1});
      for (int i = 0; i < g.shards(); i++) {
        assertArrayEquals(want[i], s.get(i), mem + " shard " + i);
      }
    }
  }

  @Test
  void zeroLengthShardsAreAccepted() {
    CodecGeometry g = CodecGeometry.reedSolomon(3, 2);
    Stripe s = new Stripe(g, 0, Memory.HEAP, new Random(5));
    codec(g).encode(s.data(), s.parity());
    codec(g).reconstruct(s.shards.clone(), new int[] {0, 4});
    assertNull(s.damage());
  }

  // ---- delta update --------------------------------------------------------------------------

  @Test
  void deltaUpdateEqualsFullReencodeForEverySchemeAndIndex() {
    Random rnd = new Random(6);
    for (CodecGeometry g : List.of(
        CodecGeometry.raid5(5), CodecGeometry.raid6(6), CodecGeometry.raid6(30),
        CodecGeometry.reedSolomon(10, 4), CodecGeometry.reedSolomon(4, 5))) {
      for (int len : new int[] {1, 64, 1000}) {
        Stripe s = new Stripe(g, len, Memory.MIXED, rnd);
        ParityCodec c = codec(g);
        c.encode(s.data(), s.parity());
        for (int idx = 0; idx < g.k(); idx++) {
          byte[] oldData = s.get(idx);
          byte[] newData = new byte[len];
          rnd.nextBytes(newData);
          c.updateParity(idx, ByteBuffer.wrap(oldData), ByteBuffer.allocateDirect(len).put(newData).flip(),
              s.parity());
          s.set(idx, newData);
          Stripe fresh = Stripe.of(g, contents(s), Memory.HEAP);
          c.encode(fresh.data(), fresh.parity());
          for (int p = g.k(); p < g.shards(); p++) {
            assertArrayEquals(fresh.get(p), s.get(p), g + " idx " + idx + " len " + len);
          }
          assertNull(s.damage());
        }
      }
    }
  }

  @Test
  void deltaUpdateOfASubRange() {
    CodecGeometry g = CodecGeometry.reedSolomon(6, 3);
    Random rnd = new Random(7);
    Stripe s = new Stripe(g, 4096, Memory.DIRECT, rnd);
    ParityCodec c = codec(g);
    c.encode(s.data(), s.parity());
    // Rewrite bytes 1000..1777 of shard 3, updating only that range of parity.
    int from = 1000;
    int n = 777;
    byte[] oldData = java.util.Arrays.copyOfRange(s.get(3), from, from + n);
    byte[] newData = new byte[n];
    rnd.nextBytes(newData);
    ByteBuffer[] parityRange = new ByteBuffer[g.m()];
    for (int p = 0; p < g.m(); p++) {
      ByteBuffer b = s.shards[g.k() + p].duplicate();
      b.position(b.position() + from).limit(b.position() + n);
      parityRange[p] = b;
    }
    c.updateParity(3, ByteBuffer.wrap(oldData), ByteBuffer.wrap(newData), parityRange);
    byte[] whole = s.get(3);
    System.arraycopy(newData, 0, whole, from, n);
    s.set(3, whole);
    Stripe fresh = Stripe.of(g, contents(s), Memory.HEAP);
    c.encode(fresh.data(), fresh.parity());
    for (int p = g.k(); p < g.shards(); p++) {
      assertArrayEquals(fresh.get(p), s.get(p));
    }
  }

  // ---- bad input -----------------------------------------------------------------------------

  @Test
  void badInputIsRejectedWithTheBadValueNamed() {
    CodecGeometry g = CodecGeometry.reedSolomon(4, 2);
    ParityCodec c = codec(g);
    Stripe s = new Stripe(g, 100, Memory.HEAP, new Random(8));
    byte[][] before = contents(s);

    expect("has 3 buffers, expected 4", () -> c.encode(java.util.Arrays.copyOf(s.data(), 3), s.parity()));
    expect("parity has 1 buffers, expected 2", () -> c.encode(s.data(), new ByteBuffer[] {s.shards[4]}));
    expect("data[2] is null", () -> {
      ByteBuffer[] d = s.data();
      d[2] = null;
      c.encode(d, s.parity());
    });
    expect("data[1] has 99 bytes", () -> {
      ByteBuffer[] d = s.data();
      d[1] = d[1].duplicate().limit(d[1].limit() - 1);
      c.encode(d, s.parity());
    });
    expect("read-only", () -> {
      ByteBuffer[] p = s.parity();
      p[1] = p[1].asReadOnlyBuffer();
      c.encode(s.data(), p);
    });
    expect("also an input", () -> {
      ByteBuffer[] p = s.parity();
      p[0] = s.shards[2];
      c.encode(s.data(), p);
    });
    expect("3 shards are missing", () -> c.reconstruct(s.shards.clone(), new int[] {0, 1, 5}));
    expect("3 shards are missing", () -> {
      ByteBuffer[] sh = s.shards.clone();
      sh[3] = null;
      sh[4] = null;
      c.reconstruct(sh, new int[] {0});
    });
    expect("target shard 6 is out of range 0..5", () -> c.reconstruct(s.shards.clone(), new int[] {6}));
    expect("target shard -1", () -> c.reconstruct(s.shards.clone(), new int[] {-1}));
    expect("listed twice", () -> c.reconstruct(s.shards.clone(), new int[] {1, 1}));
    expect("has no output buffer", () -> {
      ByteBuffer[] sh = s.shards.clone();
      sh[1] = null;
      c.reconstruct(sh, new int[] {1});
    });
    expect("shards has 5 buffers, expected 6", () -> c.reconstruct(java.util.Arrays.copyOf(s.shards, 5), new int[] {0}));
    expect("same buffer as shard", () -> {
      ByteBuffer[] sh = s.shards.clone();
      sh[0] = sh[3];
      c.reconstruct(sh, new int[] {0});
    });
    expect("dataIndex (4) must be in 0..3", () -> c.updateParity(4, s.shards[0], s.shards[1], s.parity()));
    expect("newData has 50 bytes but oldData has 100", () ->
        c.updateParity(0, s.shards[0], ByteBuffer.allocate(50), s.parity()));
    expect("targets must not be null", () -> c.reconstruct(s.shards.clone(), null));
    for (int i = 0; i < before.length; i++) {
      assertArrayEquals(before[i], s.get(i), "a rejected call changed shard " + i);
    }
  }

  private static void expect(String fragment, Runnable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
    assertTrue(e.getMessage().contains(fragment), "message '" + e.getMessage() + "' lacks '" + fragment + "'");
  }

  // ---- concurrency ---------------------------------------------------------------------------

  @Test
  void oneCodecServesManyThreadsAtOnce() throws Exception {
    CodecGeometry g = CodecGeometry.reedSolomon(8, 3);
    ParityCodec c = codec(g);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int seed = t;
        futures.add(pool.submit(() -> {
          Random rnd = new Random(seed);
          for (int round = 0; round < 30; round++) {
            Stripe s = new Stripe(g, 513, Memory.MIXED, rnd);
            c.encode(s.data(), s.parity());
            byte[][] want = contents(s);
            checkRestore(g, s, randomPattern(g, rnd), want, rnd, "thread " + seed);
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** Erases the shards of {@code pattern}, restores them, checks them against {@code want}. */
  private void checkRestore(CodecGeometry g, Stripe s, long pattern, byte[][] want, Random rnd, String what) {
    int[] targets = new int[Long.bitCount(pattern)];
    long rest = pattern;
    for (int i = 0; i < targets.length; i++) {
      targets[i] = Long.numberOfTrailingZeros(rest);
      rest &= rest - 1;
      s.scramble(targets[i], rnd);
    }
    // Present the targets in a shuffled order: the result must not depend on it.
    for (int i = targets.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = targets[i];
      targets[i] = targets[j];
      targets[j] = t;
    }
    codec(g).reconstruct(s.shards.clone(), targets);
    for (int t : targets) {
      assertArrayEquals(want[t], s.get(t), what + " restoring " + java.util.Arrays.toString(targets));
    }
    assertNull(s.damage(), what);
  }

  private static byte[][] contents(Stripe s) {
    byte[][] c = new byte[s.shards.length][];
    for (int i = 0; i < c.length; i++) {
      c[i] = s.get(i);
    }
    return c;
  }

  private static long randomPattern(CodecGeometry g, Random rnd) {
    int count = 1 + rnd.nextInt(g.m());
    long mask = 0;
    while (Long.bitCount(mask) < count) {
      mask |= 1L << rnd.nextInt(g.shards());
    }
    return mask;
  }

  /** All patterns of 1..m erasures when there are at most {@code limit}, else that many random ones. */
  private static List<long[]> erasurePatterns(CodecGeometry g, int limit, Random rnd) {
    List<long[]> all = new ArrayList<>();
    int n = g.shards();
    if (n <= 20) {
      for (long mask = 1; mask < 1L << n; mask++) {
        if (Long.bitCount(mask) <= g.m()) {
          all.add(new long[] {mask});
        }
      }
    }
    if (n <= 20 && all.size() <= limit) {
      return all;
    }
    List<long[]> some = new ArrayList<>();
    for (int i = 0; i < limit; i++) {
      some.add(new long[] {randomPattern(g, rnd)});
    }
    return some;
  }
}
