package io.parityfs.raid.bench;

import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.report.BenchmarkJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Single-threaded throughput of the CPU parity codec against Hadoop's pure-Java coders
 * (hadoop-common {@code XORRawEncoder}, {@code RSRawEncoder}, {@code RSRawDecoder}), side by side
 * in one JVM, with 1 MiB blocks: ParityFS on direct buffers (what the storage node uses), Hadoop
 * on its faster path (see {@link HadoopCoder}): a heap copy of the same bytes for RS, the direct
 * buffers themselves for XOR. Throughput is GB/s
 * (10^9 bytes/s) of data bytes, k MiB per stripe; parity bytes are not counted.
 *
 * <p>ParityFS runs on the kernels the codec factory picks (ISA-L's on JDK 22+ where
 * {@code libisal.so.2} loads, else the Vector API's) and, for the Reed-Solomon cases when that is
 * ISA-L, on the Vector API kernels too; each case's headline figure is the fastest. The
 * Reed-Solomon encodes are also timed in ISA-L's own C loop over the same buffers
 * ({@link IsalCLoop}; ratio {@code <id>_vs_isal_c}), where gcc and ISA-L's headers are installed.
 *
 * <p>Cases ({@link BenchCase}): XOR 15+1, P+Q 14+2 (Hadoop has no P+Q coder, so its column is
 * RS 14+2), RS 8+2, RS 6+3, RS 10+4 encode, and RS 10+4 rebuild of data shards 0 and 1. Each is
 * timed in two regimes: "dram", cycling through at least 1 GiB of data so every byte comes from
 * memory, and "cache", one stripe reused. {@link MeasurementPlan} gives the warm-up and passes;
 * {@link CorrectnessCheck} runs first and aborts with exit status 2 on any wrong byte.
 *
 * <p>Run from the repository root (see {@link BenchOptions} for the arguments):
 *
 * <pre>
 *   mvn -q -pl gpu-raid/codec -Pbench test-compile exec:exec [-Dbench.java=.../bin/java] \
 *       [-Dbench.args="--quick"]
 * </pre>
 *
 * It prints a table and writes {@code docs/benchmarks/codec-cpu.json}: "metrics" and
 * "cache_metrics" hold the fastest ParityFS kernels' GB/s ("kernel_metrics" each kernel set's),
 * "hadoop_metrics" and "hadoop_cache_metrics" Hadoop's, "isal_c_metrics" ISA-L's C loop's,
 * "ratios" ParityFS / Hadoop and ParityFS / ISA-L C from DRAM, all to 3 significant digits.
 */
public final class CodecCpuBenchmark {
  private CodecCpuBenchmark() {}

  public static void main(String[] args) throws IOException {
    BenchOptions options;
    try {
      options = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("codec-cpu: " + e.getMessage());
      System.exit(64);
      return;
    }
    try {
      run(options, System.out);
    } catch (CorrectnessCheck.WrongResult e) {
      System.err.println("codec-cpu: WRONG RESULT, nothing timed or written: " + e.getMessage());
      System.exit(2);
    }
  }

