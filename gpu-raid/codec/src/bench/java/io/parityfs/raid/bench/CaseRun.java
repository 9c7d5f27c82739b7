package io.parityfs.raid.bench;

import io.parityfs.raid.bench.Throughput.StripeCycle;
import io.parityfs.raid.bench.Throughput.StripeOp;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.report.BenchmarkJson;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Runs one {@link BenchCase}: lays out its stripes, has ParityFS encode them all (direct blocks),
 * copies the set to the heap mirror Hadoop runs on, checks sample stripes against Hadoop
 * ({@link CorrectnessCheck}), then times both sides in both regimes as {@link MeasurementPlan}
 * describes, ParityFS first. Prints one progress line per phase.
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
    ParityCodec codec = CpuParityCodec.create(c.geometry());
    HadoopCoder hadoop = HadoopCoder.forCase(c);
    StripeSet set = new StripeSet(pool, c, plan.stripes(c.k()));
    long perStripe = set.dataBytesPerStripe();
    for (int s = 0; s < set.stripes; s++) {
      codec.encode(set.data[s], set.parity[s]);
    }
    set.copyToHeap();
    for (int s : new int[] {0, set.stripes / 2, set.stripes - 1}) {
      CorrectnessCheck.check(c, set, s, codec, hadoop);
    }
    log.printf(Locale.ROOT, "  %s: %d stripes (%d MiB of data), results match Hadoop%n",
        c.id(), set.stripes, set.stripes * perStripe >> 20);

    StripeOp pfs = c.decode2()
        ? s -> codec.reconstruct(set.shards[s], BenchCase.LOST)
        : s -> codec.encode(set.data[s], set.parity[s]);
    // Each side on its faster path: Hadoop's RS coders run faster on heap arrays, its XOR coder
    // on direct buffers (it then writes the same parity ParityFS already put there).
    StripeOp had = c.decode2()
        ? s -> hadoop.decodeLost(set.hadoopInputs[s], set.hadoopOutputs[s])
        : c.hadoopXor()
            ? s -> hadoop.encode(set.data[s], set.parity[s])
            : s -> hadoop.encode(set.hadoopData[s], set.hadoopParity[s]);

    StripeCycle dram = new StripeCycle(set.stripes);
    StripeCycle one = new StripeCycle(1);
    Throughput.warmUp(pfs, dram, plan.warmSeconds());
    double[] pfsDram = Throughput.passes(
        pfs, dram, perStripe, plan.passes(), set.stripes, plan.dramSeconds());
    log("ParityFS dram ", pfsDram);
    double[] pfsCache = Throughput.passes(pfs, one, perStripe, plan.passes(), 1, plan.cacheSeconds());
    log("ParityFS cache", pfsCache);

    Throughput.warmUp(had, one, plan.warmSeconds());
    double[] hadCache = Throughput.passes(
        had, one, perStripe, plan.hadoopPasses(), 1, plan.cacheSeconds());
    log("Hadoop cache  ", hadCache);
    int slice = (set.stripes + MeasurementPlan.HADOOP_DRAM_SLICES - 1)
        / MeasurementPlan.HADOOP_DRAM_SLICES;
    double[] hadDram = Throughput.passes(had, new StripeCycle(set.stripes), perStripe,
        MeasurementPlan.HADOOP_DRAM_SLICES, slice, plan.hadoopDramSeconds());
    log("Hadoop dram   ", hadDram);
    return new CaseResult(c, set.stripes * perStripe, pfsDram, pfsCache, hadDram, hadCache);
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
