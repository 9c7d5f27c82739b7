package io.parityfs.raid.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Command-line options of {@link CodecCpuBenchmark}.
 *
 * <pre>
 *   --out PATH     where to write the JSON (default docs/benchmarks/codec-cpu.json)
 *   --quick        small data set and short passes, for a smoke run; writes JSON only with --out
 *   --cases a,b    run only these case ids (xor15_1, pq14_2, rs8_2, rs6_3, rs10_4_encode,
 *                  rs10_4_decode2)
 * </pre>
 *
 * @param out the JSON file, or null when none is written
 * @param quick whether to use {@link MeasurementPlan#QUICK}
 * @param cases the cases to run, in {@link BenchCase#ALL} order
 * @param given the arguments as given, joined by spaces (for the reproducing command)
 */
record BenchOptions(String out, boolean quick, List<BenchCase> cases, String given) {
  static final String DEFAULT_OUT = "docs/benchmarks/codec-cpu.json";

  /**
   * Parses the arguments.
   *
   * @throws IllegalArgumentException naming an unknown argument or case id
   */
  static BenchOptions parse(String[] args) {
    String out = null;
    boolean quick = false;
    List<String> ids = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--out" -> out = value(args, ++i, "--out");
        case "--cases" -> ids = List.of(value(args, ++i, "--cases").split(","));
        default -> throw new IllegalArgumentException(
            "unknown argument '" + args[i] + "' (--out PATH, --quick, --cases a,b)");
      }
    }
    List<BenchCase> cases = new ArrayList<>();
    for (BenchCase c : BenchCase.ALL) {
      if (ids == null || ids.contains(c.id())) {
        cases.add(c);
      }
    }
    if (ids != null) {
      for (String id : ids) {
        if (BenchCase.ALL.stream().noneMatch(c -> c.id().equals(id))) {
          throw new IllegalArgumentException("unknown case '" + id + "' (known: "
              + String.join(", ", BenchCase.ALL.stream().map(BenchCase::id).toList()) + ")");
        }
      }
    }
    if (out == null && !quick) {
      out = DEFAULT_OUT;
    }
    return new BenchOptions(out, quick, List.copyOf(cases), String.join(" ", args));
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length || args[i].startsWith("--")) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }
}
