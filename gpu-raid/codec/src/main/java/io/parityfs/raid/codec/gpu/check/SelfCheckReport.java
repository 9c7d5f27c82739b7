package io.parityfs.raid.codec.gpu.check;

import io.parityfs.raid.codec.gpu.GpuShare;
import io.parityfs.raid.report.Machine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the self-check measured, filled in as it goes (a field stays null when its phase did not
 * run or failed), and its rendering as the benchmark file {@code docs/benchmarks/codec-gpu.json}
 * and as the goals verdict. Not thread-safe.
 */
final class SelfCheckReport {
  /** Device-resident RS 10+4 encode at burst, GB/s of data. */
  static final double GOAL_RESIDENT_GBPS = 1000;
  /** Host-to-host RS 10+4 encode over PCIe host-to-device bandwidth. */
  static final double GOAL_HOST_VS_PCIE = 0.8;
  /** The tenant's slowdown at the default share, percent. */
  static final double GOAL_TENANT_SLOWDOWN_PCT = 5;

  static final String UNITS = "GB/s = 10^9 data bytes per second (k shards of 1 MiB per stripe; "
      + "parity and restored shards not counted); host = encodeBatch/reconstructBatch from and to "
      + "direct host buffers, PCIe copies included (median of timed batches); resident = "
      + "encodeOnDevice/reconstructOnDevice on device memory, kernels only, every launch waited "
      + "for; burst = GpuShare fraction 1.0 (the unsuffixed figures), default_share = "
      + "GpuShare.DEFAULT (fraction 0.25); cpu = CpuParityCodec, one thread, best of 2 after a "
      + "warm-up; pcie = pinned host memory to and from the device, copies queued back to back; "
      + "host_staging_copy = one thread copying direct host buffers into pinned memory, the "
      + "staging step of every host-to-host call";

  /** One throughput case's figures, GB/s. */
  record CaseFigures(ThroughputCase c, double hostDefault, double hostBurst,
      double residentDefault, double residentBurst, double cpu) {}

  String device;
  String driver;
  String kernels;
  String machine;
  String jdk;
  String date;
  String command;
  boolean quick;
  String dataset;
  final Map<String, String> equality = new LinkedHashMap<>();
  int mismatches;
  ThroughputBench.Pcie pcie;
  /** One host thread copying direct buffers to pinned memory, GB/s (0 when not measured). */
  double stagingCopyGbps;
  final List<CaseFigures> cases = new ArrayList<>();
  TenantLoad.Outcome tenant;
  double tenantSeconds;
  /** What failed, per phase ("measuring RS 8+2: GpuException: ..."); empty when nothing did. */
  final List<String> failures = new ArrayList<>();

  CaseFigures figures(String id) {
    for (CaseFigures f : cases) {
      if (f.c().id().equals(id)) {
        return f;
      }
    }
    return null;
  }

