package io.parityfs.client.bench;

import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * The client through Hadoop's FileSystem API, against Hadoop's RawLocalFileSystem on the same
 * disk and an in-process HDFS, in one run, each side alone in turn (its servers started before
 * and stopped after it):
 *
 * <ul>
 *   <li><b>checkpoint</b>: {@code writers} threads each write one file of {@code fileMiB} MiB in
 *       4 MiB writes and close it (the baselines hsync first), timed until the last close; the
 *       page cache is dropped; the same threads read the files back in 4 MiB reads, every byte
 *       compared. The files are deleted before the next phase (the disk holds one side's
 *       data at a time).
 *   <li><b>small files</b>: {@code smallFiles} files of 1-8 KiB in one directory, by 16
 *       threads: created (written, closed durable), the page cache dropped, read back and
 *       compared, deleted. The rate is files per second over the three phases together.
 *   <li><b>the disk itself</b> (before the sides): the same threads each write a file of {@code
 *       fileMiB} MiB to the bench folder's disk with O_DIRECT in 4 MiB writes, then fsync: the
 *       disk's own sequential write rate, against which ParityFS's media bytes (data plus
 *       parity) are compared ({@code ckpt_write_vs_disk_share}).
 * </ul>
 *
 * <p>Every checkpoint phase reports its CPU time per byte of data ({@code core_s_per_gb}:
 * core-seconds per GB, the servers included, as every side runs in this JVM).
 *
 * Arguments: {@code --quick} (2 writers × 64 MiB, 1,000 small files; writes JSON only with
 * --out), {@code --writers N}, {@code --file-mib N}, {@code --small-files N},
 * {@code --threads N} (small files), {@code --chunk-mib N} (ParityFS chunk size, default 8),
 * {@code --sides parityfs,local,hdfs}, {@code --dir PATH} (default fs-client/target/bench),
 * {@code --out PATH} (default docs/benchmarks/client.json).
 */
public final class ClientBenchmark {
  private int writers = 8;
  private int fileMiB = 512;
  private int smallFiles = 10_000;
  private int threads = 16;
  private int chunkMiB = 8;
  private List<String> sides = List.of("parityfs", "local", "hdfs");
  private Path dir = Path.of("fs-client/target/bench");
  private Path out = Path.of("docs/benchmarks/client.json");
  private boolean quick;
  private String command = "mvn -q -pl fs-client -Pbench test-compile exec:exec";
  private final Map<String, Object> metrics = new LinkedHashMap<>();
  private String coldRead = "not tried";

  public static void main(String[] args) throws Exception {
    ClientBenchmark b = new ClientBenchmark();
    b.parse(args);
    b.run();
    System.exit(0); // MiniDFSCluster leaves non-daemon threads behind
  }

