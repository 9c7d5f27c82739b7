package io.parityfs.client.bench;

import static io.parityfs.client.bench.BenchReport.log;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsFileWriter;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.fuse.MountOptions;
import io.parityfs.fuse.PfsMount;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Layout;
import io.parityfs.testing.MiniCluster;
import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The FUSE mount against the Java client and the local disk (issue 9), in one run: a 3-node
 * in-process cluster (RAID-6 4+2 nodes over folders of this disk, files striped over the three
 * targets in 8 MiB chunks); for each side in turn, a sequential write of {@code size} MiB in
 * 1 MiB calls, durable at the end (the client's close; {@code dd conv=fsync} then close through
 * the mount and on the local disk), the page cache dropped, a sequential read in 1 MiB calls,
 * and {@code ops} 4 KiB reads at random 4 KiB-aligned offsets (the client with read-ahead off;
 * a FileChannel on the mounted and the local file); then (issue 20) {@value #WRITERS} threads
 * write 4 KiB pages at random 4 KiB-aligned offsets for {@code rand-seconds} (the client through
 * one {@link PfsFileWriter}, as the mount uses; a FileChannel on the mounted and the local file),
 * one sync at the end, and every page's last write read back and compared (as fio's
 * {@code verify}). The mount is served by this JVM, like the nodes and the client.
 *
 * <p>{@code mvn -q -pl fs-client -Pbench test-compile exec:exec
 * -Dbench.main=io.parityfs.client.bench.FuseBenchmark} writes {@code docs/benchmarks/fuse.json};
 * {@code -Dbench.args="--mib 256 --ops 2000 --out none"} for a quick look; {@code --profile DIR}
 * writes the CPU profile of each sequential phase of the mount and the disk there (this JVM's
 * threads only, async-profiler's collapsed stacks, as {@code DataPathBenchmark}'s).
 */
public final class FuseBenchmark {
  private static final int MIB = 1 << 20;
  private static final int PAGE = 4096;
  /** Threads of the random-write phase (fio's iodepth 16 as threads). */
  static final int WRITERS = 16;

  private final Path dir = Path.of("fs-client/target/bench/fuse").toAbsolutePath();
  private final BenchReport report;
  private final int mib;
  private final int ops;
  private final int randSeconds;
  /** Where the mount's sequential phases' CPU profiles go (collapsed stacks); null: none. */
  private static Path profile;

  private FuseBenchmark(int mib, int ops, int randSeconds, String command) {
    this.mib = mib;
    this.ops = ops;
    this.randSeconds = randSeconds;
    this.report = new BenchReport("fuse", command);
  }

  public static void main(String[] args) throws Exception {
    int mib = 1024;
    int ops = 4000;
    int randSeconds = 10;
    Path out = Path.of("docs/benchmarks/fuse.json");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--mib" -> mib = Integer.parseInt(args[++i]);
        case "--ops" -> ops = Integer.parseInt(args[++i]);
        case "--rand-seconds" -> randSeconds = Integer.parseInt(args[++i]);
        case "--out" -> out = args[++i].equals("none") ? null : Path.of(args[i]);
        case "--profile" -> profile = Path.of(args[++i]).toAbsolutePath();
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    String command = "mvn -q -pl fs-client -Pbench test-compile exec:exec"
        + " -Dbench.main=io.parityfs.client.bench.FuseBenchmark";
    FuseBenchmark b = new FuseBenchmark(mib, ops, randSeconds, command);
    String loadBefore = BenchReport.loadAverage();
    b.run();
    b.report.loadAverageSince(loadBefore);
    b.report.ratio("seq_write_vs_client", "fuse_seq_write_mbps", "client_seq_write_mbps");
    b.report.ratio("seq_read_vs_client", "fuse_seq_read_mbps", "client_seq_read_mbps");
    b.report.ratio("rand4k_read_vs_client", "fuse_rand4k_read_iops", "client_rand4k_read_iops");
    // issue 20's names: the mount's verified 4 KiB random writes, and its random reads
    if (b.report.metrics.get("fuse_rand4k_write_iops") instanceof Number n) {
      b.report.metric("mount_rand4k_write_iops", n.doubleValue());
    }
    b.report.ratio("mount_rand4k_read_vs_client", "fuse_rand4k_read_iops",
        "client_rand4k_read_iops");
    b.report.ratio("rand4k_write_vs_client", "fuse_rand4k_write_iops",
        "client_rand4k_write_iops");
    b.report.ratio("seq_write_vs_local", "fuse_seq_write_mbps", "local_seq_write_mbps");
    b.report.ratio("seq_read_vs_local", "fuse_seq_read_mbps", "local_seq_read_mbps");
    // CPU per byte against the client's (lower is better): what the mount costs on top.
    b.report.ratio("seq_write_cpu_vs_client", "fuse_seq_write_core_s_per_gb",
        "client_seq_write_core_s_per_gb");
    b.report.ratio("seq_read_cpu_vs_client", "fuse_seq_read_core_s_per_gb",
        "client_seq_read_core_s_per_gb");
    b.report.write(out);
    System.exit(0);
  }

