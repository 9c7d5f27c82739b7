package io.parityfs.raid.bench;

import io.parityfs.raid.array.object.StoreOptions;
import java.util.Locale;

/**
 * Command-line options of {@link ArrayBenchmark}.
 *
 * <pre>
 *   --out PATH          the JSON (default docs/benchmarks/array.json; quick runs:
 *                       gpu-raid/array/target/array-quick.json)
 *   --quick             smoke run: 256 MiB on disk, 128 MiB on tmpfs, 1 rep, 1 s random reads
 *   --dir PATH          where the disk-backed drive directories go (default
 *                       gpu-raid/array/target/array-bench)
 *   --tmpfs PATH        where the tmpfs-backed ones go (default /dev/shm; "none" skips the case)
 *   --size N            user bytes on disk (default 4g; suffix k, m, g)
 *   --tmpfs-size N      user bytes on tmpfs (default 2g)
 *   --object-size N     bytes per object (default 64m, the array's maximum object size)
 *   --concurrency N     caller threads writing or reading objects at once (default 8)
 *   --raw-depth N       1 MiB requests in flight per raw baseline file (default 4: the store's
 *                       threads per drive)
 *   --read-chunk N      bytes per sequential read call (default 4m: k x 1 MiB)
 *   --reps N            passes of each throughput measurement (default 3, quick 1)
 *   --rand-threads N    random readers, one read in flight each (default 32)
 *   --rand-seconds S    timed seconds per random-read size (default 5, quick 1)
 *   --scale N,N,..      objects per drive of the object-count case (default 10,1000,100000;
 *                       quick 10,200; "none" skips it; {@link ObjectCountScale})
 * </pre>
 *
 * @param given the arguments as given, joined by spaces (for the reproducing command)
 */
