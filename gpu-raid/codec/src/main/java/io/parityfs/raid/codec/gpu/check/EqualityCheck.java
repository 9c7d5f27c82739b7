package io.parityfs.raid.codec.gpu.check;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.gpu.CudaDriver;
import io.parityfs.raid.codec.gpu.GpuParityCodec;
import io.parityfs.raid.codec.gpu.GpuShare;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The self-check's first half: for one geometry, on random data, the GPU codec must compute the
 * CPU codec's bytes. One batch of stripes of odd lengths (one empty, two spanning many pipeline
 * chunks' worth of words) in windows of heap and direct buffers:
 *
 * <ul>
 *   <li>{@code encodeBatch} at the default share and at burst == CPU {@code encode};
 *   <li>{@code reconstructBatch} restores every erasure pattern of 1..m shards (data and parity;
 *       a random sample for big geometries, see {@link ErasurePatterns}) byte for byte, with an
 *       extra unavailable shard in every other stripe when the pattern leaves room (so the
 *       stripes of one batch use different survivor sets), alternating default share and burst;
 *   <li>{@code updateParity} (whole shards and a sub-range) == CPU {@code updateParity};
 *   <li>{@code encodeOnDevice} and {@code reconstructOnDevice} on device memory, the same.
 * </ul>
 *
 * Not thread-safe; one instance per run.
 */
final class EqualityCheck {
  /** The six throughput geometries, small ones, and the largest shape (k + m = 64). */
  static final List<CodecGeometry> GEOMETRIES = List.of(
      CodecGeometry.raid5(4), CodecGeometry.raid6(4), CodecGeometry.reedSolomon(4, 2),
      CodecGeometry.raid5(15), CodecGeometry.raid6(14), CodecGeometry.reedSolomon(8, 2),
      CodecGeometry.reedSolomon(6, 3), CodecGeometry.reedSolomon(10, 4),
      CodecGeometry.reedSolomon(32, 32));

  /** Stripe lengths of the batch; the first {@link #SWEEP_STRIPES} run every erasure pattern. */
  static final int[] LENGTHS = {4099, 13, 1, 1031, 4096, 0, 65537, 131075};
  static final int SWEEP_STRIPES = 5;
  private static final int PAD = 7;

  /** What one geometry's check found. */
  record Result(CodecGeometry geometry, int patterns, BigInteger allPatterns, int updates,
      int residentPatterns, Mismatches mismatches) {
    boolean ok() {
      return mismatches.count() == 0;
    }

    /** One line: "rs:10+4  encode ok, 1470 of 1470 erasure patterns, 4 updates, ...: ok". */
    String summary() {
      String pats = BigInteger.valueOf(patterns).equals(allPatterns)
          ? patterns + " of " + patterns + " erasure patterns (all)"
          : patterns + " of " + count(allPatterns) + " erasure patterns (random sample)";
      return String.format("%-10s %d stripes encoded (default share and burst), %s rebuilt, "
          + "%d updates, device-resident encode and %d patterns: %s", geometry, LENGTHS.length,
          pats, updates, residentPatterns,
          ok() ? "CPU == GPU" : "MISMATCH (" + mismatches.count() + ")");
    }
  }

  /** 1470, or 1.01e19 for counts beyond a million. */
  static String count(BigInteger n) {
    return n.bitLength() <= 20 ? n.toString()
        : String.format(Locale.ROOT, "%.3g", n.doubleValue());
  }

  /** The first few mismatches in words, and how many there were. */
  static final class Mismatches {
    static final int KEEP = 8;
    private final List<String> first = new ArrayList<>();
    private int count;

    void add(String what) {
      count++;
      if (first.size() < KEEP) {
        first.add(what);
      }
    }

    int count() {
      return count;
    }

    List<String> first() {
      return List.copyOf(first);
    }
  }

  private final CudaDriver driver;
  private final GpuShare share;
  private final SelfCheckSizes sizes;
  private final long seed;

  EqualityCheck(CudaDriver driver, GpuShare share, SelfCheckSizes sizes, long seed) {
    this.driver = driver;
    this.share = share;
    this.sizes = sizes;
    this.seed = seed;
  }