  private static void run(BenchOptions options, PrintStream out) throws IOException {
    MeasurementPlan plan = options.quick() ? MeasurementPlan.QUICK : MeasurementPlan.FULL;
    String loadBefore = RunEnvironment.loadAverage();
    String kernels = CpuParityCodec.create(options.cases().get(0).geometry()).implementation();
    out.println("codec-cpu: " + RunEnvironment.jdk() + "; " + RunEnvironment.machine());
    out.println("codec-cpu: kernels " + kernels + ", load average " + loadBefore
        + (options.quick() ? ", QUICK run (figures not comparable)" : ""));
    if (!CpuParityCodec.isalAvailable()) {
      out.println("codec-cpu: no ISA-L kernels: " + CpuParityCodec.isalUnavailableReason());
    }
    String cLoop = IsalCLoop.unavailableReason();
    out.println("codec-cpu: ISA-L's own C loop " + (cLoop == null
        ? "built from " + IsalCLoop.SOURCE : "not run: " + cLoop));

    int blocks = 0;
    for (BenchCase c : options.cases()) {
      blocks = Math.max(blocks, plan.stripes(c.k()) * c.blocksPerStripe() + StripeSet.spares(c));
    }
    long t0 = System.nanoTime();
    BlockPool pool = new BlockPool(blocks, 0x5EEDL);
    out.printf(Locale.ROOT,
        "codec-cpu: %d MiB of random direct blocks and a heap mirror for Hadoop in %.1f s%n",
        blocks, (System.nanoTime() - t0) / 1e9);

    List<CaseResult> results = new ArrayList<>();
    for (int i = 0; i < options.cases().size(); i++) {
      BenchCase c = options.cases().get(i);
      out.printf(Locale.ROOT, "[%d/%d] %s vs Hadoop %s%n", i + 1, options.cases().size(),
          c.label(), c.hadoopLabel());
      results.add(new CaseRun(c, plan, out).run(pool));
    }
    String loadAfter = RunEnvironment.loadAverage();
    out.printf(Locale.ROOT, "codec-cpu: done in %.0f s, load average %s%n%n",
        (System.nanoTime() - t0) / 1e9, loadAfter);
    printTable(results, out);

    if (options.out() != null) {
      Map<String, Object> json = json(options, kernels, results, loadBefore, loadAfter);
      Path path = Path.of(options.out());
      if (path.getParent() != null) {
        Files.createDirectories(path.getParent());
      }
      Files.writeString(path, BenchmarkJson.write(json));
      out.println("codec-cpu: wrote " + path.toAbsolutePath());
    }
  }

  private static void printTable(List<CaseResult> results, PrintStream out) {
    String format = "%-24s %-26s %9s %9s %9s %9s %8s %9s %8s%n";
    out.printf(Locale.ROOT, format, "case (GB/s of data)", "fastest ParityFS kernels",
        "PFS dram", "PFS cache", "vector", "ISA-L C", "x C", "Hdp dram", "x Hdp");
    for (CaseResult r : results) {
      CaseResult.Backend vector = r.backend("cpu-vector");
      out.printf(Locale.ROOT, format, r.benchCase().label(), r.best().name(),
          BenchmarkJson.sig3(r.pfsDramGbps()), BenchmarkJson.sig3(r.pfsCacheGbps()),
          vector == null ? "-" : BenchmarkJson.sig3(vector.dramGbps()),
          r.isalC() == null ? "-" : BenchmarkJson.sig3(r.isalC().dramGbps()),
          r.isalC() == null ? "-" : BenchmarkJson.sig3(r.pfsDramGbps() / r.isalC().dramGbps()),
          BenchmarkJson.sig3(r.hadoopDramGbps()),
          BenchmarkJson.sig3(r.pfsDramGbps() / r.hadoopDramGbps()));
    }
  }

