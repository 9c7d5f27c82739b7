package io.parityfs.meta.bench;

import io.parityfs.raid.report.BenchmarkJson;
import io.parityfs.raid.report.Machine;
import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Metadata operations of ParityFS's namespace (ZooKeeper) against an HDFS NameNode, side by side
 * in one JVM and one run: file creates, stats, renames from 1 and 16 threads, and the listing of
 * a 100,000-entry directory. Writes {@code docs/benchmarks/metadata.json}; see {@code
 * docs/benchmarks.md} ("Metadata") for the method.
 *
 * <pre>
 * mvn -q -pl metadata -Pbench test-compile exec:exec [-Dbench.args="..."]
 *   --out PATH        JSON (default docs/benchmarks/metadata.json; --quick writes none unless given)
 *   --quick           smoke run: 1 run, 1 s phases, a 5,000-entry directory
 *   --runs N          alternating runs per side (3); the median is reported
 *   --seconds S       length of each timed phase (3)
 *   --threads 1,16    thread counts
 *   --sessions N      ZooKeeper sessions (Curator clients) ParityFS uses (4)
 *   --cache N         ParityFS entry cache size per session (262144)
 *   --list N          entries of the listed directory (100000)
 * </pre>
 *
 * <p>Each thread T works in two directories, {@code /d/cT} and {@code /d/mT}, made and seeded
 * with {@value #SEED_FILES} files each before the warm-up. Each run, for each side (order
 * alternating between runs) and each thread count, with new names: <b>creates</b> (create + close of an empty file, for {@code seconds}),
 * <b>stat_first</b> (every file just made, once), <b>stats</b> (random files of those, for
 * {@code seconds}), <b>renames</b> (every file once, alternately within its directory and into
 * another one). Then the listing (one thread, 1,000 entries per request): ParityFS from a fresh
 * session (<b>cold</b>: nothing cached) and again (<b>warm</b>), HDFS twice. A warm-up of every
 * operation on both sides comes first; filling the listed directory is not timed (ParityFS:
 * batched {@code multi}s of the records create writes; HDFS: creates from 16 threads with the
 * edit-log fsync off during the fill only).
 */
public final class MetadataBenchmark {
  private final Options o;
  /** side → metric → one value per run. */
  private final Map<String, Map<String, List<Double>>> values = new LinkedHashMap<>();

  private MetadataBenchmark(Options o) {
    this.o = o;
  }

  private record Options(Path out, boolean quick, int runs, double seconds, int[] threads,
      int sessions, int cache, int list, String command) {}

  public static void main(String[] args) throws Exception {
    Path out = null;
    boolean quick = false;
    int runs = 3;
    double seconds = 3;
    int[] threads = {1, 16};
    int sessions = 4;
    int cache = 262_144;
    int list = 100_000;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--quick" -> quick = true;
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Double.parseDouble(args[++i]);
        case "--threads" -> threads = Arrays.stream(args[++i].split(","))
            .mapToInt(Integer::parseInt).toArray();
        case "--sessions" -> sessions = Integer.parseInt(args[++i]);
        case "--cache" -> cache = Integer.parseInt(args[++i]);
        case "--list" -> list = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (quick) {
      runs = 1;
      seconds = 1;
      list = Math.min(list, 5_000);
    } else if (out == null) {
      out = Path.of("docs/benchmarks/metadata.json");
    }
    String command = "mvn -q -pl metadata -Pbench test-compile exec:exec"
        + (args.length == 0 ? "" : " -Dbench.args=\"" + String.join(" ", args) + "\"");
    new MetadataBenchmark(new Options(out, quick, runs, seconds, threads, sessions, cache, list,
        command)).run();
    System.exit(0); // MiniDFSCluster leaves non-daemon threads behind
  }