  Result check(CodecGeometry g) {
    Random rnd = new Random(seed ^ (g.k() * 131L + g.m()) ^ g.scheme().ordinal() * 7919L);
    Mismatches bad = new Mismatches();
    List<Long> patterns = ErasurePatterns.choose(g.k(), g.m(), sizes.exhaustiveLimit(),
        sizes.samplePatterns(), rnd);
    int patternsRun = 0;
    int updates = 0;
    int residentRun = 0;
    CpuParityCodec cpu = CpuParityCodec.create(g);
    try (GpuParityCodec gpu = new GpuParityCodec(g, share, driver)) {
      int n = LENGTHS.length;
      ByteBuffer[][] orig = new ByteBuffer[n][g.shards()];
      for (int s = 0; s < n; s++) {
        for (int i = 0; i < g.shards(); i++) {
          orig[s][i] = window(LENGTHS[s], (s + i) % 2 == 0, rnd);
        }
        cpu.encode(Arrays.copyOfRange(orig[s], 0, g.k()),
            Arrays.copyOfRange(orig[s], g.k(), g.shards()));
      }
      String step = "encodeBatch";
      try {
        for (boolean burst : new boolean[] {false, true}) {
          gpu.setBurst(burst);
          ByteBuffer[][] data = new ByteBuffer[n][];
          ByteBuffer[][] parity = new ByteBuffer[n][g.m()];
          for (int s = 0; s < n; s++) {
            data[s] = Arrays.copyOfRange(orig[s], 0, g.k());
            for (int r = 0; r < g.m(); r++) {
              parity[s][r] = window(LENGTHS[s], (s + r) % 2 == 1, rnd);
            }
          }
          gpu.encodeBatch(data, parity);
          for (int s = 0; s < n; s++) {
            for (int r = 0; r < g.m(); r++) {
              compare("encode" + (burst ? " (burst)" : "") + " stripe " + s + " parity " + r,
                  orig[s][g.k() + r], parity[s][r], bad);
            }
          }
        }
        step = "reconstructBatch";
        ByteBuffer[][] scratch = new ByteBuffer[SWEEP_STRIPES][g.shards()];
        for (int s = 0; s < SWEEP_STRIPES; s++) {
          for (int i = 0; i < g.shards(); i++) {
            scratch[s][i] = window(LENGTHS[s], (s + i) % 2 == 1, rnd);
          }
        }
        for (long mask : patterns) {
          int[] targets = ErasurePatterns.shards(mask);
          gpu.setBurst(patternsRun % 2 == 1);
          ByteBuffer[][] shards = new ByteBuffer[SWEEP_STRIPES][];
          for (int s = 0; s < SWEEP_STRIPES; s++) {
            shards[s] = orig[s].clone();
            for (int t : targets) {
              junk(scratch[s][t]);
              shards[s][t] = scratch[s][t];
            }
            if (s % 2 == 1 && targets.length < g.m()) {
              int j;
              do {
                j = rnd.nextInt(g.shards());
              } while ((mask & (1L << j)) != 0);
              shards[s][j] = null;
            }
          }
          gpu.reconstructBatch(shards, targets);
          for (int s = 0; s < SWEEP_STRIPES; s++) {
            for (int t : targets) {
              compare("rebuild of shards " + Arrays.toString(targets) + " stripe " + s
                  + " shard " + t, orig[s][t], scratch[s][t], bad);
            }
          }
          patternsRun++;
        }
        gpu.setBurst(false);
        step = "updateParity";
        for (int s : new int[] {0, 3, 6, 7}) {
          int i = rnd.nextInt(g.k());
          int from = s == 6 ? 1001 : 0;
          int len = s == 6 ? 30001 : LENGTHS[s];
          ByteBuffer old = range(orig[s][i], from, len);
          ByteBuffer fresh = window(len, s % 2 == 0, rnd);
          ByteBuffer[] want = new ByteBuffer[g.m()];
          ByteBuffer[] got = new ByteBuffer[g.m()];
          for (int r = 0; r < g.m(); r++) {
            want[r] = copy(range(orig[s][g.k() + r], from, len), true);
            got[r] = copy(range(orig[s][g.k() + r], from, len), r % 2 == 0);
          }
          cpu.updateParity(i, old, fresh, want);
          gpu.updateParity(i, old, fresh, got);
          for (int r = 0; r < g.m(); r++) {
            compare("updateParity of data shard " + i + " stripe " + s + " bytes " + from + ".."
                + (from + len) + " parity " + r, want[r], got[r], bad);
          }
          updates++;
        }
        step = "device-resident";
        residentRun = new ResidentCheck(driver).run(g, gpu, cpu, patterns, rnd, bad);
      } catch (RuntimeException e) {
        bad.add(step + " failed: " + e);
      }
    } catch (RuntimeException e) {
      bad.add("the GPU codec failed: " + e);
    }
    return new Result(g, patternsRun, ErasurePatterns.count(g.shards(), g.m()), updates,
        residentRun, bad);
  }

  static void compare(String what, ByteBuffer want, ByteBuffer got, Mismatches bad) {
    int at = want.duplicate().mismatch(got.duplicate());
    if (at >= 0) {
      int len = want.remaining();
      bad.add(what + " (" + len + " bytes): " + (at >= len || at >= got.remaining()
          ? "lengths differ"
          : String.format("first difference at byte %d: cpu 0x%02x, gpu 0x%02x", at,
              want.get(want.position() + at) & 0xff, got.get(got.position() + at) & 0xff)));
    }
  }

  /** {@code len} random bytes at position {@value #PAD} of a larger heap or direct buffer. */
  private static ByteBuffer window(int len, boolean direct, Random rnd) {
    byte[] b = new byte[len + 2 * PAD];
    rnd.nextBytes(b);
    ByteBuffer buf = direct ? ByteBuffer.allocateDirect(b.length) : ByteBuffer.allocate(b.length);
    buf.put(0, b);
    return buf.position(PAD).limit(PAD + len);
  }

  private static ByteBuffer range(ByteBuffer b, int from, int len) {
    return b.duplicate().position(b.position() + from).limit(b.position() + from + len).slice();
  }

  private static ByteBuffer copy(ByteBuffer b, boolean direct) {
    int n = b.remaining();
    ByteBuffer c = direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
    c.put(0, b, b.position(), b.remaining());
    return c;
  }

  private static final byte[] JUNK = new byte[256];

  static {
    for (int i = 0; i < JUNK.length; i++) {
      JUNK[i] = (byte) (0xa5 ^ i * 37);
    }
  }

  /** Overwrites a window with a junk pattern, so that a shard the GPU did not write shows. */
  private static void junk(ByteBuffer b) {
    for (int o = 0; o < b.remaining(); o += JUNK.length) {
      b.put(b.position() + o, JUNK, 0, Math.min(JUNK.length, b.remaining() - o));
    }
  }
}
