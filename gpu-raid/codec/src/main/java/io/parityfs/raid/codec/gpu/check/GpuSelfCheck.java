package io.parityfs.raid.codec.gpu.check;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.gpu.CudaDriver;
import io.parityfs.raid.codec.gpu.CudaProbe;
import io.parityfs.raid.codec.gpu.GpuParityCodec;
import io.parityfs.raid.codec.gpu.GpuShare;
import io.parityfs.raid.codec.gpu.KernelImage;
import io.parityfs.raid.codec.gpu.LaunchPlanner;
import io.parityfs.raid.report.BenchmarkJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;

/**
 * The GPU self-check of the parity codec, one command on a GPU machine ({@code bash
 * gpu-raid/scripts/gpu-check.sh run}, see docs/gpu.md "The GPU self-check"). It prints
 *
 * <ol>
 *   <li>the probe's verdict, the device, the driver and the kernel image (no usable GPU: the
 *       reason, exit status 3);
 *   <li>CPU == GPU bytes per geometry ({@link EqualityCheck}): encode, every erasure pattern
 *       (or a sample), parity updates, the device-resident entry points;
 *   <li>PCIe bandwidth, pinned host memory to and from the device;
 *   <li>throughput per geometry of the CPU benchmark ({@link ThroughputCase}): host to host and
 *       device-resident, at the default share and at burst, beside the CPU codec's figure;
 *   <li>the slowdown of a PyTorch tenant in another process while the codec encodes at the
 *       default share ({@link TenantLoad});
 *   <li>the goals' verdicts;
 * </ol>
 *
 * and writes the benchmark file ({@code --out}, docs/benchmarks/codec-gpu.json). A watchdog ends
 * the run with status 4 after {@code --deadline} seconds, whatever it is waiting for. Exit
 * status: 0 done (goals are reported, not enforced), 1 CPU != GPU somewhere (measurements still
 * run and are written, with the mismatches), 2 bad arguments, 3 no usable GPU, 4 the deadline
 * passed or a GPU call failed.
 */
public final class GpuSelfCheck {
  static final int OK = 0;
  static final int MISMATCH = 1;
  static final int USAGE = 2;
  static final int NO_GPU = 3;
  static final int FAILED = 4;

  private final SelfCheckOptions options;
  private final CudaDriver driver;
  private final PrintStream out;
  private final SelfCheckWatchdog watchdog;
  private final SelfCheckReport report = new SelfCheckReport();

  GpuSelfCheck(SelfCheckOptions options, CudaDriver driver, PrintStream out,
      SelfCheckWatchdog watchdog) {
    this.options = options;
    this.driver = driver;
    this.out = out;
    this.watchdog = watchdog;
  }