  private void run() throws Exception {
    String loadBefore = Machine.loadAverage();
    Path work = Path.of("metadata/target/bench").toAbsolutePath();
    TestDirs.deleteTree(work);
    Files.createDirectories(work);
    log("class path: %s", classPathCheck());
    try (ParityFsSide pfs = new ParityFsSide(work.resolve("zk"), o.sessions, o.cache);
        HdfsSide hdfs = new HdfsSide(work.resolve("hdfs").toFile())) {
      List<MetadataSide> sides = List.of(pfs, hdfs);
      for (MetadataSide s : sides) {
        log("%s: %s", s.name(), s.describe());
      }
      int most = Arrays.stream(o.threads).max().orElse(1);
      for (MetadataSide s : sides) {
        long start = System.nanoTime();
        seed(s, most);
        log("%s: made %d directory pairs with %d seed files each (not measured) in %.1f s",
            s.name(), most, SEED_FILES, (System.nanoTime() - start) / 1e9);
      }
      for (MetadataSide s : sides) { // warm-up: every operation, both thread counts
        for (int t : o.threads) {
          operations(s, t, "w" + t + "-", Math.min(o.seconds, 2), false);
        }
        s.listAll("/d/c0", false);
      }
      for (MetadataSide s : sides) {
        long start = System.nanoTime();
        load(s, "/list", o.list);
        log("%s: loaded /list with %d files in %.1f s (not measured)", s.name(), o.list,
            (System.nanoTime() - start) / 1e9);
      }
      for (int run = 0; run < o.runs; run++) {
        List<MetadataSide> order = run % 2 == 0 ? sides : List.of(hdfs, pfs);
        for (MetadataSide s : order) {
          for (int t : o.threads) {
            operations(s, t, "r" + run + "t" + t + "-", o.seconds, true);
          }
          listing(s);
        }
      }
      write(pfs.describe(), hdfs.describe(), loadBefore, Machine.loadAverage());
    }
  }

  // ------------------------------------------------------------------ phases

  /** Seed files per directory: every one of a ParityFS directory's 64 buckets gets entries. */
  private static final int SEED_FILES = 512;

  /**
   * Makes the working directories {@code /d/cT} and {@code /d/mT} of each thread T and puts
   * {@link #SEED_FILES} files in each, so the timed phases work in directories in use rather
   * than new ones (in ParityFS the first entry of each of a directory's buckets also creates the
   * bucket znode: an extra refused {@code multi} and a create).
   */
  private static void seed(MetadataSide s, int threads) throws Exception {
    parallel(threads, t -> {
      s.mkdirs(t, "/d/c" + t);
      s.mkdirs(t, "/d/m" + t);
      for (int i = 0; i < SEED_FILES; i++) {
        s.createFile(t, "/d/c" + t + "/seed" + i);
        s.createFile(t, "/d/m" + t + "/seed" + i);
      }
      return 0;
    });
  }

