package io.parityfs.raid.codec.gpu.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.gpu.CudaDriver;
import io.parityfs.raid.codec.gpu.CudaKernel;
import io.parityfs.raid.codec.gpu.EmulatedCudaDriver;
import io.parityfs.raid.codec.gpu.GpuException;
import io.parityfs.raid.codec.gpu.GpuShare;
import io.parityfs.raid.report.BenchmarkJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU self-check without a GPU: its arguments, erasure patterns, tenant arithmetic and JSON,
 * and a whole run on the emulated driver with tiny sizes and a stand-in tenant.
 */
class GpuSelfCheckTest {
  /** Tiny sizes: 4 KiB shards, a few patterns, one pass of everything. */
  static final SelfCheckSizes TINY =
      new SelfCheckSizes(25, 6, 4096, 64 << 10, 1, 64 << 10, 0, 3, 64 << 10, 64 << 10, 2);

  @TempDir
  Path dir;

  @Test
  void parsesArguments() {
    SelfCheckOptions d = SelfCheckOptions.parse();
    assertEquals(Path.of("docs/benchmarks/codec-gpu.json"), d.out());
    assertEquals(15, d.tenantSeconds());
    assertEquals(SelfCheckSizes.FULL, d.sizes());
    assertEquals("bash gpu-raid/scripts/gpu-check.sh run", d.command());
    SelfCheckOptions q = SelfCheckOptions.parse("--quick", "--out", "/tmp/x.json",
        "--tenant-script", "t.py", "--seconds", "7.5", "--deadline", "100", "--python", "py");
    assertTrue(q.quick());
    assertEquals(SelfCheckSizes.QUICK, q.sizes());
    assertEquals(Path.of("/tmp/x.json"), q.out());
    assertEquals(Path.of("t.py"), q.tenantScript());
    assertEquals("py", q.python());
    assertEquals(7.5, q.tenantSeconds());
    assertEquals(100, q.deadlineSeconds());
    assertEquals("bash gpu-raid/scripts/gpu-check.sh run --quick --seconds 7.5", q.command());
    assertEquals(5, SelfCheckOptions.parse("--quick").tenantSeconds());
    assertMessage("unknown argument '--fast'", "--fast");
    assertMessage("--out needs a value", "--out");
    assertMessage("--out needs a value", "--out", "--quick");
    assertMessage("--seconds (0) must be in 1..120", "--seconds", "0");
    assertMessage("--seconds (x) must be a number", "--seconds", "x");
    assertMessage("--deadline (5) must be a whole number of seconds in 10..3600", "--deadline", "5");
    assertMessage("--seed (1.5) must be an integer", "--seed", "1.5");
  }

  private static void assertMessage(String message, String... args) {
    assertEquals(message,
        assertThrows(IllegalArgumentException.class, () -> SelfCheckOptions.parse(args))
            .getMessage());
  }

  @Test
  void sizesAreSane() {
    assertEquals(103, SelfCheckSizes.FULL.stripesFor(1L << 30, 10));
    assertEquals(1, SelfCheckSizes.FULL.stripesFor(1, 10));
    // The full run's host pool: RS 10+4 rebuild, 103 stripes of 16 blocks, is the largest.
    assertEquals(103 * 16,
        HostStripes.blocksFor(ThroughputCase.ALL, SelfCheckSizes.FULL, 1L << 30));
    assertThrows(IllegalArgumentException.class,
        () -> new SelfCheckSizes(1, 1, 100, 1 << 20, 1, 1 << 20, 0, 1, 1 << 20, 64, 1));
  }

