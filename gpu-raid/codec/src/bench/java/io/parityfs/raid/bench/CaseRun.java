package io.parityfs.raid.bench;

import io.parityfs.raid.bench.Throughput.StripeCycle;
import io.parityfs.raid.bench.Throughput.StripeOp;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.Scheme;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.report.BenchmarkJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs one {@link BenchCase}: lays out its stripes, has ParityFS encode them all (direct blocks),
 * copies the set to the heap mirror Hadoop runs on, checks sample stripes against Hadoop
 * ({@link CorrectnessCheck}), then times every side in both regimes as {@link MeasurementPlan}
 * describes: ParityFS on the factory's kernels, on the Vector API kernels too where the factory
 * chose ISA-L's and the case is Reed-Solomon (XOR and P+Q run on the Vector API either way), ISA-L's
 * own C loop on the Reed-Solomon encodes ({@link IsalCLoop}, checked against the codec first), and
 * Hadoop. Prints one progress line per phase.
 */
final class CaseRun {
  private final BenchCase c;
  private final MeasurementPlan plan;
  private final PrintStream log;

  CaseRun(BenchCase c, MeasurementPlan plan, PrintStream log) {
    this.c = c;
    this.plan = plan;
    this.log = log;
  }

  CaseResult run(BlockPool pool) throws IOException {
    List<ParityCodec> codecs = new ArrayList<>();
    codecs.add(CpuParityCodec.create(c.geometry()));
    boolean rs = c.geometry().scheme() == Scheme.RS_CAUCHY;
    if (rs && codecs.get(0).implementation().startsWith("cpu-isal")
        && CpuParityCodec.vectorAvailable()) {
      codecs.add(CpuParityCodec.create(c.geometry(), CpuParityCodec.Kernels.VECTOR));
    }
    HadoopCoder hadoop = HadoopCoder.forCase(c);
    StripeSet set = new StripeSet(pool, c, plan.stripes(c.k()));
    long perStripe = set.dataBytesPerStripe();
    for (ParityCodec codec : codecs) {
      for (int s = 0; s < set.stripes; s++) {
        codec.encode(set.data[s], set.parity[s]);
      }
      set.copyToHeap();
      for (int s : samples(set)) {
        CorrectnessCheck.check(c, set, s, codec, hadoop);
      }
    }
    log.printf(Locale.ROOT, "  %s: %d stripes (%d MiB of data), results of %s match Hadoop%n",
        c.id(), set.stripes, set.stripes * perStripe >> 20,
        String.join(" and ", codecs.stream().map(ParityCodec::implementation).toList()));

    List<CaseResult.Backend> backends = new ArrayList<>();
    for (ParityCodec codec : codecs) {
      backends.add(time(codec, set, perStripe));
    }
    CaseResult.Backend isalC = null;
    if (rs && !c.decode2() && IsalCLoop.unavailableReason() == null) {
      isalC = timeIsalC(set, codecs.get(0), perStripe);
    }

    // Each side on its faster path: Hadoop's RS coders run faster on heap arrays, its XOR coder
    // on direct buffers (it then writes the same parity ParityFS already put there).
    StripeOp had = c.decode2()
        ? s -> hadoop.decodeLost(set.hadoopInputs[s], set.hadoopOutputs[s])
        : c.hadoopXor()
            ? s -> hadoop.encode(set.data[s], set.parity[s])
            : s -> hadoop.encode(set.hadoopData[s], set.hadoopParity[s]);
    StripeCycle one = new StripeCycle(1);
    Throughput.warmUp(had, one, plan.warmSeconds());
    double[] hadCache = Throughput.passes(
        had, one, perStripe, plan.hadoopPasses(), 1, plan.cacheSeconds());
    log("Hadoop cache  ", hadCache);
    int slice = (set.stripes + MeasurementPlan.HADOOP_DRAM_SLICES - 1)
        / MeasurementPlan.HADOOP_DRAM_SLICES;
    double[] hadDram = Throughput.passes(had, new StripeCycle(set.stripes), perStripe,
        MeasurementPlan.HADOOP_DRAM_SLICES, slice, plan.hadoopDramSeconds());
    log("Hadoop dram   ", hadDram);
    return new CaseResult(c, set.stripes * perStripe, backends, isalC, hadDram, hadCache);
  }

