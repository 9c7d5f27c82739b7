package io.parityfs.raid.codec.gpu.check;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The command line of {@link GpuSelfCheck}, parsed.
 *
 * @param out where the benchmark JSON goes
 * @param tenantScript the tenant load script ({@code tenant_load.py})
 * @param python the Python interpreter that runs it
 * @param quick smaller sizes and shorter windows, for a smoke run
 * @param tenantSeconds the length of each tenant window (alone, then beside the codec)
 * @param deadlineSeconds the whole check is cut off (exit 4) after this long
 * @param seed the seed of the random data
 * @param sizes what the check moves, from {@code quick}
 */
record SelfCheckOptions(Path out, Path tenantScript, String python, boolean quick,
    double tenantSeconds, int deadlineSeconds, long seed, SelfCheckSizes sizes) {

  static final String USAGE = String.join("\n",
      "usage: GpuSelfCheck [--out PATH] [--tenant-script PATH] [--python CMD] [--quick]",
      "                    [--seconds N] [--deadline N] [--seed N]",
      "  --out PATH            benchmark JSON to write (default docs/benchmarks/codec-gpu.json)",
      "  --tenant-script PATH  tenant_load.py (default gpu-raid/scripts/tenant_load.py)",
      "  --python CMD          interpreter for the tenant script (default python3)",
      "  --quick               smaller sizes and 5 s tenant windows: a smoke run",
      "  --seconds N           length of each tenant window (default 15, quick 5)",
      "  --deadline N          give up after N seconds, exit 4 (default 270)",
      "  --seed N              seed of the random data (default 20261130)",
      "exit status: 0 checked (goals are reported, not enforced), 1 CPU != GPU, 2 bad usage,",
      "             3 no usable GPU, 4 deadline or GPU failure");

  /**
   * Parses the arguments.
   *
   * @throws IllegalArgumentException naming the bad argument
   */
  static SelfCheckOptions parse(String... args) {
    Path out = Path.of("docs/benchmarks/codec-gpu.json");
    Path tenant = Path.of("gpu-raid/scripts/tenant_load.py");
    String python = "python3";
    boolean quick = false;
    Double seconds = null;
    int deadline = 270;
    long seed = 20261130L;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick" -> quick = true;
        case "--out" -> out = Path.of(value(args, ++i, a));
        case "--tenant-script" -> tenant = Path.of(value(args, ++i, a));
        case "--python" -> python = value(args, ++i, a);
        case "--seconds" -> {
          seconds = number(args, ++i, a);
          if (!(seconds >= 1 && seconds <= 120)) {
            throw new IllegalArgumentException("--seconds (" + args[i] + ") must be in 1..120");
          }
        }
        case "--deadline" -> {
          double d = number(args, ++i, a);
          if (!(d >= 10 && d <= 3600) || d != Math.rint(d)) {
            throw new IllegalArgumentException(
                "--deadline (" + args[i] + ") must be a whole number of seconds in 10..3600");
          }
          deadline = (int) d;
        }
        case "--seed" -> {
          try {
            seed = Long.parseLong(value(args, ++i, a));
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--seed (" + args[i] + ") must be an integer");
          }
        }
        default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
      }
    }
    double s = seconds != null ? seconds : quick ? 5 : 15;
    return new SelfCheckOptions(out, tenant, python, quick, s, deadline, seed,
        quick ? SelfCheckSizes.QUICK : SelfCheckSizes.FULL);
  }

  /** The command line that reproduces this run, for the JSON's "command". */
  String command() {
    StringBuilder c = new StringBuilder("bash gpu-raid/scripts/gpu-check.sh run");
    if (quick) {
      c.append(" --quick");
    }
    if (tenantSeconds != (quick ? 5 : 15)) {
      c.append(String.format(Locale.ROOT, " --seconds %s", trim(tenantSeconds)));
    }
    return c.toString();
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length || args[i].startsWith("--")) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  private static double number(String[] args, int i, String option) {
    String v = value(args, i, option);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " (" + v + ") must be a number");
    }
  }
}