  @Test
  void listsOrSamplesErasurePatterns() {
    assertEquals(21, ErasurePatterns.count(6, 2).intValueExact());
    assertEquals(1470, ErasurePatterns.count(14, 4).intValueExact());
    List<Long> all = ErasurePatterns.all(6, 2);
    assertEquals(21, all.size());
    assertEquals(21, new HashSet<>(all).size());
    for (long p : all) {
      assertTrue(Long.bitCount(p) >= 1 && Long.bitCount(p) <= 2 && p < 64, Long.toBinaryString(p));
    }
    assertEquals(1470, ErasurePatterns.choose(10, 4, 2000, 300, new Random(1)).size());
    List<Long> sample = ErasurePatterns.choose(32, 32, 2000, 300, new Random(1));
    assertEquals(300, sample.size());
    assertEquals(300, new HashSet<>(sample).size());
    assertEquals(0xffff_ffffL, sample.get(0));
    assertEquals(0xffff_ffff_0000_0000L, sample.get(1));
    assertTrue(sample.contains(0b11L) && sample.contains(1L));
    for (long p : sample) {
      assertTrue(Long.bitCount(p) >= 1 && Long.bitCount(p) <= 32);
    }
    assertEquals(List.of(1, 4, 63), List.of(
        java.util.Arrays.stream(ErasurePatterns.shards((1L << 63) | 0b10010)).boxed()
            .toArray(Integer[]::new)));
  }

  @Test
  void computesTheSlowdownFromTheTenantsLines() {
    assertEquals(4.0, TenantLoad.slowdownPct(100, 96), 1e-9);
    assertEquals(-2.0, TenantLoad.slowdownPct(50, 51), 1e-9);
    assertThrows(IllegalArgumentException.class, () -> TenantLoad.slowdownPct(0, 1));
    TenantLoad.Window ok = TenantLoad.parse("warming up\n{\"iterations\": 1230, \"seconds\": "
        + "15.002, \"iter_per_s\": 81.989, \"tflops\": 90.1}\n", 0, "");
    assertTrue(ok.ok());
    assertEquals(81.989, ok.iterPerSecond());
    TenantLoad.Window noTorch = TenantLoad.parse("{\"error\": \"PyTorch is not installed\"}\n", 2, "");
    assertEquals("PyTorch is not installed", noTorch.error());
    TenantLoad.Window crash = TenantLoad.parse("", 1, "Traceback ...\nRuntimeError: CUDA oom\n");
    assertEquals("the tenant exited with status 1 and printed no result; stderr: Traceback ...\n"
        + "RuntimeError: CUDA oom", crash.error());
  }

  @Test
  void aMissingInterpreterMakesTheSlowdownUnknown() {
    // gpu-raid/codec is the tests' working directory; the script is gpu-raid/scripts'
    Path script = Path.of("../scripts/tenant_load.py");
    assertTrue(Files.isRegularFile(script), script.toAbsolutePath().toString());
    TenantLoad t = new TenantLoad("/nonexistent/python3", script, 1);
    TenantLoad.Outcome o = t.measure(() -> {
      throw new AssertionError("the codec must not run without a baseline");
    });
    assertNull(o.slowdownPct());
    assertTrue(o.reason().startsWith("tenant alone: cannot start /nonexistent/python3 "), o.reason());
  }

  @Test
  void theRealTenantScriptSaysWhyItCannotRunHere() {
    TenantLoad t = new TenantLoad("python3", Path.of("../scripts/tenant_load.py"), 1);
    TenantLoad.Outcome o = t.measure(() -> {
      throw new AssertionError("the codec must not run without a baseline");
    });
    assumeFalse(o.reason() != null && o.reason().contains("cannot start python3"),
        "no python3 here: " + o.reason());
    assumeTrue(o.reason() != null, "a GPU tenant ran here");
    assertNull(o.slowdownPct());
    assertTrue(o.reason().equals("tenant alone: PyTorch is not installed")
        || o.reason().equals("tenant alone: PyTorch sees no CUDA device"), o.reason());
  }