  private void run() throws Exception {
    TestDirs.deleteTree(dir);
    Files.createDirectories(dir);
    boolean cold = BenchReport.dropCaches();
    report.describe("parityfs", "ParityFS in this JVM: embedded ZooKeeper, 3 storage nodes, each"
        + " one RAID-6 4+2 target over 6 folders of the same disk (64 KiB cells, CPU codec),"
        + " files in 8 MiB chunks striped over the 3 targets");
    report.describe("sides", "client: ParityClient streams (PfsOutputStream, PfsInputStream)"
        + " in this JVM; fuse: the mount served by this JVM (parityfs mount's"
        + " default options), driven by dd and a FileChannel; local: the same disk (ext4) by dd"
        + " and a FileChannel");
    report.describe("method", String.format(Locale.ROOT, "each side in turn (the client and the"
        + " mount after an unmeasured warm-up write and read of the same size): sequential write"
        + " of %d MiB of zeros in 1 MiB calls, durable at the end (client close; dd"
        + " conv=fsync, then close); page cache dropped%s; sequential read in 1 MiB calls;"
        + " %d reads of 4 KiB at random 4 KiB-aligned offsets (seeded, the same offsets on"
        + " every side; the client with read-ahead 0); then %d threads write 4 KiB pages at"
        + " random 4 KiB-aligned offsets of the file for %d s (thread t: pages = t mod %d, each"
        + " page stamped with its thread and write), one sync at the end (timed), and every"
        + " page's last write read back and compared (page cache dropped first);"
        + " core_s_per_gb = the machine's busy CPU time over the phase (/proc/stat: every process"
        + " and the kernel) per GB of the file", mib, cold ? "" : " (could not: not root)", ops,
        WRITERS, randSeconds, WRITERS));
    try (MiniCluster cluster = MiniCluster.start(dir.resolve("cluster"), 3, "raid6:4+2", 6);
        ParityClient client = cluster.client(Caller.of("root"))) {
      client.namespace().setLayout("/", new Layout(8L << 20, 3, List.of(), "raid6:4+2"));
      clientSide(client);
      fuseSide(client);
      clientRandomWrites(client);
    }
    localSide();
    TestDirs.deleteTree(dir);
  }

  private void clientSide(ParityClient client) throws Exception {
    byte[] block = new byte[MIB];
    // Warm-up, not measured: the same write and read once, so the measured phases run compiled
    // code (in a cold JVM the JIT compilers took half the CPU time of a 1 GiB phase).
    clientWrite(client, "/warm.bin", block);
    clientRead(client, "/warm.bin", block);
    client.namespace().delete("/warm.bin", false);
    double cpu = BenchReport.machineBusySeconds();
    long t = System.nanoTime();
    clientWrite(client, "/client.bin", block);
    mbps("client_seq_write_mbps", t);
    cpuPerGb("client_seq_write_core_s_per_gb", cpu);
    BenchReport.dropCaches();
    cpu = BenchReport.machineBusySeconds();
    t = System.nanoTime();
    long read = clientRead(client, "/client.bin", block);
    check(read, "client read");
    mbps("client_seq_read_mbps", t);
    cpuPerGb("client_seq_read_core_s_per_gb", cpu);
    BenchReport.dropCaches();
    byte[] page = new byte[PAGE];
    Random r = new Random(42);
    t = System.nanoTime();
    try (PfsInputStream in = client.open("/client.bin", 0)) {
      for (int i = 0; i < ops; i++) {
        long at = (long) r.nextInt(mib * (MIB / PAGE)) * PAGE;
        in.readFully(at, ByteBuffer.wrap(page));
      }
    }
    iops("client_rand4k_read_iops", t);
  }

  /**
   * The client's random-write phase, after the mount's sequential phases: the chunks it
   * rewrites leave the nodes old versions to collect, which would slow the phases after it.
   */
  private void clientRandomWrites(ParityClient client) throws Exception {
    try (PfsFileWriter w = client.openWriter("/client.bin")) {
      randomWrites("client", w::write, w::sync, (at, into) -> {
        try (PfsInputStream in = client.open("/client.bin", 0)) {
          in.readFully(at, into);
        }
      });
    }
  }