  public static void main(String[] args) {
    SelfCheckOptions options;
    try {
      if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
        System.out.println(SelfCheckOptions.USAGE);
        return;
      }
      options = SelfCheckOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("gpu-check: " + e.getMessage());
      System.err.println(SelfCheckOptions.USAGE);
      System.exit(USAGE);
      return;
    }
    PrintStream out = System.out;
    SelfCheckWatchdog watchdog = new SelfCheckWatchdog(options.deadlineSeconds(), out);
    watchdog.start();
    out.println("== GPU");
    long t0 = System.nanoTime();
    watchdog.phase = "probing the GPU";
    CudaProbe.Result probe = CudaProbe.result();
    if (!probe.available()) {
      out.printf(Locale.ROOT, "probe: no usable GPU (%.0f ms): %s%n",
          (System.nanoTime() - t0) / 1e6, probe.reason());
      out.flush();
      System.exit(NO_GPU);
      return;
    }
    out.printf(Locale.ROOT, "probe: GPU available (%.0f ms)%n", (System.nanoTime() - t0) / 1e6);
    int status = new GpuSelfCheck(options, CudaProbe.driver(), out, watchdog).run();
    out.flush();
    System.exit(status);
  }

  /** Runs every phase and writes the report; returns the exit status. */
  int run() {
    long start = System.nanoTime();
    SelfCheckSizes sizes = options.sizes();
    report.command = options.command();
    report.quick = options.quick();
    report.tenantSeconds = options.tenantSeconds();
    report.date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    report.jdk = System.getProperty("java.vm.name") + " "
        + System.getProperty("java.runtime.version");
    report.device = driver.device().describe();
    int cuda = driver.driverVersion();
    report.driver = "NVIDIA " + SelfCheckReport.nvidiaDriver() + ", CUDA " + cuda / 1000 + "."
        + cuda % 1000 / 10;
    report.kernels = KernelImage.describe();
    report.machine = report.device + "; driver " + report.driver + "; " + SelfCheckReport.cpu();
    report.dataset = "random data; equality on " + EqualityCheck.LENGTHS.length + " stripes of "
        + "odd lengths per geometry; throughput on " + size(sizes.hostBytes()) + " of data per "
        + "host batch, " + size(sizes.residentBytes()) + " per resident launch, "
        + size(sizes.cpuBytes()) + " per CPU pass, PCIe " + sizes.pcieCopies() + " x "
        + size(sizes.pcieBytes());
    out.println("device: " + report.device);
    out.println("driver: " + report.driver);
    out.println("kernels: " + report.kernels);
    out.println("host: " + SelfCheckReport.cpu() + ", " + report.jdk + ", CPU codec "
        + CpuParityCodec.create(CodecGeometry.raid5(2)).implementation());
    LaunchPlanner lp = new LaunchPlanner(driver.device(), GpuShare.DEFAULT.threadsPerBlock());
    out.printf(Locale.ROOT, "share: %s: %d of %d resident blocks per launch, %d at burst%n",
        GpuShare.DEFAULT, lp.maxBlocks(GpuShare.DEFAULT.fraction()), lp.residentBlocks(),
        lp.maxBlocks(GpuShare.DEFAULT.burstFraction()));
    equality(sizes);
    measure(sizes);
    watchdog.phase = "writing " + options.out();
    out.println();
    out.println("== Goals (H200)" + (options.quick() ? ", from a quick run: indicative only" : ""));
    for (Map.Entry<String, String> g : report.goals().entrySet()) {
      out.printf("%-32s %s%n", g.getKey(), g.getValue());
    }
    try {
      Path file = options.out().toAbsolutePath();
      Files.createDirectories(file.getParent());
      Files.writeString(file, BenchmarkJson.write(report.json()));
      out.println("wrote " + file);
    } catch (IOException e) {
      out.println("gpu-check: cannot write " + options.out() + ": " + e);
      return FAILED;
    }
    out.printf(Locale.ROOT, "gpu-check: %s in %.0f s%n", report.mismatches > 0 ? "CPU != GPU"
        : !report.failures.isEmpty() ? "FAILED" : "done", (System.nanoTime() - start) / 1e9);
    return report.mismatches > 0 ? MISMATCH : !report.failures.isEmpty() ? FAILED : OK;
  }

  SelfCheckReport report() {
    return report;
  }

  private void equality(SelfCheckSizes sizes) {
    out.println();
    out.println("== CPU == GPU (random data, odd lengths, default share and burst)");
    EqualityCheck eq = new EqualityCheck(driver, GpuShare.DEFAULT, sizes, options.seed());
    for (CodecGeometry g : EqualityCheck.GEOMETRIES) {
      watchdog.phase = "checking " + g;
      long t0 = System.nanoTime();
      EqualityCheck.Result r = eq.check(g);
      String line = r.summary();
      out.printf(Locale.ROOT, "%s (%.1f s)%n", line, (System.nanoTime() - t0) / 1e9);
      report.equality.put(g.toString(), line.substring(line.indexOf(' ')).trim());
      report.mismatches += r.mismatches().count();
      for (String m : r.mismatches().first()) {
        out.println("  MISMATCH " + m);
      }
      if (r.mismatches().count() > r.mismatches().first().size()) {
        out.println("  ... " + (r.mismatches().count() - r.mismatches().first().size()) + " more");
      }
    }
  }

  /**
   * PCIe, the throughput table and the tenant. A phase that fails is recorded and the next one
   * tried: after a CUDA error that spoils the context they all fail fast, after any other each
   * still measures what it can.
   */
  private void measure(SelfCheckSizes sizes) {
    HostStripes host;
    try {
      watchdog.phase = "allocating host stripes";
      host = new HostStripes(HostStripes.blocksFor(ThroughputCase.ALL, sizes, sizes.hostBytes()),
          sizes.shardBytes(), options.seed());
    } catch (RuntimeException | OutOfMemoryError e) {
      failed(e);
      return;
    }
    try {
      watchdog.phase = "allocating device buffers";
      try (ThroughputBench bench = new ThroughputBench(driver, sizes, options.seed())) {
        pcie(bench, host, sizes);
        out.println();
        out.println("== Throughput, GB/s of data (10^9 bytes/s, k x " + size(sizes.shardBytes())
            + " per stripe)");
        out.printf("%-24s %21s %21s %10s%n", "", "host -> host", "device-resident", "CPU codec");
        out.printf("%-24s %10s %10s %10s %10s %10s%n", "case", "default", "burst", "default",
            "burst", "1 thread");
        for (ThroughputCase c : ThroughputCase.ALL) {
          try {
            throughput(bench, host, c, sizes);
          } catch (RuntimeException | OutOfMemoryError e) {
            failed(e);
          }
        }
      }
    } catch (RuntimeException | OutOfMemoryError e) {
      failed(e);
    }
    try {
      tenant(host, sizes);
    } catch (RuntimeException | OutOfMemoryError e) {
      failed(e);
    }
  }

  private void pcie(ThroughputBench bench, HostStripes host, SelfCheckSizes sizes) {
    watchdog.phase = "measuring PCIe";
    report.pcie = bench.pcie();
    report.stagingCopyGbps = bench.stagingCopy(host);
    out.println();
    out.printf(Locale.ROOT, "== PCIe (pinned, %d x %s): host to device %.1f GB/s, device "
        + "to host %.1f GB/s%n", sizes.pcieCopies(), size(sizes.pcieBytes()),
        report.pcie.h2dGbps(), report.pcie.d2hGbps());
    out.printf(Locale.ROOT, "host staging copy (one thread, direct buffers to pinned memory, "
        + "as the pipeline stages): %.1f GB/s%n", report.stagingCopyGbps);
  }

  private void throughput(ThroughputBench bench, HostStripes host, ThroughputCase c,
      SelfCheckSizes sizes) {
    watchdog.phase = "measuring " + c.label();
    ThroughputBench.Batch batch = ThroughputBench.batch(host, c, sizes, sizes.hostBytes());
    double hd;
    double hb;
    double rd;
    double rb;
    try (GpuParityCodec codec = new GpuParityCodec(c.geometry(), GpuShare.DEFAULT, driver)) {
      hd = bench.host(codec, batch);
      rd = bench.resident(codec, c);
      codec.setBurst(true);
      hb = bench.host(codec, batch);
      rb = bench.resident(codec, c);
    }
    double cpu = bench.cpu(host, c);
    report.cases.add(new SelfCheckReport.CaseFigures(c, hd, hb, rd, rb, cpu));
    out.printf(Locale.ROOT, "%-24s %10.1f %10.1f %10.1f %10.1f %10.2f%n", c.label(), hd, hb, rd,
        rb, cpu);
  }

  private void failed(Throwable e) {
    String what = watchdog.phase + ": " + e;
    report.failures.add(what);
    out.println("gpu-check: FAILED while " + what);
    e.printStackTrace(out);
  }

  private void tenant(HostStripes host, SelfCheckSizes sizes) {
    watchdog.phase = "running the tenant";
    out.println();
    out.printf(Locale.ROOT, "== Tenant (%s, %s s alone, then %s s beside RS 10+4 host -> host "
        + "encode at the default share)%n", options.tenantScript(),
        SelfCheckReport.format(options.tenantSeconds()),
        SelfCheckReport.format(options.tenantSeconds()));
    TenantLoad load = new TenantLoad(options.python(), options.tenantScript(),
        options.tenantSeconds());
    watchdog.tenant = load;
    ThroughputBench.Batch batch = ThroughputBench.batch(host, ThroughputCase.RS10_4_ENCODE,
        sizes, sizes.hostBytes());
    try (GpuParityCodec codec = new GpuParityCodec(batch.c().geometry(), GpuShare.DEFAULT,
        driver)) {
      batch.run(codec);
      report.tenant = load.measure(() -> {
        batch.run(codec);
        return batch.dataBytes(sizes.shardBytes());
      });
    } finally {
      watchdog.tenant = null;
    }
    TenantLoad.Outcome t = report.tenant;
    if (t.baseline() != null && t.baseline().ok()) {
      out.printf(Locale.ROOT, "tenant alone: %.2f iter/s (%s)%n", t.baseline().iterPerSecond(),
          t.baseline().line());
    }
    if (t.loaded() != null && t.loaded().ok()) {
      out.printf(Locale.ROOT, "tenant beside the codec: %.2f iter/s (%s); codec meanwhile "
          + "%.1f GB/s%n", t.loaded().iterPerSecond(), t.loaded().line(), t.codecGbps());
    }
    out.println(t.slowdownPct() != null
        ? String.format(Locale.ROOT, "tenant slowdown: %.1f%%", t.slowdownPct())
        : "tenant slowdown: unknown: " + t.reason());
  }

  /** "1 MiB", "256 MiB", "64 KiB". */
  static String size(long bytes) {
    return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
  }
}
