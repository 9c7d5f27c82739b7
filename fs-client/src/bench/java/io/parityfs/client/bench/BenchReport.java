package io.parityfs.client.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The JSON every benchmark of this module writes ({@code docs/benchmarks/<name>.json}: benchmark,
 * command, date, jdk, machine, descriptions, metrics, ratios) and the small helpers they share.
 */
final class BenchReport {
  private final String name;
  private final String command;
  private final Map<String, String> described = new LinkedHashMap<>();
  final Map<String, Object> metrics = new LinkedHashMap<>();
  final Map<String, Object> ratios = new LinkedHashMap<>();

  BenchReport(String name, String command) {
    this.name = name;
    this.command = command;
  }

  /** A top-level string field (method, sides, load average...), in insertion order. */
  void describe(String key, String value) {
    described.put(key, value);
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
    StringBuilder json = new StringBuilder("{\n");
    field(json, "benchmark", name);
    field(json, "command", command);
    field(json, "date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    field(json, "jdk", System.getProperty("java.vm.name") + " "
        + System.getProperty("java.vm.version"));
    field(json, "machine", machine());
    for (var e : described.entrySet()) {
      field(json, e.getKey(), e.getValue());
    }
    json.append("  \"metrics\" : {\n");
    map(json, metrics);
    json.append("  },\n  \"ratios\" : {\n");
    map(json, ratios);
    json.append("  }\n}\n");
    return json.toString();
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

  private static void field(StringBuilder json, String k, String v) {
    json.append("  ").append(quote(k)).append(" : ").append(quote(v)).append(",\n");
  }

  private static void map(StringBuilder json, Map<String, Object> m) {
    int i = 0;
    for (var e : m.entrySet()) {
      json.append("    ").append(quote(e.getKey())).append(" : ").append(e.getValue())
          .append(++i < m.size() ? ",\n" : "\n");
    }
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> b.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
      }
    }
    return b.append('"').toString();
  }

  static double round(double v) {
    return v >= 100 ? Math.round(v) : Math.round(v * 1000) / 1000.0;
  }

  static String machine() {
    String cpu = "unknown CPU";
    try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
      cpu = lines.filter(l -> l.startsWith("model name")).findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse(cpu);
    } catch (IOException e) {
      // keep "unknown"
    }
    long mem = ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getTotalMemorySize();
    return String.format(Locale.ROOT, "%s, %d cores, %.1f GiB RAM", cpu,
        Runtime.getRuntime().availableProcessors(), mem / (double) (1L << 30));
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  static void log(String fmt, Object... args) {
    System.out.printf(Locale.ROOT, "[%s] %s%n", Instant.now().truncatedTo(ChronoUnit.SECONDS),
        String.format(Locale.ROOT, fmt, args));
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(q);
      }
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