  /** Writes a page at a position (its whole remaining bytes). */
  @FunctionalInterface
  private interface PageIo {
    void at(long position, ByteBuffer page) throws IOException;
  }

  @FunctionalInterface
  private interface Sync {
    void sync() throws IOException;
  }

  /**
   * {@value #WRITERS} threads write 4 KiB pages at random for {@code randSeconds} (thread t
   * only pages p with p mod {@value #WRITERS} = t, so each page's last write is known), then
   * {@code sync}; the IOPS count the sync. Then every page written is read back with {@code
   * read} (after the page cache is dropped) and compared with its last write.
   */
  private void randomWrites(String side, PageIo write, Sync sync, PageIo read) throws Exception {
    long pages = (long) mib * (MIB / PAGE);
    List<Map<Long, Long>> last = new java.util.ArrayList<>();
    List<Thread> threads = new java.util.ArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Throwable> failed =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.LongAdder count = new java.util.concurrent.atomic.LongAdder();
    long deadline = System.nanoTime() + randSeconds * 1_000_000_000L;
    long t = System.nanoTime();
    for (int w = 0; w < WRITERS; w++) {
      int me = w;
      Map<Long, Long> mine = new java.util.HashMap<>();
      last.add(mine);
      Thread th = new Thread(() -> {
        Random r = new Random(1000 + me);
        ByteBuffer page = ByteBuffer.allocateDirect(PAGE);
        try {
          for (long op = 0; System.nanoTime() < deadline && failed.get() == null; op++) {
            long p = (r.nextLong(pages / WRITERS)) * WRITERS + me;
            stamp(page, me, op, p);
            write.at(p * PAGE, page);
            mine.put(p, op);
            count.increment();
          }
        } catch (Throwable e) {
          failed.compareAndSet(null, e);
        }
      }, side + "-writer-" + me);
      th.start();
      threads.add(th);
    }
    for (Thread th : threads) {
      th.join();
    }
    if (failed.get() != null) {
      throw new IOException(side + " random writes failed", failed.get());
    }
    sync.sync();
    double s = (System.nanoTime() - t) / 1e9;
    long written = last.stream().mapToLong(Map::size).sum(); // distinct pages
    long opsDone = count.sum();
    double v = opsDone / s;
    report.metric(side + "_rand4k_write_iops", v);
    log("%s_rand4k_write_iops: %.0f/s (%d writes of 4 KiB in %.1f s, sync included; %d pages)",
        side, v, opsDone, s, written);
    BenchReport.dropCaches();
    ByteBuffer got = ByteBuffer.allocateDirect(PAGE);
    ByteBuffer want = ByteBuffer.allocateDirect(PAGE);
    long checked = 0;
    for (int w = 0; w < WRITERS; w++) {
      for (Map.Entry<Long, Long> e : last.get(w).entrySet()) {
        got.clear();
        read.at(e.getKey() * PAGE, got);
        got.flip();
        stamp(want, w, e.getValue(), e.getKey());
        if (!got.equals(want)) {
          throw new IOException(side + ": page " + e.getKey() + " does not hold its last write"
              + " (writer " + w + ", write " + e.getValue() + ")");
        }
        checked++;
      }
    }
    log("%s: %d pages read back, each its last write", side, checked);
  }

  /** Fills {@code page} with longs that name its writer, write and page (position 0, full). */
  private static void stamp(ByteBuffer page, int writer, long op, long p) {
    page.clear();
    long seed = ((long) writer << 48) ^ (op << 24) ^ p;
    for (int i = 0; i < PAGE / 8; i++) {
      page.putLong(seed + i);
    }
    page.flip();
  }