  /** The benchmark file's content, in the project's layout. */
  Map<String, Object> json() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("benchmark", "codec-gpu");
    j.put("command", command);
    j.put("date", date);
    j.put("jdk", jdk);
    j.put("machine", machine);
    j.put("gpu", device);
    j.put("driver", driver);
    j.put("kernels", kernels);
    j.put("share", GpuShare.DEFAULT.toString());
    if (quick) {
      j.put("quick", Boolean.TRUE);
    }
    Map<String, Object> metrics = new LinkedHashMap<>();
    Map<String, Object> ratios = new LinkedHashMap<>();
    CaseFigures rs = figures(ThroughputCase.RS10_4_ENCODE.id());
    if (rs != null) {
      metrics.put("rs10_4_resident_gbps", rs.residentBurst());
      metrics.put("rs10_4_resident_default_share_gbps", rs.residentDefault());
      metrics.put("rs10_4_host_gbps", rs.hostBurst());
      metrics.put("rs10_4_host_default_share_gbps", rs.hostDefault());
    }
    if (pcie != null) {
      metrics.put("pcie_h2d_gbps", pcie.h2dGbps());
      metrics.put("pcie_d2h_gbps", pcie.d2hGbps());
    }
    if (stagingCopyGbps > 0) {
      metrics.put("host_staging_copy_gbps", stagingCopyGbps);
    }
    if (tenant != null) {
      metrics.put("tenant_slowdown_pct", tenant.slowdownPct());
    }
    for (CaseFigures f : cases) {
      String id = f.c().id();
      metrics.put(id + "_host_gbps", f.hostBurst());
      metrics.put(id + "_host_default_share_gbps", f.hostDefault());
      metrics.put(id + "_resident_gbps", f.residentBurst());
      metrics.put(id + "_resident_default_share_gbps", f.residentDefault());
      metrics.put(id + "_cpu_gbps", f.cpu());
    }
    if (rs != null && pcie != null) {
      ratios.put("host_vs_pcie", rs.hostBurst() / pcie.h2dGbps());
      ratios.put("host_default_share_vs_pcie", rs.hostDefault() / pcie.h2dGbps());
    }
    if (rs != null) {
      ratios.put("rs10_4_resident_default_share_vs_burst",
          rs.residentDefault() / rs.residentBurst());
    }
    for (CaseFigures f : cases) {
      ratios.put(f.c().id() + "_host_vs_cpu", f.hostBurst() / f.cpu());
      ratios.put(f.c().id() + "_resident_vs_cpu", f.residentBurst() / f.cpu());
    }
    j.put("metrics", metrics);
    j.put("ratios", ratios);
    j.put("goals", goals());
    if (tenant != null) {
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("load", "tenant_load.py: bf16 8192 x 8192 matrix multiplies, " + format(tenantSeconds)
          + " s alone, then " + format(tenantSeconds) + " s beside host-to-host RS 10+4 encode "
          + "at the default share");
      t.put("baseline_iter_per_s", tenant.baseline() != null && tenant.baseline().ok()
          ? tenant.baseline().iterPerSecond() : null);
      t.put("loaded_iter_per_s", tenant.loaded() != null && tenant.loaded().ok()
          ? tenant.loaded().iterPerSecond() : null);
      t.put("codec_gbps_meanwhile", tenant.codecGbps() > 0 ? tenant.codecGbps() : null);
      if (tenant.reason() != null) {
        t.put("tenant_slowdown_pct_null_because", tenant.reason());
      }
      j.put("tenant", t);
    }
    j.put("equality", new LinkedHashMap<>(equality));
    j.put("equality_mismatches", mismatches);
    j.put("units", UNITS);
    j.put("dataset", dataset);
    if (!failures.isEmpty()) {
      j.put("failures", List.copyOf(failures));
    }
    return j;
  }

  /** Each goal with its verdict: "met: ...", "missed: ..." or "unknown: ...". */
  Map<String, String> goals() {
    Map<String, String> g = new LinkedHashMap<>();
    CaseFigures rs = figures(ThroughputCase.RS10_4_ENCODE.id());
    g.put("rs10_4_resident_gbps >= " + format(GOAL_RESIDENT_GBPS), rs == null
        ? "unknown: not measured"
        : verdict(rs.residentBurst() >= GOAL_RESIDENT_GBPS,
            String.format(Locale.ROOT, "%.0f GB/s at burst, %.0f GB/s at the default share",
                rs.residentBurst(), rs.residentDefault())));
    g.put("host_vs_pcie >= " + format(GOAL_HOST_VS_PCIE), rs == null || pcie == null
        ? "unknown: not measured"
        : verdict(rs.hostBurst() / pcie.h2dGbps() >= GOAL_HOST_VS_PCIE,
            String.format(Locale.ROOT, "%.2f (%.1f of %.1f GB/s; %.2f at the default share)",
                rs.hostBurst() / pcie.h2dGbps(), rs.hostBurst(), pcie.h2dGbps(),
                rs.hostDefault() / pcie.h2dGbps())));
    g.put("tenant_slowdown_pct <= " + format(GOAL_TENANT_SLOWDOWN_PCT), tenant == null
        ? "unknown: not measured"
        : tenant.slowdownPct() == null
            ? "unknown: " + tenant.reason()
            : verdict(tenant.slowdownPct() <= GOAL_TENANT_SLOWDOWN_PCT,
                String.format(Locale.ROOT, "%.1f%%", tenant.slowdownPct())));
    return g;
  }

  private static String verdict(boolean met, String detail) {
    return (met ? "met: " : "missed: ") + detail;
  }

  static String format(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
  }

  /** E.g. "AMD EPYC 9554 64-Core Processor, 16 cores, 125.7 GiB RAM, flags ..."; see {@link Machine}. */
  static String cpu() {
    return Machine.describe();
  }


  private static final Pattern NVRM = Pattern.compile("Kernel Module\\s+([0-9][0-9.]*)");

  /**
   * The NVIDIA kernel driver's version ("580.82.07"): from {@code /proc/driver/nvidia/version},
   * else from {@code nvidia-smi} (at most 15 s), else "unknown".
   */
  static String nvidiaDriver() {
    for (String line : Machine.lines("/proc/driver/nvidia/version")) {
      Matcher m = NVRM.matcher(line);
      if (m.find()) {
        return m.group(1);
      }
    }
    try {
      Process p = new ProcessBuilder("nvidia-smi", "--query-gpu=driver_version",
          "--format=csv,noheader").redirectErrorStream(true).start();
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return "unknown (nvidia-smi did not answer)";
      }
      String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.exitValue() == 0 && !v.isEmpty() ? v.lines().findFirst().orElse(v) : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
