package io.parityfs.raid.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Where a benchmark or check ran, for the "jdk" and "machine" fields of a result: the JVM, the
 * CPU model, core count, memory and the SIMD flags the codec cares about (from {@code /proc}),
 * and the load average. A missing {@code /proc} file gives "unknown" rather than an error.
 */
public final class Machine {
  private static final List<String> CPU_FLAGS =
      List.of("avx2", "avx512f", "avx512bw", "avx512vbmi", "gfni");

  private Machine() {}

  /** E.g. "OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1". */
  public static String jdk() {
    return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
  }

  /** E.g. "AMD EPYC, 2 cores, 23.5 GiB RAM, flags avx2 avx512f avx512bw gfni". */
  public static String describe() {
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
  public static String loadAverage() {
    List<String> l = lines("/proc/loadavg");
    if (l.isEmpty()) {
      return "unknown";
    }
    String[] f = l.get(0).split("\\s+");
    return f[0] + " " + f[1] + " " + f[2];
  }

  /** The lines of a small text file, or none when it cannot be read. */
  public static List<String> lines(String file) {
    try {
      return Files.readAllLines(Path.of(file));
    } catch (IOException e) {
      return List.of();
    }
  }
}