  /** Writes {@code mib} MiB of {@code block} to {@code path} through the client, durably. */
  private void clientWrite(ParityClient client, String path, byte[] block) throws IOException {
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      for (int i = 0; i < mib; i++) {
        out.write(block, 0, MIB);
      }
    }
  }

  /** Reads {@code path} through the client in 1 MiB calls; returns the bytes read. */
  private static long clientRead(ParityClient client, String path, byte[] block)
      throws IOException {
    long read = 0;
    try (PfsInputStream in = client.open(path)) {
      int n;
      while ((n = in.read(block, 0, MIB)) > 0) {
        read += n;
      }
    }
    return read;
  }

  private void fuseSide(ParityClient client) throws Exception {
    Path mnt = dir.resolve("mnt");
    Files.createDirectories(mnt);
    try (PfsMount mount = PfsMount.start(client, MountOptions.of(mnt))) {
      Path warm = mnt.resolve("warm.bin"); // as the client's warm-up
      dd("if=/dev/zero", "of=" + warm, "bs=1M", "count=" + mib, "conv=fsync");
      dd("if=" + warm, "of=/dev/null", "bs=1M");
      Files.delete(warm);
      sequentialAndRandom("fuse", mnt.resolve("fuse.bin"));
      report.describe("binding", mount.binding() + " (docs/fuse.md, \"Which binding runs on"
          + " which JDK\")");
      report.metric("fuse_largest_write_kib", mount.operations().largestWrite() >> 10);
      report.metric("fuse_largest_read_kib", mount.operations().largestRead() >> 10);
    }
  }

  private void localSide() throws Exception {
    sequentialAndRandom("local", dir.resolve("local.bin"));
  }

  /** The random-write phase on a file through a FileChannel (the mount's, or the disk's). */
  private void channelRandomWrites(String side, Path file) throws Exception {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE,
        StandardOpenOption.READ)) {
      randomWrites(side, (at, page) -> {
        while (page.hasRemaining()) {
          ch.write(page, at + page.position());
        }
      }, () -> ch.force(false), (at, page) -> {
        while (page.hasRemaining()) {
          if (ch.read(page, at + page.position()) < 0) {
            throw new IOException(side + ": end of file at " + at);
          }
        }
      });
    }
  }

  /** dd writes and reads {@code file}, then a FileChannel reads 4 KiB pages at random. */
  private void sequentialAndRandom(String side, Path file) throws Exception {
    double cpu = BenchReport.machineBusySeconds();
    PathProfiler p = profile == null ? null : PathProfiler.start(side + "-write", profile);
    long t = System.nanoTime();
    dd("if=/dev/zero", "of=" + file, "bs=1M", "count=" + mib, "conv=fsync");
    mbps(side + "_seq_write_mbps", t);
    if (p != null) {
      p.stop((long) mib * MIB);
    }
    cpuPerGb(side + "_seq_write_core_s_per_gb", cpu);
    check(Files.size(file), side + " write");
    BenchReport.dropCaches();
    cpu = BenchReport.machineBusySeconds();
    p = profile == null ? null : PathProfiler.start(side + "-read", profile);
    t = System.nanoTime();
    dd("if=" + file, "of=/dev/null", "bs=1M");
    mbps(side + "_seq_read_mbps", t);
    if (p != null) {
      p.stop((long) mib * MIB);
    }
    cpuPerGb(side + "_seq_read_core_s_per_gb", cpu);
    BenchReport.dropCaches();
    Random r = new Random(42);
    ByteBuffer page = ByteBuffer.allocateDirect(PAGE);
    t = System.nanoTime();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      for (int i = 0; i < ops; i++) {
        long at = (long) r.nextInt(mib * (MIB / PAGE)) * PAGE;
        page.clear();
        while (page.hasRemaining()) {
          if (ch.read(page, at + page.position()) < 0) {
            throw new IOException(side + ": end of file at " + at);
          }
        }
      }
    }
    iops(side + "_rand4k_read_iops", t);
    channelRandomWrites(side, file);
  }

  private static void dd(String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of("dd", "status=none"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
  }

  private void check(long bytes, String what) throws IOException {
    if (bytes != (long) mib * MIB) {
      throw new IOException(what + ": " + bytes + " bytes, expected " + (long) mib * MIB);
    }
  }

  private void mbps(String metric, long startNanos) {
    double s = (System.nanoTime() - startNanos) / 1e9;
    double v = (double) mib * MIB / 1e6 / s;
    report.metric(metric, v);
    log("%s: %.0f MB/s (%.1f s)", metric, v, s);
  }

  /** The machine's CPU time since {@code busyBefore}, in core-seconds per GB of the file. */
  private void cpuPerGb(String metric, double busyBefore) {
    double v = (BenchReport.machineBusySeconds() - busyBefore) / ((double) mib * MIB / 1e9);
    report.metric(metric, v);
    log("%s: %.2f core-s/GB", metric, v);
  }

  private void iops(String metric, long startNanos) {
    double s = (System.nanoTime() - startNanos) / 1e9;
    double v = ops / s;
    report.metric(metric, v);
    log("%s: %.0f/s (%.1f s)", metric, v, s);
  }
}