  /**
   * Creates, stats (first and random), renames of new files named {@code tag...} in the threads'
   * working directories.
   */
  private void operations(MetadataSide s, int threads, String tag, double seconds,
      boolean record) throws Exception {
    List<List<String>> made = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      made.add(new ArrayList<>());
    }
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    double creates = parallel(threads, t -> {
      List<String> mine = made.get(t);
      for (int i = 0; System.nanoTime() < deadline; i++) {
        String p = "/d/c" + t + "/" + tag + "f" + i;
        s.createFile(t, p);
        mine.add(p);
      }
      return mine.size();
    });
    String[] all = made.stream().flatMap(List::stream).toArray(String[]::new);
    double statFirst = parallel(threads, t -> {
      for (String p : made.get(t)) {
        s.stat(t, p);
      }
      return made.get(t).size();
    });
    long statDeadline = System.nanoTime() + (long) (seconds * 1e9);
    double stats = parallel(threads, t -> {
      SplittableRandom r = new SplittableRandom(t * 7919L + threads);
      long n = 0;
      while (System.nanoTime() < statDeadline) {
        for (int k = 0; k < 64; k++, n++) {
          s.stat(t, all[r.nextInt(all.length)]);
        }
      }
      return n;
    });
    double renames = parallel(threads, t -> {
      List<String> mine = made.get(t);
      for (int i = 0; i < mine.size(); i++) {
        String dst = i % 2 == 0 ? "/d/c" + t + "/" + tag + "g" + i
            : "/d/m" + t + "/" + tag + "f" + i;
        s.rename(t, mine.get(i), dst);
      }
      return mine.size();
    });
    log("%-8s %2d thread(s): creates %8.0f/s  stat_first %8.0f/s  stats %9.0f/s  renames %8.0f/s"
        + "  (%d files)%s", s.name(), threads, creates, statFirst, stats, renames, all.length,
        record ? "" : "  [warm-up]");
    if (record) {
      add(s, "creates_per_s_" + threads + "t", creates);
      add(s, "stat_first_per_s_" + threads + "t", statFirst);
      add(s, "stats_per_s_" + threads + "t", stats);
      add(s, "renames_per_s_" + threads + "t", renames);
    }
  }

  private void listing(MetadataSide s) throws IOException {
    double first = timeList(s, true);
    double second = timeList(s, false);
    log("%-8s list of %d entries: %.3f s first (%s), %.3f s again", s.name(), o.list, first,
        s instanceof ParityFsSide ? "fresh session, nothing cached" : "no client cache", second);
    add(s, "list_first_s", first);
    add(s, "list_s", second);
  }

  private double timeList(MetadataSide s, boolean fresh) throws IOException {
    long start = System.nanoTime();
    long n = s.listAll("/list", fresh);
    double secs = (System.nanoTime() - start) / 1e9;
    if (n != o.list) {
      throw new IllegalStateException(s.name() + " listed " + n + " entries, expected " + o.list);
    }
    return secs;
  }

  /** Fills {@code dir} with {@code n} empty files, the side's fastest way (not measured). */
  private static void load(MetadataSide s, String dir, int n) throws Exception {
    s.mkdirs(0, dir);
    s.fill(dir, n);
  }

  @FunctionalInterface
  private interface Work {
    long run(int thread) throws Exception;
  }

  /** Runs {@code threads} workers from one start signal; operations per second over all. */
  private static double parallel(int threads, Work work) throws Exception {
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long[] counts = new long[threads];
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread w = new Thread(() -> {
        ready.countDown();
        try {
          go.await();
          counts[id] = work.run(id);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "bench-" + t);
      workers.add(w);
      w.start();
    }
    ready.await();
    long start = System.nanoTime();
    go.countDown();
    for (Thread w : workers) {
      w.join();
    }
    long elapsed = System.nanoTime() - start;
    if (failure.get() != null) {
      throw new IllegalStateException("a benchmark thread failed", failure.get());
    }
    return Arrays.stream(counts).sum() / (elapsed / 1e9);
  }

  // ------------------------------------------------------------------ results

  private void add(MetadataSide s, String metric, double v) {
    values.computeIfAbsent(s.name(), k -> new LinkedHashMap<>())
        .computeIfAbsent(metric, k -> new ArrayList<>()).add(v);
  }

  private double median(String side, String metric) {
    List<Double> v = new ArrayList<>(values.get(side).get(metric));
    v.sort(Comparator.naturalOrder());
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  private void write(String pfsDescription, String hdfsDescription, String loadBefore,
      String loadAfter) throws IOException {
    Map<String, Object> metrics = new LinkedHashMap<>();
    for (String side : values.keySet()) {
      for (String m : values.get(side).keySet()) {
        metrics.put(side + "_" + m, round(median(side, m)));
      }
    }
    Map<String, Object> ratios = new LinkedHashMap<>();
    int hi = o.threads[o.threads.length - 1];
    int lo = o.threads[0];
    ratios.put("creates_vs_hdfs", rate("creates_per_s_" + hi + "t"));
    ratios.put("stats_vs_hdfs", rate("stats_per_s_" + hi + "t"));
    ratios.put("list100k_vs_hdfs", round(median("hdfs", "list_s") / median("parityfs", "list_s")));
    ratios.put("renames_vs_hdfs", rate("renames_per_s_" + hi + "t"));
    ratios.put("stat_first_vs_hdfs", rate("stat_first_per_s_" + hi + "t"));
    ratios.put("list100k_cold_vs_hdfs",
        round(median("hdfs", "list_s") / median("parityfs", "list_first_s")));
    if (lo != hi) {
      ratios.put("creates_vs_hdfs_" + lo + "t", rate("creates_per_s_" + lo + "t"));
      ratios.put("stats_vs_hdfs_" + lo + "t", rate("stats_per_s_" + lo + "t"));
      ratios.put("renames_vs_hdfs_" + lo + "t", rate("renames_per_s_" + lo + "t"));
      ratios.put("stat_first_vs_hdfs_" + lo + "t", rate("stat_first_per_s_" + lo + "t"));
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("benchmark", "metadata");
    doc.put("command", o.command);
    doc.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    doc.put("jdk", Machine.jdk());
    doc.put("machine", Machine.describe());
    doc.put("load_average", loadBefore + " before, " + loadAfter + " after");
    doc.put("parityfs", pfsDescription);
    doc.put("hdfs", hdfsDescription);
    doc.put("class_path", classPathCheck());
    doc.put("durability", "both fsync every write before replying: ZooKeeper forceSync=yes "
        + "(transaction log fsync per group commit), HDFS edit log fsync per sync batch "
        + "(EditLogFileOutputStream.setShouldSkipFsyncForTesting(false)); both on ext4 on the "
        + "same virtual disk");
    doc.put("method", String.format("%d runs, sides alternating first; per run and thread count:"
        + " creates (create + close of an empty file) for %.0f s, stat_first (each new file once),"
        + " stats (random new files) for %.0f s, renames (each file once, alternately within its"
        + " directory and into another); threads %s; list of a %d-entry directory by one thread"
        + " in requests of 1,000 (ParityFS first from a fresh session, then again); medians",
        o.runs, o.seconds, o.seconds, Arrays.toString(o.threads), o.list));
    doc.put("list_entries", o.list);
    doc.put("metrics", metrics);
    doc.put("ratios", ratios);
    doc.put("runs", values);
    String text = BenchmarkJson.write(doc);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("metrics", metrics);
    summary.put("ratios", ratios);
    System.out.print(BenchmarkJson.write(summary));
    if (o.out != null) {
      Files.createDirectories(o.out.toAbsolutePath().getParent());
      Files.writeString(o.out, text);
      log("wrote %s", o.out);
    }
  }

  private double rate(String metric) {
    return round(median("parityfs", metric) / median("hdfs", metric));
  }

  private static double round(double v) {
    if (v >= 100) {
      return Math.round(v);
    }
    return Math.round(v * 1000) / 1000.0;
  }

  // ------------------------------------------------------------------ environment

  /** Which ZooKeeper and Curator ParityFS runs on, and that Hadoop's are its own, relocated. */
  private static String classPathCheck() {
    // looked up as a resource: loading Hadoop's relocated copy is not needed (nor safe)
    java.net.URL relocated = MetadataBenchmark.class.getClassLoader()
        .getResource("org/apache/hadoop/shaded/org/apache/zookeeper/ZooKeeper.class");
    String hadoopZk = relocated == null ? "no relocated Hadoop ZooKeeper found"
        : "Hadoop's own ZooKeeper is relocated to org.apache.hadoop.shaded ("
            + Path.of(relocated.getPath().replaceFirst("!.*", "")).getFileName() + ")";
    return "ParityFS on ZooKeeper " + org.apache.zookeeper.Version.getFullVersion().split("-")[0]
        + " (" + jarOf(org.apache.zookeeper.ZooKeeper.class) + ") and Curator "
        + org.apache.curator.framework.CuratorFramework.class.getPackage()
            .getImplementationVersion() + " ("
        + jarOf(org.apache.curator.framework.CuratorFramework.class) + "); " + hadoopZk;
  }

  private static String jarOf(Class<?> c) {
    var src = c.getProtectionDomain().getCodeSource();
    return src == null ? "?" : Path.of(src.getLocation().getPath()).getFileName().toString();
  }

  private static void log(String format, Object... args) {
    System.out.printf("[%s] %s%n", Instant.now().truncatedTo(ChronoUnit.SECONDS),
        String.format(format, args));
    System.out.flush();
  }
}