  @Test
  void writesTheBenchmarkFile() {
    SelfCheckReport r = new SelfCheckReport();
    r.command = "bash gpu-raid/scripts/gpu-check.sh run";
    r.date = "2026-12-01T00:00:00Z";
    r.jdk = "OpenJDK 25";
    r.machine = "NVIDIA H200; driver 580; CPU";
    r.pcie = new ThroughputBench.Pcie(50.0, 52.0);
    for (ThroughputCase c : ThroughputCase.ALL) {
      r.cases.add(new SelfCheckReport.CaseFigures(c, 40, 45, 600, 1500, 7.5));
    }
    r.tenant = new TenantLoad.Outcome(null, "PyTorch is not installed", null, null, 0);
    r.equality.put("rs:4+2", "ok \"quoted\"");
    Map<String, Object> j = r.json();
    assertEquals(List.of("benchmark", "command", "date", "jdk", "machine", "gpu", "driver",
        "kernels", "share", "metrics", "ratios", "goals", "tenant", "equality",
        "equality_mismatches", "units", "dataset"), List.copyOf(j.keySet()));
    @SuppressWarnings("unchecked")
    Map<String, Object> metrics = (Map<String, Object>) j.get("metrics");
    assertEquals(List.of("rs10_4_resident_gbps", "rs10_4_resident_default_share_gbps",
        "rs10_4_host_gbps", "rs10_4_host_default_share_gbps", "pcie_h2d_gbps", "pcie_d2h_gbps",
        "tenant_slowdown_pct"), List.copyOf(metrics.keySet()).subList(0, 7));
    assertEquals(1500.0, metrics.get("rs10_4_resident_gbps"));
    assertEquals(600.0, metrics.get("rs10_4_resident_default_share_gbps"));
    assertEquals(45.0, metrics.get("rs10_4_host_gbps"));
    assertEquals(7.5, metrics.get("rs10_4_decode2_cpu_gbps"));
    assertEquals(7 + 6 * 5, metrics.size());
    @SuppressWarnings("unchecked")
    Map<String, Object> ratios = (Map<String, Object>) j.get("ratios");
    assertEquals(0.9, (Double) ratios.get("host_vs_pcie"), 1e-12);
    String text = BenchmarkJson.write(j);
    assertTrue(text.contains("\"tenant_slowdown_pct\": null,"), text);
    assertTrue(text.contains("\"host_vs_pcie\": 0.9,"), text);
    assertTrue(text.contains("\"rs:4+2\": \"ok \\\"quoted\\\"\""), text);
    assertTrue(text.contains("\"tenant_slowdown_pct <= 5\": \"unknown: PyTorch is not installed\""),
        text);
    assertTrue(text.contains("\"rs10_4_resident_gbps >= 1000\": \"met: 1500 GB/s at burst, 600 "
        + "GB/s at the default share\""), text);
    assertTrue(text.contains("\"host_vs_pcie >= 0.8\": \"met: 0.90 (45.0 of 50.0 GB/s; 0.80 at "
        + "the default share)\""), text);
    Map<String, Object> small = new LinkedHashMap<>();
    small.put("list", List.of(1, "a", true));
    small.put("empty", Map.of());
    small.put("x", 1234.5678);
    assertEquals("{\n  \"list\": [\n    1,\n    \"a\",\n    true\n  ],\n  \"empty\": {},\n"
        + "  \"x\": 1230\n}\n", BenchmarkJson.write(small));
  }

  @Test
  void findsAGpuThatComputesNothing() {
    EmulatedCudaDriver emulated = EmulatedCudaDriver.withSms(2);
    CudaDriver lazy = dropping(emulated, CudaKernel.XOR);
    EqualityCheck.Result r = new EqualityCheck(lazy, GpuShare.DEFAULT, TINY, 5)
        .check(CodecGeometry.raid5(4));
    assertFalse(r.ok());
    assertTrue(r.mismatches().first().get(0).startsWith("encode stripe 0 parity 0 (4099 bytes): "
        + "first difference at byte "), r.mismatches().first().get(0));
    assertTrue(r.summary().endsWith("MISMATCH (" + r.mismatches().count() + ")"), r.summary());
    assertEquals(List.of(), emulated.violations());
  }