  private static Map<String, Object> json(BenchOptions options, String kernels,
      List<CaseResult> results, String loadBefore, String loadAfter) {
    Map<String, Object> metrics = new LinkedHashMap<>();
    Map<String, Object> ratios = new LinkedHashMap<>();
    Map<String, Object> cache = new LinkedHashMap<>();
    Map<String, Object> hadoop = new LinkedHashMap<>();
    Map<String, Object> hadoopCache = new LinkedHashMap<>();
    Map<String, Object> cacheRatios = new LinkedHashMap<>();
    Map<String, Object> coders = new LinkedHashMap<>();
    Map<String, Object> fastest = new LinkedHashMap<>();
    Map<String, Map<String, Object>> perKernels = new LinkedHashMap<>();
    Map<String, Map<String, Object>> perKernelsCache = new LinkedHashMap<>();
    Map<String, Object> isalC = new LinkedHashMap<>();
    Map<String, Object> isalCCache = new LinkedHashMap<>();
    for (CaseResult r : results) {
      String id = r.benchCase().id();
      metrics.put(id + "_gbps", r.pfsDramGbps());
      ratios.put(id + "_vs_hadoop", r.pfsDramGbps() / r.hadoopDramGbps());
      cache.put(id + "_gbps", r.pfsCacheGbps());
      hadoop.put(id + "_gbps", r.hadoopDramGbps());
      hadoopCache.put(id + "_gbps", r.hadoopCacheGbps());
      cacheRatios.put(id + "_vs_hadoop", r.pfsCacheGbps() / r.hadoopCacheGbps());
      coders.put(id, "Hadoop " + r.benchCase().hadoopLabel());
      fastest.put(id, r.best().name());
      for (CaseResult.Backend b : r.backends()) {
        perKernels.computeIfAbsent(b.name(), n -> new LinkedHashMap<>())
            .put(id + "_gbps", b.dramGbps());
        perKernelsCache.computeIfAbsent(b.name(), n -> new LinkedHashMap<>())
            .put(id + "_gbps", b.cacheGbps());
      }
      if (r.isalC() != null) {
        isalC.put(id + "_gbps", r.isalC().dramGbps());
        isalCCache.put(id + "_gbps", r.isalC().cacheGbps());
        ratios.put(id + "_vs_isal_c", r.pfsDramGbps() / r.isalC().dramGbps());
        cacheRatios.put(id + "_vs_isal_c", r.pfsCacheGbps() / r.isalC().cacheGbps());
      }
    }
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("benchmark", "codec-cpu");
    root.put("command", RunEnvironment.command("gpu-raid/codec", options.given()));
    root.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    root.put("jdk", RunEnvironment.jdk());
    root.put("machine", RunEnvironment.machine());
    root.put("kernels", kernels);
    root.put("metrics", metrics);
    root.put("ratios", ratios);
    root.put("cache_metrics", cache);
    root.put("hadoop_metrics", hadoop);
    root.put("hadoop_cache_metrics", hadoopCache);
    root.put("cache_ratios", cacheRatios);
    root.put("hadoop_coders", coders);
    root.put("fastest_kernels", fastest);
    root.put("kernel_metrics", perKernels);
    root.put("kernel_cache_metrics", perKernelsCache);
    String why = IsalCLoop.unavailableReason();
    root.put("isal_c", why == null
        ? "ISA-L's ec_encode_data in a C loop over the same direct buffers (" + IsalCLoop.SOURCE
            + ", gcc -O2 against the installed libisal), timed in C"
        : "not run: " + why);
    root.put("isal_c_metrics", isalC);
    root.put("isal_c_cache_metrics", isalCCache);
    root.put("units", "GB/s = 10^9 data bytes (k x 1 MiB per stripe, parity not counted) per"
        + " second, one thread; metrics: the fastest ParityFS kernels (fastest_kernels; each"
        + " kernel set's own figures in kernel_metrics); ParityFS on direct buffers (what the storage node uses), Hadoop on"
        + " its faster path: heap buffers (ByteBuffer.wrap of byte[]) for RS, direct buffers for"
        + " XOR; medians of timed passes");
    MeasurementPlan plan = options.quick() ? MeasurementPlan.QUICK : MeasurementPlan.FULL;
    root.put("dataset", String.format(Locale.ROOT, "dram: >= %d MiB of data per case, cycled"
            + " (ParityFS: %d passes, each a full sweep and >= %s s; Hadoop: one sweep timed as %d"
            + " slices); cache: one stripe reused; ParityFS reads direct blocks, Hadoop RS a heap"
            + " copy of the same bytes, Hadoop XOR the direct blocks%s", plan.datasetBytes() >> 20, plan.passes(),
        plan.dramSeconds(), MeasurementPlan.HADOOP_DRAM_SLICES,
        options.quick() ? "; QUICK run, not comparable" : ""));
    root.put("load_average_before", loadBefore);
    root.put("load_average_after", loadAfter);
    return root;
  }
}
