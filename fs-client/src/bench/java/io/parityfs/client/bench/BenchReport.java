package io.parityfs.client.bench;

import io.parityfs.raid.report.BenchmarkJson;
import io.parityfs.raid.report.Machine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON every benchmark of this module writes ({@code docs/benchmarks/<name>.json}: benchmark,
 * command, date, jdk, machine, descriptions, metrics, ratios), written by the repository's one
 * result writer ({@link BenchmarkJson}, {@link Machine}), and the small helpers they share.
 */
final class BenchReport {
  private final String name;
  private final String command;
  private final Map<String, String> described = new LinkedHashMap<>();
  final Map<String, Object> metrics = new LinkedHashMap<>();
  final Map<String, Object> ratios = new LinkedHashMap<>();
  private final Map<String, Object> sections = new LinkedHashMap<>();

  BenchReport(String name, String command) {
    this.name = name;
    this.command = command;
  }

  /** A top-level string field (method, sides, load average...), in insertion order. */
  void describe(String key, String value) {
    described.put(key, value);
  }

  /** A top-level object after the ratios (a breakdown that is neither a metric nor a ratio). */
  void section(String key, Map<String, Object> value) {
    sections.put(key, value);
  }

  void metric(String key, double value) {
    metrics.put(key, round(value));
  }

  /** {@code name} = metric a / metric b, when both were measured. */
  void ratio(String ratioName, String a, String b) {
    if (metrics.get(a) instanceof Number x && metrics.get(b) instanceof Number y
        && y.doubleValue() > 0) {
      ratios.put(ratioName, Math.round(x.doubleValue() / y.doubleValue() * 1000) / 1000.0);
    }
  }

  String json() {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("benchmark", name);
    doc.put("command", command);
    doc.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    doc.put("jdk", Machine.jdk());
    doc.put("machine", Machine.describe());
    doc.putAll(described);
    doc.put("metrics", metrics);
    doc.put("ratios", ratios);
    doc.putAll(sections);
    return BenchmarkJson.write(doc);
  }

  /** Prints the JSON and writes it to {@code out} (if not null). */
  void write(Path out) throws IOException {
    String json = json();
    System.out.print(json);
    if (out != null) {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, json);
      log("wrote %s", out);
    }
  }

  static double round(double v) {
    return v >= 100 ? Math.round(v) : Math.round(v * 1000) / 1000.0;
  }

  static String loadAverage() {
    return Machine.loadAverage();
  }

  /** Describes the load average: {@code before} (taken at the start) and now. */
  void loadAverageSince(String before) {
    describe("load_average", before + " before, " + loadAverage() + " after");
  }

  static void log(String fmt, Object... args) {
    System.out.printf(Locale.ROOT, "[%s] %s%n", Instant.now().truncatedTo(ChronoUnit.SECONDS),
        String.format(Locale.ROOT, fmt, args));
  }

  /**
   * The machine's busy CPU time so far, in seconds (every process and the kernel: /proc/stat's
   * user, nice, system, irq, softirq and steal, in USER_HZ = 100 ticks); 0 when unknown. For CPU
   * per byte where the work is spread over processes (dd, the kernel's FUSE and page cache, this
   * JVM's nodes): the difference over a phase, on a machine that runs nothing else.
   */
  static double machineBusySeconds() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long ticks = 0;
      for (int i : new int[] {1, 2, 3, 6, 7, 8}) { // cpu user nice system idle iowait irq ...
        ticks += Long.parseLong(f[i]);
      }
      return ticks / 100.0;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /** Drops the page cache (root only); false when it cannot. */
  static boolean dropCaches() {
    try {
      Process p = new ProcessBuilder("sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches")
          .redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