  @Test
  void runsTheWholeCheckOnTheEmulatedDriver() throws Exception {
    Path tenant = dir.resolve("tenant.sh");
    Files.writeString(tenant, String.join("\n",
        "ready=''",
        "while [ $# -gt 0 ]; do [ \"$1\" = --ready ] && ready=$2; shift; done",
        "n=$(cat \"" + dir + "/count\" 2>/dev/null || echo 0); n=$((n + 1))",
        "echo $n > \"" + dir + "/count\"",
        "touch \"$ready\"",
        "sleep 0.3",
        "if [ $n -eq 1 ]; then rate=100.0; else rate=97.0; fi",
        "echo \"{\\\"iterations\\\": 30, \\\"seconds\\\": 0.3, \\\"iter_per_s\\\": $rate}\"",
        ""));
    Path json = dir.resolve("out/codec-gpu.json");
    SelfCheckOptions o = new SelfCheckOptions(json, tenant, "sh", true, 1, 60, 7, TINY);
    EmulatedCudaDriver driver = EmulatedCudaDriver.withSms(2);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    GpuSelfCheck check = new GpuSelfCheck(o, driver, out, new SelfCheckWatchdog(60, out));
    int status = check.run();
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(GpuSelfCheck.OK, status, printed);
    for (CodecGeometry g : EqualityCheck.GEOMETRIES) {
      assertTrue(printed.lines().anyMatch(l -> l.startsWith(g.toString() + " ")
          && l.contains(": CPU == GPU (")), g + "\n" + printed);
    }
    assertTrue(printed.contains("tenant slowdown: 3.0%"), printed);
    assertTrue(printed.contains("== Goals (H200)"), printed);
    assertEquals(List.of(), driver.violations());
    assertEquals(0, driver.deviceBytesAllocated(), "everything freed");
    String text = Files.readString(json);
    for (String key : List.of("\"rs10_4_resident_gbps\": ", "\"rs10_4_host_gbps\": ",
        "\"pcie_h2d_gbps\": ", "\"host_staging_copy_gbps\": ", "\"tenant_slowdown_pct\": 3,", "\"host_vs_pcie\": ",
        "\"xor15_1_resident_default_share_gbps\": ", "\"rs10_4_decode2_cpu_gbps\": ",
        "\"quick\": true", "\"equality_mismatches\": 0",
        "\"command\": \"bash gpu-raid/scripts/gpu-check.sh run --quick --seconds 1\"")) {
      assertTrue(text.contains(key), key + "\n" + text);
    }
    assertEquals(EqualityCheck.GEOMETRIES.size(), check.report().equality.size());
  }

  @Test
  void aFailingPhaseIsRecordedAndTheNextOnesStillRun() throws Exception {
    // The throughput bench's pinned buffer, of a size nothing else asks for, cannot be had.
    SelfCheckSizes sizes = new SelfCheckSizes(25, 6, 4096, 64 << 10, 1, 64 << 10, 0, 3,
        64 << 10, 3 << 16, 2);
    EmulatedCudaDriver emulated = EmulatedCudaDriver.withSms(2);
    CudaDriver driver = (CudaDriver) Proxy.newProxyInstance(CudaDriver.class.getClassLoader(),
        new Class<?>[] {CudaDriver.class}, (proxy, method, args) -> {
          if (method.getName().equals("allocPinned") && (Integer) args[0] == 3 << 16) {
            throw new GpuException("cuMemAllocHost(196608)", 2, "CUDA_ERROR_OUT_OF_MEMORY");
          }
          try {
            return method.invoke(emulated, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    Path json = dir.resolve("codec-gpu.json");
    SelfCheckOptions o = new SelfCheckOptions(json, dir.resolve("missing.py"), "sh", false, 1, 60,
        7, sizes);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    int status = new GpuSelfCheck(o, driver, out, new SelfCheckWatchdog(60, out)).run();
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(GpuSelfCheck.FAILED, status, printed);
    assertTrue(printed.contains("gpu-check: FAILED while allocating device buffers: "
        + "io.parityfs.raid.codec.gpu.GpuException: cuMemAllocHost(196608)"), printed);
    assertTrue(printed.contains("tenant slowdown: unknown: the tenant script " + dir
        + "/missing.py does not exist"), printed);
    String text = Files.readString(json);
    assertTrue(text.contains("\"failures\": [\n    \"allocating device buffers: "), text);
    assertTrue(text.contains("\"rs10_4_resident_gbps >= 1000\": \"unknown: not measured\""),
        text);
    assertTrue(text.contains("\"equality_mismatches\": 0"), text);
    assertEquals(List.of(), emulated.violations());
    assertEquals(0, emulated.deviceBytesAllocated(), "everything freed");
  }

  /** {@code driver}, except that launches of {@code kernel} do nothing. */
  static CudaDriver dropping(CudaDriver driver, CudaKernel kernel) {
    return (CudaDriver) Proxy.newProxyInstance(CudaDriver.class.getClassLoader(),
        new Class<?>[] {CudaDriver.class}, (proxy, method, args) -> {
          if (method.getName().equals("launch") && args[0] == kernel) {
            return null;
          }
          try {
            return method.invoke(driver, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