  private static int[] samples(StripeSet set) {
    return new int[] {0, set.stripes / 2, set.stripes - 1};
  }

  private CaseResult.Backend time(ParityCodec codec, StripeSet set, long perStripe)
      throws IOException {
    StripeOp pfs = c.decode2()
        ? s -> codec.reconstruct(set.shards[s], BenchCase.LOST)
        : s -> codec.encode(set.data[s], set.parity[s]);
    StripeCycle dram = new StripeCycle(set.stripes);
    Throughput.warmUp(pfs, dram, plan.warmSeconds());
    String name = codec.implementation();
    double[] pfsDram = Throughput.passes(
        pfs, dram, perStripe, plan.passes(), set.stripes, plan.dramSeconds());
    log(name + " dram ", pfsDram);
    double[] pfsCache = Throughput.passes(
        pfs, new StripeCycle(1), perStripe, plan.passes(), 1, plan.cacheSeconds());
    log(name + " cache", pfsCache);
    return new CaseResult.Backend(name, pfsDram, pfsCache);
  }

  /**
   * ISA-L's C loop over the same direct stripes: first its parity of the sample stripes (zeroed
   * before) must equal the codec's, then the same passes as ParityFS's, timed in C.
   */
  private CaseResult.Backend timeIsalC(StripeSet set, ParityCodec codec, long perStripe) {
    try (IsalCLoop loop = IsalCLoop.open(c, set)) {
      for (int s : samples(set)) {
        ByteBuffer[] expected = new ByteBuffer[c.m()];
        for (int i = 0; i < c.m(); i++) {
          expected[i] = set.spare(i);
        }
        codec.encode(set.data[s], expected);
        for (ByteBuffer p : set.parity[s]) {
          for (int i = 0; i < p.capacity(); i += Long.BYTES) {
            p.putLong(i, 0L);
          }
        }
        loop.encodeNanos(s, 1, set.stripes);
        for (int i = 0; i < c.m(); i++) {
          int at = expected[i].mismatch(set.parity[s][i]);
          if (at >= 0) {
            throw new CorrectnessCheck.WrongResult(String.format(Locale.ROOT,
                "%s stripe %d: ISA-L's C loop's parity %d differs from %s's at byte %d", c.id(),
                s, i, codec.implementation(), at));
          }
        }
      }
      long warmEnd = System.nanoTime() + (long) (plan.warmSeconds() * 1e9);
      while (System.nanoTime() < warmEnd) {
        loop.encodeNanos(0, set.stripes, set.stripes);
      }
      double[] dram = passes(loop, set.stripes, set.stripes, plan.dramSeconds(), perStripe);
      log("ISA-L C loop dram ", dram);
      double[] cache = passes(loop, 1, 16, plan.cacheSeconds(), perStripe);
      log("ISA-L C loop cache", cache);
      return new CaseResult.Backend("isa-l C loop", dram, cache);
    }
  }

  /** Passes of whole sweeps of {@code cycle} stripes, {@code batch} per C call, timed in C. */
  private double[] passes(IsalCLoop loop, int cycle, int batch, double minSeconds, long perStripe) {
    long minNanos = (long) (minSeconds * 1e9);
    double[] gbps = new double[plan.passes()];
    for (int p = 0; p < gbps.length; p++) {
      long nanos = 0;
      long calls = 0;
      do {
        nanos += loop.encodeNanos(0, batch, cycle);
        calls += batch;
      } while (nanos < minNanos);
      gbps[p] = (double) calls * perStripe / nanos;
    }
    return gbps;
  }

  private void log(String what, double[] passes) {
    StringBuilder b = new StringBuilder();
    for (double p : passes) {
      b.append(' ').append(BenchmarkJson.sig3(p));
    }
    log.printf(Locale.ROOT, "  %s %s: median %s GB/s, passes%s%n", c.id(), what,
        BenchmarkJson.sig3(Throughput.median(passes)), b);
  }
}
