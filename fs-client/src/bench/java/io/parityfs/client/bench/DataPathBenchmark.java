package io.parityfs.client.bench;

import io.parityfs.testkit.TestDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FileSystem;

/**
 * The cost model of the checkpoint path (docs/data-path.md): the client benchmark's ParityFS
 * side (an embedded ZooKeeper and three storage nodes in this JVM, RAID-6 4+2 targets, through
 * {@code PfsFileSystem}) writes and then reads a checkpoint while {@link PathProfiler} records
 * where the process's CPU time goes, and prints and writes CPU nanoseconds per data byte for
 * every stage of each path.
 *
 * <p>A checkpoint four times the size is written and read first, unprofiled, so the measured
 * phases run compiled code: after a warm-up of the measured size the JIT compilers still took a
 * quarter of the write's CPU time, after four times between a twentieth and a fifth (shown on
 * its own row). The page cache is dropped before the measured read (as root).
 *
 * <p>Arguments: {@code --writers N} (default 4), {@code --file-mib N} (default 512), {@code
 * --warmup-mib N} (per writer; default 4 × the file size), {@code --chunk-mib N} (8), {@code
 * --dir PATH} (fs-client/target/bench-data-path; the two phases' collapsed stacks stay there),
 * {@code --out PATH} (docs/benchmarks/data-path.json), {@code --quick} (2 writers × 64 MiB, no
 * JSON unless --out is given).
 */
public final class DataPathBenchmark {
  private int writers = 4;
  private int fileMiB = 512;
  private int chunkMiB = 8;
  private int warmupMiB = -1;
  private Path dir = Path.of("fs-client/target/bench-data-path");
  private Path out = Path.of("docs/benchmarks/data-path.json");
  private String command = "mvn -q -pl fs-client -Pbench test-compile exec:exec"
      + " -Dbench.main=io.parityfs.client.bench.DataPathBenchmark";

  public static void main(String[] args) throws Exception {
    DataPathBenchmark b = new DataPathBenchmark();
    b.parse(args);
    b.run();
    System.exit(0);
  }