  private void parse(String[] args) {
    boolean outGiven = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick" -> {
          quick = true;
          writers = 2;
          fileMiB = 64;
          smallFiles = 1000;
        }
        case "--writers" -> writers = Integer.parseInt(args[++i]);
        case "--file-mib" -> fileMiB = Integer.parseInt(args[++i]);
        case "--small-files" -> smallFiles = Integer.parseInt(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--chunk-mib" -> chunkMiB = Integer.parseInt(args[++i]);
        case "--sides" -> sides = Arrays.asList(args[++i].split(","));
        case "--dir" -> dir = Path.of(args[++i]);
        case "--out" -> {
          out = Path.of(args[++i]);
          outGiven = true;
        }
        default -> throw new IllegalArgumentException("unknown argument " + a
            + " (see ClientBenchmark's Javadoc)");
      }
    }
    if (quick && !outGiven) {
      out = null;
    }
    if (args.length > 0) {
      command += " -Dbench.args=\"" + String.join(" ", args) + "\"";
    }
  }

  private void run() throws Exception {
    dir = dir.toAbsolutePath();
    String loadBefore = BenchReport.loadAverage();
    BenchReport.log("load %s; %d writers x %d MiB, %d small files by %d threads; sides %s", loadBefore,
        writers, fileMiB, smallFiles, threads, sides);
    checkSpace();
    diskBaseline();
    Map<String, String> described = new LinkedHashMap<>();
    for (String name : sides) {
      Path home = dir.resolve(name);
      TestDirs.deleteTree(home);
      Files.createDirectories(home);
      BenchSide side = switch (name) {
        case "parityfs" -> new ParityFsSide(home, chunkMiB << 20);
        case "local" -> new LocalSide(home.resolve("data"));
        case "hdfs" -> new HdfsSide(home);
        default -> throw new IllegalArgumentException("unknown side " + name);
      };
      try {
        described.put(name, side.describe());
        metrics.put(name + "_media_factor", side.diskBytesPerDataByte());
        checkpoint(side);
        small(side);
      } finally {
        side.close();
        TestDirs.deleteTree(home);
      }
    }
    String loadAfter = BenchReport.loadAverage();
    write(described, loadBefore, loadAfter);
  }

  // ------------------------------------------------------------------ checkpoint

  private void checkpoint(BenchSide side) throws Exception {
    FileSystem fs = side.fs();
    org.apache.hadoop.fs.Path d = new org.apache.hadoop.fs.Path(side.root(), "ckpt");
    fs.mkdirs(d);
    Checkpoint ckpt = new Checkpoint(fs, d, writers, (long) fileMiB << 20);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      long total = ckpt.totalBytes();
      Phase write = Phase.start(side.name() + " checkpoint write");
      ckpt.write(pool, side.hsyncBeforeClose());
      write.end(total, side);
      record(side, "ckpt_write", write, total);
      dropCaches();
      Phase read = Phase.start(side.name() + " checkpoint read");
      ckpt.read(pool, side.name());
      read.end(total, side);
      record(side, "ckpt_read", read, total);
    } finally {
      pool.shutdownNow();
    }
    fs.delete(d, true);
  }

  /**
   * The disk's own sequential write: {@code writers} threads, one O_DIRECT file each, 4 MiB
   * aligned writes, fsync, timed to the last fsync.
   */
  private void diskBaseline() throws Exception {
    Path d = dir.resolve("disk");
    TestDirs.deleteTree(d);
    Files.createDirectories(d);
    long perFile = (long) fileMiB << 20;
    int align = (int) Math.max(4096, Files.getFileStore(d).getBlockSize());
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      Phase write = Phase.start("disk O_DIRECT write");
      Checkpoint.all(pool, writers, w -> {
        ByteBuffer buf = ByteBuffer.allocateDirect((4 << 20) + align).alignedSlice(align)
            .limit(4 << 20).slice();
        byte[] fill = new byte[4 << 20];
        new Random(w).nextBytes(fill);
        buf.put(fill).flip();
        try (FileChannel ch = FileChannel.open(d.resolve("f" + w), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE, com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
          for (long at = 0; at < perFile; at += buf.capacity()) {
            ByteBuffer b = buf.duplicate();
            while (b.hasRemaining()) {
              ch.write(b, at + b.position());
            }
          }
          ch.force(true);
        }
      });
      long total = perFile * writers;
      write.end(total, null);
      metrics.put("disk_odirect_write_mbps", BenchReport.round(total / write.seconds / 1e6));
      metrics.put("disk_odirect_write_cpu_cores", BenchReport.round(write.cpu / write.seconds));
    } catch (UnsupportedOperationException | IOException e) {
      BenchReport.log("disk O_DIRECT write not measured: %s", e);
      metrics.put("disk_odirect_write_note", "not measured: " + e.getMessage());
    } finally {
      pool.shutdownNow();
      TestDirs.deleteTree(d);
    }
  }

  // ------------------------------------------------------------------ small files

  private void small(BenchSide side) throws Exception {
    FileSystem fs = side.fs();
    org.apache.hadoop.fs.Path d = new org.apache.hadoop.fs.Path(side.root(), "small");
    fs.mkdirs(d);
    byte[] pool8k = new byte[16 << 10];
    new Random(42).nextBytes(pool8k);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      Phase create = Phase.start(side.name() + " small create");
      each(pool, i -> {
        try (FSDataOutputStream o = fs.create(new org.apache.hadoop.fs.Path(d, "f" + i))) {
          o.write(pool8k, i % 8192, smallSize(i));
          if (side.hsyncBeforeClose()) {
            o.hsync();
          }
        }
      });
      create.end(0, side);
      dropCaches();
      Phase read = Phase.start(side.name() + " small read");
      each(pool, i -> {
        byte[] b = new byte[smallSize(i)];
        try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(d, "f" + i))) {
          in.readFully(0, b);
        }
        if (!Arrays.equals(b, 0, b.length, pool8k, i % 8192, i % 8192 + b.length)) {
          throw new IOException(side.name() + ": small file " + i + " differs");
        }
      });
      read.end(0, side);
      Phase delete = Phase.start(side.name() + " small delete");
      each(pool, i -> {
        if (!fs.delete(new org.apache.hadoop.fs.Path(d, "f" + i), false)) {
          throw new IOException(side.name() + ": small file " + i + " was not deleted");
        }
      });
      delete.end(0, side);
      String s = side.name() + "_small_";
      metrics.put(s + "create_per_s", BenchReport.round(smallFiles / create.seconds));
      metrics.put(s + "read_per_s", BenchReport.round(smallFiles / read.seconds));
      metrics.put(s + "delete_per_s", BenchReport.round(smallFiles / delete.seconds));
      metrics.put(s + "files_per_s",
          BenchReport.round(smallFiles / (create.seconds + read.seconds + delete.seconds)));
      metrics.put(s + "create_disk_kib_per_file",
          BenchReport.round(create.diskWritten / 1024.0 / Math.max(1, smallFiles)));
      metrics.put(s + "cpu_cores", BenchReport.round((create.cpu + read.cpu + delete.cpu)
          / (create.seconds + read.seconds + delete.seconds)));
    } finally {
      pool.shutdownNow();
    }
    fs.delete(d, true);
  }

  /** 1 to 8 KiB. */
  private static int smallSize(int i) {
    return 1024 + (int) ((i * 2654435761L) % 7169);
  }

  // ------------------------------------------------------------------ harness

  private void each(ExecutorService pool, Checkpoint.Task t) throws Exception {
    AtomicInteger next = new AtomicInteger();
    Checkpoint.all(pool, threads, x -> {
      int i;
      while ((i = next.getAndIncrement()) < smallFiles) {
        t.run(i);
      }
    });
  }

  /** A timed phase: wall time, this process's CPU time, the disk's sectors moved. */
  private static final class Phase {
    final String name;
    final long t0;
    final long cpu0;
    final long[] disk0;
    double seconds;
    double cpu;
    long diskWritten;
    long diskRead;

    private Phase(String name) {
      this.name = name;
      this.disk0 = diskSectors();
      this.cpu0 = processCpuNanos();
      this.t0 = System.nanoTime();
    }

    static Phase start(String name) {
      return new Phase(name);
    }

    void end(long bytes, BenchSide side) {
      seconds = (System.nanoTime() - t0) / 1e9;
      cpu = (processCpuNanos() - cpu0) / 1e9;
      long[] d = diskSectors();
      diskRead = (d[0] - disk0[0]) * 512;
      diskWritten = (d[1] - disk0[1]) * 512;
      BenchReport.log("%s: %.2f s%s, %.2f cores, disk %,d MB written, %,d MB read", name, seconds,
          bytes > 0 ? String.format(" (%.0f MB/s)", bytes / seconds / 1e6) : "",
          cpu / seconds, diskWritten / 1_000_000, diskRead / 1_000_000);
    }
  }

  private void record(BenchSide side, String what, Phase p, long bytes) {
    String s = side.name() + "_" + what;
    metrics.put(s + "_mbps", BenchReport.round(bytes / p.seconds / 1e6));
    metrics.put(s + "_cpu_cores", BenchReport.round(p.cpu / p.seconds));
    metrics.put(s + "_core_s_per_gb", BenchReport.round(p.cpu / (bytes / 1e9)));
    metrics.put(s + "_disk_mbps", BenchReport.round((what.endsWith("write") ? p.diskWritten : p.diskRead)
        / p.seconds / 1e6));
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** Sectors read and written by the block device holding the bench folder (0s if unknown). */
  private static long[] diskSectors() {
    try {
      String dev = diskDevice();
      if (dev == null) {
        return new long[2];
      }
      String[] f = Files.readString(Path.of("/sys/block", dev, "stat")).trim().split("\\s+");
      return new long[] {Long.parseLong(f[2]), Long.parseLong(f[6])};
    } catch (IOException | RuntimeException e) {
      return new long[2];
    }
  }

  private static String diskDevice() throws IOException {
    try (Stream<Path> s = Files.list(Path.of("/sys/block"))) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> !n.startsWith("loop") && !n.startsWith("ram") && !n.startsWith("zram"))
          .sorted().findFirst().orElse(null);
    }
  }

  /** Drops the page cache so reads come from the disk (needs root). */
  private void dropCaches() throws InterruptedException {
    try {
      Process p = new ProcessBuilder("sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches")
          .redirectErrorStream(true).start();
      String msg = new String(p.getInputStream().readAllBytes()).trim();
      if (p.waitFor() == 0) {
        coldRead = "page cache dropped before every read phase (sync; echo 3 > "
            + "/proc/sys/vm/drop_caches); the VM's host may still cache the virtual disk";
      } else {
        coldRead = "could not drop the page cache (" + msg + "): reads may be warm";
      }
    } catch (IOException e) {
      coldRead = "could not drop the page cache (" + e.getMessage() + "): reads may be warm";
    }
  }

  private void checkSpace() throws IOException {
    Files.createDirectories(dir);
    long free = Files.getFileStore(dir).getUsableSpace();
    long need = (long) (1.5 * writers * ((long) fileMiB << 20)) + (2L << 30);
    BenchReport.log("free space at %s: %.1f GiB, largest side needs ~%.1f GiB", dir,
        free / (double) (1L << 30), need / (double) (1L << 30));
    if (free < need) {
      throw new IllegalStateException("not enough free space in " + dir + ": " + free
          + " bytes free, " + need + " needed; use --file-mib or --writers");
    }
  }

  // ------------------------------------------------------------------ output

  private void write(Map<String, String> described, String loadBefore, String loadAfter)
      throws IOException {
    BenchReport r = new BenchReport("client", command);
    r.describe("load_average", loadBefore + " before, " + loadAfter + " after");
    for (var e : described.entrySet()) {
      r.describe(e.getKey(), e.getValue());
    }
    r.describe("cold_reads", coldRead);
    r.describe("method", String.format(Locale.ROOT, "each side alone in turn (%s), started "
        + "before and stopped after its phases, all through the Hadoop FileSystem API: "
        + "checkpoint = %d threads each writing one %d MiB file in 4 MiB writes, durable at "
        + "close (baselines hsync first), timed to the last close; page cache dropped; the "
        + "files read back by %d threads in 4 MiB readFully calls, every byte compared; small "
        + "files = %d files of 1-8 KiB in one directory by %d threads: create+write+close, "
        + "page cache dropped, open+read+compare, delete; files_per_s = files / (the three "
        + "phases' time); disk_mbps from /sys/block/*/stat over the phase (includes the "
        + "RAID parity and the file systems' journals); cpu_cores = this JVM's CPU time / wall "
        + "time (servers included: all sides run in this JVM)", String.join(", ", sides),
        writers, fileMiB, writers, smallFiles, threads));
    r.metrics.putAll(metrics);
    r.ratio("ckpt_write_vs_local", "parityfs_ckpt_write_mbps", "local_ckpt_write_mbps");
    r.ratio("ckpt_read_vs_local", "parityfs_ckpt_read_mbps", "local_ckpt_read_mbps");
    r.ratio("ckpt_write_vs_hdfs", "parityfs_ckpt_write_mbps", "hdfs_ckpt_write_mbps");
    r.ratio("ckpt_read_vs_hdfs", "parityfs_ckpt_read_mbps", "hdfs_ckpt_read_mbps");
    r.ratio("smallfiles_vs_hdfs", "parityfs_small_files_per_s", "hdfs_small_files_per_s");
    r.ratio("smallfiles_vs_local", "parityfs_small_files_per_s", "local_small_files_per_s");
    r.ratio("ckpt_write_disk_vs_local", "parityfs_ckpt_write_disk_mbps",
        "local_ckpt_write_disk_mbps");
    r.ratio("ckpt_write_cpu_vs_hdfs", "parityfs_ckpt_write_core_s_per_gb",
        "hdfs_ckpt_write_core_s_per_gb");
    r.ratio("ckpt_read_cpu_vs_hdfs", "parityfs_ckpt_read_core_s_per_gb",
        "hdfs_ckpt_read_core_s_per_gb");
    // ParityFS's media bytes (data plus parity: its layout's factor) against the disk's own
    // sequential O_DIRECT write: how close to the disk the protected write runs.
    if (metrics.get("parityfs_ckpt_write_mbps") instanceof Number p
        && metrics.get("parityfs_media_factor") instanceof Number factor
        && metrics.get("disk_odirect_write_mbps") instanceof Number disk) {
      r.ratios.put("ckpt_write_vs_disk_share", BenchReport.round(
          p.doubleValue() * factor.doubleValue() / disk.doubleValue()));
    }
    r.write(out);
  }
}
