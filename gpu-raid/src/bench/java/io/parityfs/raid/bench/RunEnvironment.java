package io.parityfs.raid.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Describes where a benchmark ran: the JVM, the CPU and memory (from {@code /proc}), the load
 * average, and the Maven command line that reproduces the run. Missing {@code /proc} files give
 * "unknown" rather than an error, so the harness also runs off Linux.
 */
final class RunEnvironment {
  /** The JDK the {@code bench} profile uses when {@code -Dbench.java} is not given. */
  static final String DEFAULT_JAVA_HOME = "/usr/lib/jvm/java-17-openjdk-amd64";

  private static final List<String> CPU_FLAGS =
      List.of("avx2", "avx512f", "avx512bw", "avx512vbmi", "gfni");

  private RunEnvironment() {}

  static String jdk() {
    return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
  }

  /** E.g. "AMD EPYC, 2 cores, 23.5 GiB RAM, flags avx2 avx512f avx512bw gfni". */
  static String machine() {
    String model = "unknown CPU";
    StringBuilder flags = new StringBuilder();
    List<String> cpuinfo = lines("/proc/cpuinfo");
    for (String line : cpuinfo) {
      if (line.startsWith("model name")) {
        model = line.substring(line.indexOf(':') + 1).trim();
        break;
      }
    }
    for (String line : cpuinfo) {
      if (line.startsWith("flags")) {
        List<String> present = List.of(line.substring(line.indexOf(':') + 1).trim().split("\\s+"));
        for (String f : CPU_FLAGS) {
          if (present.contains(f)) {
            flags.append(' ').append(f);
          }
        }
        break;
      }
    }
    String ram = "unknown RAM";
    for (String line : lines("/proc/meminfo")) {
      if (line.startsWith("MemTotal:")) {
        long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
        ram = String.format(Locale.ROOT, "%.1f GiB RAM", kib / 1048576.0);
      }
    }
    return model + ", " + Runtime.getRuntime().availableProcessors() + " cores, " + ram
        + (flags.length() > 0 ? ", flags" + flags : "");
  }

  /** The 1, 5 and 15 minute load averages, e.g. "0.51 0.16 0.06". */
  static String loadAverage() {
    List<String> l = lines("/proc/loadavg");
    if (l.isEmpty()) {
      return "unknown";
    }
    String[] f = l.get(0).split("\\s+");
    return f[0] + " " + f[1] + " " + f[2];
  }

  /**
   * The command that reproduces this run from the repository root: {@code -Dbench.java} when this
   * JVM is not the default JDK 17, {@code -Dbench.args} when arguments were given.
   */
  static String command(String benchArgs) {
    StringBuilder c = new StringBuilder("mvn -q -pl gpu-raid -Pbench test-compile exec:exec");
    String home = System.getProperty("java.home");
    if (!canonical(home).equals(canonical(DEFAULT_JAVA_HOME))) {
      c.append(" -Dbench.java=").append(home).append("/bin/java");
    }
    if (!benchArgs.isEmpty()) {
      c.append(" -Dbench.args=\"").append(benchArgs).append('"');
    }
    return c.toString();
  }

  private static String canonical(String path) {
    try {
      return Path.of(path).toRealPath().toString();
    } catch (IOException e) {
      return path;
    }
  }

  private static List<String> lines(String file) {
    try {
      return Files.readAllLines(Path.of(file));
    } catch (IOException e) {
      return List.of();
    }
  }
}