  private void parse(String[] args) {
    boolean quick = false;
    boolean outGiven = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> {
          quick = true;
          writers = 2;
          fileMiB = 64;
        }
        case "--writers" -> writers = Integer.parseInt(args[++i]);
        case "--file-mib" -> fileMiB = Integer.parseInt(args[++i]);
        case "--chunk-mib" -> chunkMiB = Integer.parseInt(args[++i]);
        case "--warmup-mib" -> warmupMiB = Integer.parseInt(args[++i]);
        case "--dir" -> dir = Path.of(args[++i]);
        case "--out" -> {
          out = Path.of(args[++i]);
          outGiven = true;
        }
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + " (see DataPathBenchmark's Javadoc)");
      }
    }
    if (quick && !outGiven) {
      out = null;
    }
    if (warmupMiB < 0) {
      warmupMiB = quick ? fileMiB : 4 * fileMiB;
    }
    if (args.length > 0) {
      command += " -Dbench.args=\"" + String.join(" ", args) + "\"";
    }
  }

  private void run() throws Exception {
    dir = dir.toAbsolutePath();
    String loadBefore = BenchReport.loadAverage();
    BenchReport.log("load %s; %d writers x %d MiB", loadBefore, writers, fileMiB);
    Path home = dir.resolve("cluster");
    TestDirs.deleteTree(home);
    Files.createDirectories(home);
    AtomicInteger n = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(writers, r -> {
      Thread t = new Thread(r, "ckpt-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    PathProfiler.Profile write;
    PathProfiler.Profile read;
    String described;
    try (ParityFsSide side = new ParityFsSide(home, chunkMiB << 20)) {
      described = side.describe();
      FileSystem fs = side.fs();
      org.apache.hadoop.fs.Path warm = new org.apache.hadoop.fs.Path(side.root(), "warm-up");
      Checkpoint w0 = new Checkpoint(fs, warm, writers, (long) warmupMiB << 20);
      w0.write(pool, false);
      w0.read(pool, "warm-up");
      fs.delete(warm, true);
      BenchReport.log("warm-up done");

      Checkpoint ckpt = new Checkpoint(fs, new org.apache.hadoop.fs.Path(side.root(), "ckpt"),
          writers, (long) fileMiB << 20);
      // The warm-up's garbage (8 MiB chunk buffers among it) is collected now, not billed to
      // the measured phase (one full collection there took 0.4 ns/B).
      System.gc();
      PathProfiler p = PathProfiler.start("write", dir);
      ckpt.write(pool, false);
      write = p.stop(ckpt.totalBytes());
      boolean cold = BenchReport.dropCaches();
      BenchReport.log("page cache %s", cold ? "dropped" : "NOT dropped (not root?)");
      System.gc();
      p = PathProfiler.start("read", dir);
      ckpt.read(pool, "parityfs");
      read = p.stop(ckpt.totalBytes());
    } finally {
      pool.shutdownNow();
      TestDirs.deleteTree(home);
    }
    String loadAfter = BenchReport.loadAverage();
    print(write, read);
    if (out != null) {
      write(write, read, described, loadBefore, loadAfter);
    }
  }

  private static void print(PathProfiler.Profile write, PathProfiler.Profile read) {
    System.out.println();
    System.out.printf(Locale.ROOT, "| stage | write ns/B | read ns/B |%n|---|---:|---:|%n");
    for (String s : PathProfiler.STAGES) {
      double a = write.nsPerByte().get(s);
      double b = read.nsPerByte().get(s);
      if (a >= 0.005 || b >= 0.005) {
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f |%n", s, a, b);
      }
    }
    System.out.printf(Locale.ROOT, "| **total (process CPU)** | **%.2f** | **%.2f** |%n",
        write.total(), read.total());
    for (PathProfiler.Profile p : List.of(write, read)) {
      System.out.printf(Locale.ROOT, "%n%s: the copies of data (user and kernel), ns/B%n",
          p.name());
      p.copySites().entrySet().stream().filter(e -> e.getValue() >= 0.005).forEach(e ->
          System.out.printf(Locale.ROOT, "  %.3f  %s%n", e.getValue(), e.getKey()));
    }
    System.out.println();
    for (PathProfiler.Profile p : List.of(write, read)) {
      System.out.printf(Locale.ROOT, "%s: %.0f MB/s, %d samples covering %.3f of the process's"
          + " CPU time%n", p.name(), p.bytes() / p.seconds() / 1e6, p.samples(), p.coverage());
    }
  }

  /** {@code "client: copy"} -> {@code "client_copy"}. */
  static String key(String stage) {
    return stage.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_")
        .replaceAll("^_|_$", "");
  }

  private void write(PathProfiler.Profile write, PathProfiler.Profile read, String described,
      String loadBefore, String loadAfter) throws Exception {
    BenchReport r = new BenchReport("data-path", command);
    r.describe("load_average", loadBefore + " before, " + loadAfter + " after");
    r.describe("parityfs", described);
    r.describe("method", String.format(Locale.ROOT, "%d threads each write one %d MiB file in"
        + " 4 MiB writes (close durable), page cache dropped, then read it back in 4 MiB"
        + " readFully calls comparing every byte, after an unprofiled warm-up of %d MiB per"
        + " thread; client, nodes and ZooKeeper in one JVM; CPU per data byte by stage from"
        + " async-profiler's CPU samples (event=cpu, one per %d ns of CPU, kernel stacks"
        + " included; PathProfiler's rules put each stack in one stage); profile_coverage ="
        + " profiled CPU time / the process's CPU time", writers, fileMiB,
        warmupMiB, PathProfiler.INTERVAL_NS));
    r.describe("units", "ns_per_byte = CPU nanoseconds per byte of file data (parity and"
        + " checksums not counted as data); mbps = 10^6 data bytes per second");
    for (PathProfiler.Profile p : List.of(write, read)) {
      r.metric(p.name() + "_mbps", p.bytes() / p.seconds() / 1e6);
      r.metric(p.name() + "_ns_per_byte", p.total());
      r.metric(p.name() + "_samples", p.samples());
      r.metric(p.name() + "_profile_coverage", p.coverage());
      r.metric(p.name() + "_cpu_cores", p.processNs() / 1e9 / p.seconds());
      for (Map.Entry<String, Double> e : p.nsPerByte().entrySet()) {
        r.metric(p.name() + "_" + key(e.getKey()) + "_ns_per_byte", e.getValue());
      }
      double checksum = p.nsPerByte().get("client: frame checksum")
          + p.nsPerByte().get("node: frame checksum") + p.nsPerByte().get("cell checksum");
      double copy = p.nsPerByte().get("client: copy") + p.nsPerByte().get("node: copy");
      Map<String, Object> sites = new java.util.LinkedHashMap<>();
      p.copySites().entrySet().stream().filter(e -> e.getValue() >= 0.005)
          .forEach(e -> sites.put(e.getKey(), BenchReport.round(e.getValue())));
      r.section(p.name() + "_copy_sites_ns_per_byte", sites);
      r.metric(p.name() + "_checksums_ns_per_byte", checksum);
      r.metric(p.name() + "_copies_ns_per_byte", copy);
      r.ratio(p.name() + "_checksum_share", p.name() + "_checksums_ns_per_byte",
          p.name() + "_ns_per_byte");
      r.ratio(p.name() + "_copy_share", p.name() + "_copies_ns_per_byte",
          p.name() + "_ns_per_byte");
    }
    r.write(out);
  }
}