record ArrayBenchOptions(
    String out, boolean quick, String dir, String tmpfs, long size, long tmpfsSize, int objectSize,
    int concurrency, int rawDepth, int readChunk, int reps, int randThreads, double randSeconds,
    int[] scale, String given) {
  static final String DEFAULT_OUT = "docs/benchmarks/array.json";
  static final String QUICK_OUT = "gpu-raid/array/target/array-quick.json";
  static final String USAGE = "--out PATH, --quick, --dir PATH, --tmpfs PATH|none, --size N,"
      + " --tmpfs-size N, --object-size N, --concurrency N, --raw-depth N, --read-chunk N,"
      + " --reps N, --rand-threads N, --rand-seconds S, --scale N,N,..|none";

  /** Whether the tmpfs case runs. */
  boolean tmpfsCase() {
    return !tmpfs.equals("none");
  }

  /**
   * Parses the arguments.
   *
   * @throws IllegalArgumentException naming an unknown argument or a bad value
   */
  static ArrayBenchOptions parse(String[] args) {
    boolean quick = false;
    for (String a : args) {
      quick |= a.equals("--quick");
    }
    String out = null;
    String dir = "gpu-raid/array/target/array-bench";
    String tmpfs = "/dev/shm";
    long size = quick ? 256L << 20 : 4L << 30;
    long tmpfsSize = quick ? 128L << 20 : 2L << 30;
    long objectSize = 64L << 20;
    int concurrency = 8;
    int rawDepth = StoreOptions.DEFAULTS.threadsPerDrive();
    long readChunk = 4L << 20;
    int reps = quick ? 1 : 3;
    int randThreads = 32;
    double randSeconds = quick ? 1 : 5;
    int[] scale = quick ? new int[] {10, 200} : new int[] {10, 1000, 100_000};
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick" -> { }
        case "--out" -> out = value(args, ++i, a);
        case "--dir" -> dir = value(args, ++i, a);
        case "--tmpfs" -> tmpfs = value(args, ++i, a);
        case "--size" -> size = bytes(value(args, ++i, a), a);
        case "--tmpfs-size" -> tmpfsSize = bytes(value(args, ++i, a), a);
        case "--object-size" -> objectSize = bytes(value(args, ++i, a), a);
        case "--concurrency" -> concurrency = count(value(args, ++i, a), a, 1, 256);
        case "--raw-depth" -> rawDepth = count(value(args, ++i, a), a, 1, 64);
        case "--read-chunk" -> readChunk = bytes(value(args, ++i, a), a);
        case "--reps" -> reps = count(value(args, ++i, a), a, 1, 100);
        case "--rand-threads" -> randThreads = count(value(args, ++i, a), a, 1, 1024);
        case "--rand-seconds" -> randSeconds = seconds(value(args, ++i, a), a);
        case "--scale" -> scale = counts(value(args, ++i, a), a);
        default -> throw new IllegalArgumentException("unknown argument '" + a + "' (" + USAGE
            + ")");
      }
    }
    if (objectSize < 1 << 20 || objectSize > 1L << 30 || objectSize % (1 << 20) != 0) {
      throw new IllegalArgumentException(
          "--object-size (" + objectSize + ") must be a whole number of MiB, 1m..1g");
    }
    if (readChunk < 4096 || readChunk > 1L << 30 || readChunk % 4096 != 0) {
      throw new IllegalArgumentException(
          "--read-chunk (" + readChunk + ") must be a multiple of 4096, at most 1g");
    }
    requireSize(size, "--size");
    if (!tmpfs.equals("none")) {
      requireSize(tmpfsSize, "--tmpfs-size");
    }
    if (out == null && quick) {
      out = QUICK_OUT;
    } else if (out == null) {
      out = DEFAULT_OUT;
    }
    return new ArrayBenchOptions(out, quick, dir, tmpfs, size, tmpfsSize, (int) objectSize,
        concurrency, rawDepth, (int) readChunk, reps, randThreads, randSeconds, scale,
        String.join(" ", args));
  }

  /** Object counts, ascending, 1..1,000,000 each; "none": no count (the case is skipped). */
  private static int[] counts(String v, String option) {
    if (v.equals("none")) {
      return new int[0];
    }
    int[] c = new int[v.split(",").length];
    int i = 0;
    for (String part : v.split(",")) {
      c[i] = count(part.trim(), option, 1, 1_000_000);
      if (i > 0 && c[i] <= c[i - 1]) {
        throw new IllegalArgumentException(option + " (" + v + ") must be ascending");
      }
      i++;
    }
    return c;
  }

  /** Objects of a case of {@code bytes} user bytes: whole objects, rounded up. */
  int objects(long bytes) {
    return (int) ((bytes + objectSize - 1) / objectSize);
  }

  private static void requireSize(long size, String option) {
    if (size < 1 << 20 || size % (1 << 20) != 0) {
      throw new IllegalArgumentException(
          option + " (" + size + ") must be a whole number of MiB, at least 1m");
    }
  }

  /** "256m", "4g", "65536", "64k" (binary units). */
  static long bytes(String text, String option) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (t.endsWith("ib")) {
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("b")) {
      t = t.substring(0, t.length() - 1);
    }
    if (!t.isEmpty()) {
      switch (t.charAt(t.length() - 1)) {
        case 'k' -> unit = 1L << 10;
        case 'm' -> unit = 1L << 20;
        case 'g' -> unit = 1L << 30;
        case 't' -> unit = 1L << 40;
        default -> { }
      }
    }
    if (unit != 1) {
      t = t.substring(0, t.length() - 1);
    }
    try {
      long n = Long.parseLong(t);
      if (n <= 0 || n > Long.MAX_VALUE / unit) {
        throw new NumberFormatException();
      }
      return n * unit;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          option + " needs a size such as 256m or 4g, not '" + text + "'");
    }
  }

  private static int count(String text, String option, int min, int max) {
    try {
      int n = Integer.parseInt(text);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        option + " (" + text + ") must be a whole number in " + min + ".." + max);
  }

  private static double seconds(String text, String option) {
    try {
      double s = Double.parseDouble(text);
      if (s > 0 && s <= 600) {
        return s;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(option + " (" + text + ") must be in (0, 600] seconds");
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length || args[i].startsWith("--")) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }
}
