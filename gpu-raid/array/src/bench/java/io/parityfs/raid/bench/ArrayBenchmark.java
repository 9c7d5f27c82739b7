package io.parityfs.raid.bench;

import io.parityfs.raid.array.assembly.ArrayLabels;
import io.parityfs.raid.array.assembly.AssembledArray;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.object.BackgroundThrottle;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.array.repair.RebuildProgress;
import io.parityfs.raid.array.repair.Rebuilder;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import io.parityfs.raid.report.BenchmarkJson;
import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The RAID array end to end: a RAID-6 4+2 {@link ObjectStore} over 6 drive directories, each case
 * timed against its baseline in the same run and reported as a ratio.
 *
 * <ul>
 *   <li><b>disk</b>: sequential write and read of 4 GiB of user data (64 MiB objects,
 *       {@code --concurrency} caller threads) on drives under {@code --dir}, against raw O_DIRECT
 *       writes and reads of the bytes the array puts on its drives (user bytes x (k+m)/k), one
 *       file per drive directory, 1 MiB requests, all files in parallel, fsync at the end of each
 *       file. The store opens its drives with O_DIRECT too, so neither side is served by the page
 *       cache; no cache is dropped. Write ratio: user-data MB/s / (raw write MB/s x k/(k+m));
 *       read ratio: user-data MB/s / raw read MB/s.
 *   <li><b>tmpfs</b>: the same writes and reads with the drives in {@code /dev/shm}, against plain
 *       unprotected files of the same user bytes (one per object, same number of threads): the
 *       software overhead of the array when the drives cost nothing.
 *   <li><b>degraded read</b>: slot 0 marked FAILED in the labels, the store reopened, everything
 *       read again (every cell of shard 0 restored from parity), against the healthy read.
 *   <li><b>random reads</b> of 4 KiB and 64 KiB at aligned random offsets, {@code --rand-threads}
 *       threads, one read in flight each: IOPS, MB/s, p50 and p99 latency.
 *   <li><b>rebuild</b> of one drive, and foreground reads during a throttled rebuild ({@link
 *       #rebuildCase}).
 *   <li><b>object count</b> ({@link ObjectCountScale}, {@code --scale}): small-object writes and
 *       a node-like start with 10, 1,000 and 100,000 objects per drive; ratio {@code
 *       write_100k_vs_empty}, and {@code start_s_100k}.
 * </ul>
 *
 * Every throughput figure is the median of {@code --reps} passes, baseline and array alternating;
 * every byte read back is checked ({@link ObjectContent}), and a wrong byte stops the run with exit
 * status 2. Run from the repository root (see {@link ArrayBenchOptions} for the arguments):
 *
 * <pre>
 *   mvn -q -pl gpu-raid/array -Pbench test-compile exec:exec [-Dbench.args="--quick"]
 * </pre>
 *
 * It prints a progress line per phase and a table, and writes {@code docs/benchmarks/array.json}
 * (a quick run: {@code gpu-raid/array/target/array-quick.json}). Every directory it creates is
 * deleted at the end, on failure too.
 */
public final class ArrayBenchmark {
  private static final CodecGeometry GEOMETRY = CodecGeometry.parse("raid6:4+2");
  private static final int CELL_SIZE = 64 << 10;
  private static final long SEED = 0xA77A7_5EEDL;
  private static final String RAW_FILE = "raw-baseline.bin";

  static final double GOAL_WRITE = 0.85;
  static final double GOAL_READ = 0.90;
  static final double GOAL_TMPFS_WRITE = 0.60;
  static final double GOAL_DEGRADED = 0.70;
  static final double GOAL_REBUILD = 0.70;
  static final double GOAL_FOREGROUND = 0.70;
  /** Issue 19: writes with 100,000 objects per drive at 0.9 of an empty array's rate or better. */
  static final double GOAL_WRITE_100K = 0.9;
  /** Issue 19: the start with 100,000 objects per drive within 30 s. */
  static final double GOAL_START_100K_S = 30;

  private final ArrayBenchOptions options;
  private final PrintStream out;
  private final BenchDirs dirs = new BenchDirs();
  private final ParityCodecFactory codecs = ParityCodecFactory.builder().build();
  private final int k = GEOMETRY.k();
  private final int m = GEOMETRY.m();
  private String codec;

  private final Passes rawWrite = new Passes();
  private final Passes arrayWrite = new Passes();
  private final Passes rawRead = new Passes();
  private final Passes arrayRead = new Passes();
  private final Passes degradedRead = new Passes();
  private final Passes survivorRead = new Passes();
  private final Passes rebuild = new Passes();
  private final Passes foregroundDuringRebuild = new Passes();
  private double writeBandwidth = Double.NaN;
  /** The rebuild's rate while clients read, for the foreground-during-rebuild case. */
  static final long BUSY_RATE_MB = 50;
  private final Passes plainWrite = new Passes();
  private final Passes tmpfsWrite = new Passes();
  private final Passes plainRead = new Passes();
  private final Passes tmpfsRead = new Passes();
  private RandomReads.Result rand4k;
  private RandomReads.Result rand64k;
  private long degradedCells;
  private final List<String> notRun = new ArrayList<>();
  /** The object-count case's results by objects per drive; empty when skipped. */
  private Map<Integer, ObjectCountScale.Result> scale = Map.of();
  private final Map<String, Object> dataset = new LinkedHashMap<>();

  private ArrayBenchmark(ArrayBenchOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  public static void main(String[] args) {
    ArrayBenchOptions options;
    try {
      options = ArrayBenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("array: " + e.getMessage());
      System.exit(64);
      return;
    }
    try {
      new ArrayBenchmark(options, System.out).run();
    } catch (ObjectContent.Mismatch e) {
      System.err.println("array: WRONG BYTES READ BACK, nothing written: " + e.getMessage());
      System.exit(2);
    } catch (IOException | RuntimeException e) {
      System.err.println("array: failed, nothing written: " + e);
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private void run() throws IOException {
    String loadBefore = RunEnvironment.loadAverage();
    long t0 = System.nanoTime();
    StoreOptions store = StoreOptions.DEFAULTS;
    codec = codecs.selection(GEOMETRY).toString();
    out.println("array: " + RunEnvironment.jdk() + "; " + RunEnvironment.machine());
    out.printf(Locale.ROOT, "array: %s, %d KiB cells, %d MiB objects; store: %d KiB"
            + " requests, %d batches in flight, %d threads per drive; %d caller threads;"
            + " load average %s%s%n", GEOMETRY, CELL_SIZE >> 10, options.objectSize() >> 20,
        store.ioBytes() >> 10, store.batchesInFlight(),
        store.threadsPerDrive(), options.concurrency(), loadBefore,
        options.quick() ? ", QUICK run (figures not comparable)" : "");
    out.println("array: " + codec);
    try {
      diskCase();
      if (options.tmpfsCase()) {
        tmpfsCase();
      } else {
        notRun.add("tmpfs case: skipped (--tmpfs none)");
      }
      if (options.scale().length > 0) {
        scale = new ObjectCountScale(Path.of(options.dir()).toAbsolutePath(),
            options.concurrency(), codecs, out).run(options.scale());
      } else {
        notRun.add("object-count case: skipped (--scale none)");
      }
    } finally {
      codecs.close();
    }
    String loadAfter = RunEnvironment.loadAverage();
    out.printf(Locale.ROOT, "array: done in %.0f s, load average %s%n%n",
        (System.nanoTime() - t0) / 1e9, loadAfter);
    printTable();
    Path path = Path.of(options.out());
    if (path.getParent() != null) {
      Files.createDirectories(path.getParent());
    }
    Files.writeString(path, BenchmarkJson.write(json(loadBefore, loadAfter)));
    out.println("array: wrote " + path.toAbsolutePath());
  }

  // ---- cases ----

  private void diskCase() throws IOException {
    Path root = Path.of(options.dir()).toAbsolutePath();
    List<Path> drives = prepareDisk(root);
    ObjectContent content = new ObjectContent(objectSize(options.size()), options.concurrency(),
        SEED);
    ObjectLoad load = new ObjectLoad(content, options.objects(options.size()),
        options.concurrency(), options.readChunk());
    long perFile = roundUpMiB(load.totalBytes() / k);
    BaselineFiles raw = BaselineFiles.raw(drives, RAW_FILE, perFile, options.rawDepth());
    String fs = Files.getFileStore(root).type();
    dataset.put("disk", String.format(Locale.ROOT, "%d objects of %d MiB = %d MiB of user data"
            + " on %d drive directories under %s (%s); raw baseline: %s", load.objects(),
        content.objectSize() >> 20, load.totalBytes() >> 20, drives.size(), root, fs,
        raw.describe()));
    out.printf(Locale.ROOT, "[disk] %s%n", dataset.get("disk"));
    out.println("[disk] both sides use O_DIRECT (the store opens its drives with it), so the page"
        + " cache serves neither; nothing is dropped between passes");

    AssembledArray array = ArrayLabels.create(config(content), drives);
    ObjectStore store = ObjectStore.open(array, codecs, StoreOptions.DEFAULTS);
    try {
      for (int rep = 1; rep <= options.reps(); rep++) {
        Timed r = raw.write(content);
        rawWrite.add(r);
        if (rep > 1) {
          load.delete(store);
        }
        Timed a = load.write(store);
        arrayWrite.add(a);
        out.printf(Locale.ROOT, "[disk] write %d/%d: raw %s; array %s%n", rep, options.reps(),
            r.describe(), a.describe());
      }
      for (int rep = 1; rep <= options.reps(); rep++) {
        Timed r = raw.read(content);
        rawRead.add(r);
        Timed a = load.read(store);
        arrayRead.add(a);
        out.printf(Locale.ROOT, "[disk] read %d/%d: raw %s; array %s%n", rep, options.reps(),
            r.describe(), a.describe());
      }
      raw.delete();

      rand4k = randomReads(store, load, content, 4096);
      rand64k = randomReads(store, load, content, 64 << 10);

      store.close();
      store = null;
      array = ArrayLabels.markFailed(array, 0);
      store = ObjectStore.open(array, codecs, StoreOptions.DEFAULTS);
      for (int rep = 1; rep <= options.reps(); rep++) {
        Timed d = load.read(store);
        degradedRead.add(d);
        out.printf(Locale.ROOT, "[disk] degraded read %d/%d (slot 0 failed): array %s%n", rep,
            options.reps(), d.describe());
      }
      degradedCells = store.degradedReads();
      out.printf(Locale.ROOT, "[disk] degraded reads served by reconstruction: %d cells%n",
          degradedCells);
      if ((store.failedSlots() & 1) == 0) {
        throw new IllegalStateException("the store reopened after markFailed still uses slot 0");
      }

      store.close();
      store = null;
      rebuildCase(root, drives, array, load, content, perFile);
    } finally {
      if (store != null) {
        store.close();
      }
      raw.delete();
      for (Path d : drives) {
        dirs.delete(d);
      }
      deleteIfEmpty(root);
    }
  }

  private void tmpfsCase() throws IOException {
    Path base = dirs.own(Files.createTempDirectory(Path.of(options.tmpfs()),
        "parityfs-array-bench-"));
    try {
      List<Path> drives = new ArrayList<>();
      for (int i = 0; i < k + m; i++) {
        drives.add(Files.createDirectory(base.resolve("drive" + i)));
      }
      Path plainDir = Files.createDirectory(base.resolve("plain"));
      ObjectContent content = new ObjectContent(objectSize(options.tmpfsSize()),
          options.concurrency(), SEED + 1);
      ObjectLoad load = new ObjectLoad(content, options.objects(options.tmpfsSize()),
          options.concurrency(), options.readChunk());
      BaselineFiles plain = BaselineFiles.plain(plainDir, load.objects(), content.objectSize(),
          options.concurrency());
      dataset.put("tmpfs", String.format(Locale.ROOT, "%d objects of %d MiB = %d MiB of user"
              + " data on %d drive directories under %s (%s); plain baseline: %s",
          load.objects(), content.objectSize() >> 20, load.totalBytes() >> 20, drives.size(),
          base, Files.getFileStore(base).type(), plain.describe()));
      out.printf(Locale.ROOT, "[tmpfs] %s%n", dataset.get("tmpfs"));

      AssembledArray array = ArrayLabels.create(config(content), drives);
      try (ObjectStore store = ObjectStore.open(array, codecs, StoreOptions.DEFAULTS)) {
        for (int rep = 1; rep <= options.reps(); rep++) {
          Timed pw = plain.write(content);
          plainWrite.add(pw);
          Timed pr = plain.read(content);
          plainRead.add(pr);
          plain.delete();
          Timed aw = load.write(store);
          tmpfsWrite.add(aw);
          Timed ar = load.read(store);
          tmpfsRead.add(ar);
          load.delete(store);
          out.printf(Locale.ROOT, "[tmpfs] write %d/%d: plain %s; array %s%n", rep,
              options.reps(), pw.describe(), aw.describe());
          out.printf(Locale.ROOT, "[tmpfs] read %d/%d: plain %s; array %s%n", rep,
              options.reps(), pr.describe(), ar.describe());
        }
      }
    } finally {
      dirs.delete(base);
    }
  }

  /**
   * Rebuild of one drive. On entry slot 0 is FAILED and every object has lost its shard there.
   * Each pass puts an empty directory into the slot ({@link ArrayLabels#replaceDrive}), rebuilds
   * it to the end with a {@link Rebuilder} (unthrottled), times it, checks every byte reads back
   * healthy (no reconstruction), and fails the slot again for the next pass. Alternating with the
   * passes, the baseline: the raw O_DIRECT read bandwidth S of the k+m-1 surviving drives
   * together ({@link BaselineFiles#raw} over their directories, 1 MiB requests, same depth).
   *
   * <p>Per byte restored a rebuild reads k bytes from the survivors, so {@code
   * rebuild_vs_surviving_read = k x R / S} with R the rate written to the new drive: the share of
   * the survivors' read bandwidth the rebuild puts to use. Comparing R with S itself would cap
   * the ratio at 1/k. On this machine every drive is a directory on one disk, so the rebuild's
   * writes compete with its reads: the reachable rate is 1 / (k/S + 1/W) with W the raw write
   * bandwidth, printed next to the ratio. On a real node the new drive is its own device.
   *
   * <p>Then foreground reads during a throttled rebuild: the same sequential read as the healthy
   * read while a rebuild runs with {@link BackgroundThrottle} (unlimited when idle, {@value
   * #BUSY_RATE_MB} MB/s while clients read). Until the rebuild reaches an object, that object
   * is still missing its shard on the slot, so the read is a degraded read: its baseline is the
   * degraded read of the same array without a rebuild ({@code
   * foreground_read_during_rebuild_vs_degraded}, what the rebuild itself costs the clients, with
   * the goal); {@code foreground_read_during_rebuild_vs_healthy} is printed too.
   */
  private void rebuildCase(Path root, List<Path> drives, AssembledArray array, ObjectLoad load,
      ObjectContent content, long perFile) throws IOException {
    BaselineFiles survivors = BaselineFiles.raw(drives.subList(1, drives.size()), RAW_FILE,
        perFile, options.rawDepth());
    survivors.write(content);
    Path fresh = dirs.own(root.resolve("drive" + drives.size()));
    try {
      for (int rep = 1; rep <= options.reps(); rep++) {
        Timed s = survivors.read(content);
        survivorRead.add(s);
        TestDirs.deleteTree(fresh);
        Files.createDirectory(fresh);
        array = ArrayLabels.replaceDrive(array, 0, fresh);
        try (ObjectStore store = ObjectStore.open(array, codecs, StoreOptions.DEFAULTS)) {
          Timed.Clock clock = Timed.start();
          RebuildProgress p = new Rebuilder(store, 0).run();
          if (!p.complete()) {
            throw new IllegalStateException("rebuild did not complete: " + p);
          }
          Timed r = clock.stop(p.bytesDone());
          rebuild.add(r);
          out.printf(Locale.ROOT, "[disk] rebuild %d/%d: survivors' raw read %s; rebuild %s"
              + " (%d objects)%n", rep, options.reps(), s.describe(), r.describe(),
              p.objectsRebuilt());
        }
        array = ArrayLabels.finishRebuild(array, 0);
        try (ObjectStore store = ObjectStore.open(array, codecs, StoreOptions.DEFAULTS)) {
          load.read(store);
          if (store.degradedReads() != 0) {
            throw new IllegalStateException("reads after the rebuild still reconstruct: "
                + store.degradedReads() + " cells");
          }
        }
        array = ArrayLabels.markFailed(array, 0);
      }
      // Foreground reads while a throttled rebuild runs.
      TestDirs.deleteTree(fresh);
      Files.createDirectory(fresh);
      array = ArrayLabels.replaceDrive(array, 0, fresh);
      try (ObjectStore store = ObjectStore.open(array, codecs, StoreOptions.DEFAULTS)) {
        store.throttle(BackgroundThrottle.of(Long.MAX_VALUE, BUSY_RATE_MB * 1_000_000L, 200));
        Rebuilder rebuilder = new Rebuilder(store, 0).start();
        Timed f = load.read(store);
        RebuildProgress during = rebuilder.progress();
        foregroundDuringRebuild.add(f);
        out.printf(Locale.ROOT, "[disk] foreground read during a rebuild throttled to %d MB/s"
                + " while busy: %s (rebuild meanwhile: %s of %s MB)%n", BUSY_RATE_MB,
            f.describe(), during.bytesDone() / 1_000_000, during.bytesTotal() / 1_000_000);
        rebuilder.stop();
        try {
          rebuilder.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      writeBandwidth = rawWrite.mbps();
    } finally {
      survivors.delete();
      dirs.delete(fresh);
    }
  }

  private RandomReads.Result randomReads(ObjectStore store, ObjectLoad load,
      ObjectContent content, int size) throws IOException {
    RandomReads.Result r = RandomReads.run(store, load, content, size, options.randThreads(),
        options.randSeconds(), SEED + size);
    out.printf(Locale.ROOT, "[disk] random %dK reads, %d threads, %.1f s: %.0f IOPS, %.1f MB/s,"
            + " p50 %.3f ms, p99 %.3f ms (%d reads, %.2f cores)%n", size >> 10,
        options.randThreads(), options.randSeconds(), r.iops(), r.mbps(), r.p50Ms(), r.p99Ms(),
        r.reads(), r.cores());
    return r;
  }

  // ---- set-up ----

  private ArrayConfig config(ObjectContent content) {
    return ArrayConfig.builder()
        .geometry(GEOMETRY)
        .cellSize(CELL_SIZE)
        .maxObjectSize(Math.max(64L << 20, content.objectSize()))
        .build();
  }

  /** The object size for a case of {@code bytes}: the option, or the case itself if smaller. */
  private int objectSize(long bytes) {
    return (int) Math.min(options.objectSize(), bytes);
  }

  /**
   * Creates {@code root}/drive0..5. A root holding anything but drive directories left by an
   * earlier run is refused rather than emptied.
   */
  private List<Path> prepareDisk(Path root) throws IOException {
    if (Files.isDirectory(root)) {
      try (Stream<Path> entries = Files.list(root)) {
        for (Path e : entries.toList()) {
          if (!e.getFileName().toString().matches("drive\\d+") || !Files.isDirectory(e)) {
            throw new IllegalArgumentException("--dir " + root + " holds " + e.getFileName()
                + ", which this benchmark did not create: give an empty or new directory");
          }
          out.println("[disk] deleting " + e + ", left by an earlier run");
          TestDirs.deleteTree(e);
        }
      }
    }
    Files.createDirectories(root);
    List<Path> drives = new ArrayList<>();
    for (int i = 0; i < k + m; i++) {
      drives.add(Files.createDirectory(dirs.own(root.resolve("drive" + i))));
    }
    return drives;
  }

  private static void deleteIfEmpty(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      if (entries.findAny().isEmpty()) {
        Files.delete(dir);
      }
    }
  }

  private static long roundUpMiB(long bytes) {
    long mib = 1 << 20;
    return (bytes + mib - 1) / mib * mib;
  }

  // ---- results ----

  private double writeRatio() {
    return arrayWrite.mbps() / (rawWrite.mbps() * k / (k + m));
  }

  private double readRatio() {
    return arrayRead.mbps() / rawRead.mbps();
  }

  private double tmpfsWriteRatio() {
    return tmpfsWrite.mbps() / plainWrite.mbps();
  }

  private double tmpfsReadRatio() {
    return tmpfsRead.mbps() / plainRead.mbps();
  }

  /** k x rebuild rate / the survivors' raw read bandwidth (see {@link #rebuildCase}). */
  private double rebuildRatio() {
    return rebuild.isEmpty() ? Double.NaN : k * rebuild.mbps() / survivorRead.mbps();
  }

  /** The rebuild rate reachable when its reads and writes share one disk: 1 / (k/S + 1/W). */
  private double rebuildBound() {
    return 1 / (k / survivorRead.mbps() + 1 / writeBandwidth);
  }

  private double degradedRatio() {
    return degradedRead.mbps() / arrayRead.mbps();
  }

  private void printTable() {
    String f = "%-34s %11s %24s %7s %12s %11s%n";
    out.printf(Locale.ROOT, f, "case (MB/s = 10^6 B/s)", "array MB/s", "baseline MB/s", "ratio",
        "goal", "cores a/b");
    row(f, "disk seq write (user data)", arrayWrite,
        String.format(Locale.ROOT, "raw %s x %d/%d = %s", sig(rawWrite.mbps()), k, k + m,
            sig(rawWrite.mbps() * k / (k + m))), writeRatio(), GOAL_WRITE, rawWrite);
    row(f, "disk seq read", arrayRead, "raw " + sig(rawRead.mbps()), readRatio(), GOAL_READ,
        rawRead);
    if (!tmpfsWrite.isEmpty()) {
      row(f, "tmpfs seq write", tmpfsWrite, "plain " + sig(plainWrite.mbps()), tmpfsWriteRatio(),
          GOAL_TMPFS_WRITE, plainWrite);
      row(f, "tmpfs seq read", tmpfsRead, "plain " + sig(plainRead.mbps()), tmpfsReadRatio(),
          Double.NaN, plainRead);
    }
    row(f, "disk degraded read (slot 0 failed)", degradedRead,
        "healthy " + sig(arrayRead.mbps()), degradedRatio(), GOAL_DEGRADED, arrayRead);
    row(f, "rebuild of one drive (k x rate)", rebuild, "survivors " + sig(survivorRead.mbps())
        + " (same-disk bound " + sig(rebuildBound()) + ")", rebuildRatio(), GOAL_REBUILD,
        survivorRead);
    row(f, "disk read during a rebuild", foregroundDuringRebuild, "degraded "
        + sig(degradedRead.mbps()), foregroundDuringRebuild.mbps() / degradedRead.mbps(),
        GOAL_FOREGROUND, degradedRead);
    out.printf(Locale.ROOT, "disk read during a rebuild vs healthy: %s%n",
        sig(foregroundDuringRebuild.mbps() / arrayRead.mbps()));
    for (RandomReads.Result r : new RandomReads.Result[] {rand4k, rand64k}) {
      out.printf(Locale.ROOT, "disk random %dK reads, %d threads: %s IOPS, %s MB/s, p50 %s ms,"
              + " p99 %s ms, %.2f cores%n", r.size() >> 10, options.randThreads(), sig(r.iops()),
          sig(r.mbps()), sig(r.p50Ms()), sig(r.p99Ms()), r.cores());
    }
    for (ObjectCountScale.Result r : scale.values()) {
      out.printf(Locale.ROOT, "object count %,d per drive: %.0f small-object writes/s, start %.2f"
          + " s%n", r.objects(), r.writesPerSecond(), r.startSeconds());
    }
    out.printf(Locale.ROOT, "disk array write: %.0f%% of writer time in commit (finish, fsync,"
        + " publish, manifest)%n", 100 * arrayWrite.commitShare());
  }

  private void row(String format, String what, Passes array, String baseline, double ratio,
      double goal, Passes base) {
    out.printf(Locale.ROOT, format, what, sig(array.mbps()), baseline, sig(ratio),
        goal(ratio, goal), String.format(Locale.ROOT, "%.2f/%.2f", array.cores(), base.cores()));
  }

  private static String goal(double ratio, double goal) {
    if (Double.isNaN(goal)) {
      return "-";
    }
    String g = ">= " + sig(goal);
    return Double.isNaN(ratio) ? g + " ?" : g + (ratio >= goal ? " met" : " NOT");
  }

  private static String sig(double x) {
    return Double.isFinite(x) ? BenchmarkJson.sig3(x) : "n/a";
  }

  /** 10 → "10", 1000 → "1k", 100000 → "100k": the metric names' object counts. */
  static String countLabel(int n) {
    return n >= 1000 && n % 1000 == 0 ? n / 1000 + "k" : Integer.toString(n);
  }

  private Map<String, Object> json(String loadBefore, String loadAfter) {
    Map<String, Object> metrics = new LinkedHashMap<>();
    metrics.put("raw_write_mbps", rawWrite.mbps());
    metrics.put("array_write_mbps", arrayWrite.mbps());
    metrics.put("raw_read_mbps", rawRead.mbps());
    metrics.put("array_read_mbps", arrayRead.mbps());
    metrics.put("degraded_read_mbps", degradedRead.mbps());
    if (!rebuild.isEmpty()) {
      metrics.put("survivors_raw_read_mbps", survivorRead.mbps());
      metrics.put("rebuild_mbps", rebuild.mbps());
      metrics.put("rebuild_bound_same_disk_mbps", rebuildBound());
      metrics.put("foreground_read_during_rebuild_mbps", foregroundDuringRebuild.mbps());
    }
    if (!tmpfsWrite.isEmpty()) {
      metrics.put("tmpfs_plain_write_mbps", plainWrite.mbps());
      metrics.put("tmpfs_array_write_mbps", tmpfsWrite.mbps());
      metrics.put("tmpfs_plain_read_mbps", plainRead.mbps());
      metrics.put("tmpfs_array_read_mbps", tmpfsRead.mbps());
    }
    for (RandomReads.Result r : new RandomReads.Result[] {rand4k, rand64k}) {
      String p = "rand" + (r.size() >> 10) + "k_";
      metrics.put(p + "iops", r.iops());
      metrics.put(p + "mbps", r.mbps());
      metrics.put(p + "p50_ms", r.p50Ms());
      metrics.put(p + "p99_ms", r.p99Ms());
    }

    for (ObjectCountScale.Result r : scale.values()) {
      metrics.put("write_objects_per_s_" + countLabel(r.objects()), r.writesPerSecond());
      metrics.put("start_s_" + countLabel(r.objects()), r.startSeconds());
    }

    Map<String, Object> ratios = new LinkedHashMap<>();
    ratios.put("write_vs_raw_data_share", writeRatio());
    ratios.put("read_vs_raw", readRatio());
    if (!tmpfsWrite.isEmpty()) {
      ratios.put("tmpfs_write_vs_plain", tmpfsWriteRatio());
    }
    ratios.put("degraded_read_vs_healthy", degradedRatio());
    if (!rebuild.isEmpty()) {
      ratios.put("rebuild_vs_surviving_read", rebuildRatio());
      ratios.put("foreground_read_during_rebuild_vs_degraded",
          foregroundDuringRebuild.mbps() / degradedRead.mbps());
      ratios.put("foreground_read_during_rebuild_vs_healthy",
          foregroundDuringRebuild.mbps() / arrayRead.mbps());
    }

    ObjectCountScale.Result fewest = scale.isEmpty() ? null : scale.values().iterator().next();
    for (ObjectCountScale.Result r : scale.values()) {
      if (r != fewest) {
        // "empty": the fewest objects measured (10 by default)
        ratios.put("write_" + countLabel(r.objects()) + "_vs_empty",
            r.writesPerSecond() / fewest.writesPerSecond());
      }
    }

    Map<String, Object> goals = new LinkedHashMap<>();
    goals.put("write_vs_raw_data_share", goal(writeRatio(), GOAL_WRITE));
    goals.put("read_vs_raw", goal(readRatio(), GOAL_READ));
    if (!tmpfsWrite.isEmpty()) {
      goals.put("tmpfs_write_vs_plain", goal(tmpfsWriteRatio(), GOAL_TMPFS_WRITE));
    }
    goals.put("degraded_read_vs_healthy", goal(degradedRatio(), GOAL_DEGRADED));
    goals.put("rebuild_vs_surviving_read", goal(rebuildRatio(), GOAL_REBUILD));
    goals.put("foreground_read_during_rebuild_vs_degraded",
        goal(foregroundDuringRebuild.mbps() / degradedRead.mbps(), GOAL_FOREGROUND));
    ObjectCountScale.Result most = scale.get(100_000);
    if (most != null && fewest != null) {
      goals.put("write_100k_vs_empty", goal(most.writesPerSecond() / fewest.writesPerSecond(),
          GOAL_WRITE_100K));
      goals.put("start_s_100k", most.startSeconds() <= GOAL_START_100K_S
          ? "<= " + sig(GOAL_START_100K_S) + " met" : "<= " + sig(GOAL_START_100K_S) + " NOT");
    }

    Map<String, Object> extra = new LinkedHashMap<>();
    if (!tmpfsRead.isEmpty()) {
      extra.put("tmpfs_read_vs_plain", tmpfsReadRatio());
    }
    extra.put("array_write_commit_share", arrayWrite.commitShare());
    extra.put("degraded_cells_reconstructed", degradedCells);

    Map<String, Object> cores = new LinkedHashMap<>();
    Map<String, Object> passes = new LinkedHashMap<>();
    String[] names = {"raw_write", "array_write", "raw_read", "array_read", "degraded_read",
        "survivors_raw_read", "rebuild", "foreground_read_during_rebuild",
        "tmpfs_plain_write", "tmpfs_array_write", "tmpfs_plain_read", "tmpfs_array_read"};
    Passes[] all = {rawWrite, arrayWrite, rawRead, arrayRead, degradedRead, survivorRead,
        rebuild, foregroundDuringRebuild, plainWrite,
        tmpfsWrite, plainRead, tmpfsRead};
    for (int i = 0; i < names.length; i++) {
      if (!all[i].isEmpty()) {
        cores.put(names[i], finite(all[i].cores()));
        passes.put(names[i] + "_mbps", all[i].each());
      }
    }
    cores.put("rand4k", finite(rand4k.cores()));
    cores.put("rand64k", finite(rand64k.cores()));

    StoreOptions so = StoreOptions.DEFAULTS;
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("benchmark", "array");
    root.put("command", RunEnvironment.command("gpu-raid/array", options.given()));
    root.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    root.put("jdk", RunEnvironment.jdk());
    root.put("machine", RunEnvironment.machine());
    root.put("codec", codec);
    root.put("array", String.format(Locale.ROOT, "%s over %d drives, %d KiB cells, store: %d KiB"
            + " requests, %d batches in flight per writer, %d threads per drive; %d caller"
            + " threads, %d MiB per sequential read call", GEOMETRY, k + m, CELL_SIZE >> 10,
        so.ioBytes() >> 10, so.batchesInFlight(), so.threadsPerDrive(), options.concurrency(),
        options.readChunk() >> 20));
    root.put("metrics", metrics);
    root.put("ratios", ratios);
    root.put("goals", goals);
    root.put("extra_ratios", extra);
    root.put("cpu_cores", cores);
    root.put("passes", passes);
    root.put("not_run", notRun);
    root.put("units", "MB/s = 10^6 bytes/s; array figures count user bytes, raw baseline figures"
        + " the bytes written to or read from the 6 raw files (user bytes x (k+m)/k); medians of"
        + " " + options.reps() + " passes, baseline and array alternating; times include fsync;"
        + " latencies in ms inside ObjectStore.read; cpu_cores = process CPU time / wall time"
        + " (this machine has " + Runtime.getRuntime().availableProcessors() + ")");
    if (!scale.isEmpty()) {
      dataset.put("object_count", String.format(Locale.ROOT, "per count N: a new RAID-6 4+2"
          + " array of 4 KiB cells on the disk under %s filled with N objects of 4 KiB"
          + " (uncounted, %d threads), then %d more written in 3 timed segments"
          + " (write_objects_per_s_N: the median segment's rate; an uncounted pass first),"
          + " then closed and started again as a node starts it: assembled, opened, every object"
          + " listed and each one's manifest looked up (start_s_N); write_N_vs_empty: the rate"
          + " with N over the rate with the fewest (%d)", options.dir(), options.concurrency(),
          ObjectCountScale.PROBE, scale.keySet().iterator().next()));
    }
    dataset.put("page_cache", "both sides O_DIRECT on disk (the store opens its drives with"
        + " O_DIRECT); no cache dropped");
    dataset.put("random", String.format(Locale.ROOT, "4 KiB and 64 KiB reads at size-aligned"
            + " random offsets of random objects, %d threads, one read in flight each, %.1f s"
            + " timed after an untimed warm-up; every read checked", options.randThreads(),
        options.randSeconds()));
    if (options.quick()) {
      dataset.put("quick", "QUICK run: small sizes, figures not comparable");
    }
    root.put("dataset", dataset);
    root.put("load_average_before", loadBefore);
    root.put("load_average_after", loadAfter);
    return root;
  }

  private static Object finite(double x) {
    return Double.isFinite(x) ? (Object) x : null;
  }
}
