package io.parityfs.client.bench;

import static io.parityfs.client.bench.BenchReport.log;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.fuse.MountOptions;
import io.parityfs.fuse.PfsMount;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Layout;
import io.parityfs.testing.MiniCluster;
import io.parityfs.testkit.TestDirs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * PyTorch checkpoints through the FUSE mount, against a local directory and against the Java
 * client, side by side in one run (issue 41, item 5). A checkpoint is {@code procs} processes
 * (Debian's {@code python3-torch} on {@code /usr/bin/python3}; installed here with apt-get when
 * missing and we are root) each {@code torch.save}-ing one shard of {@code shardMiB} MiB of
 * float32 tensors and fsyncing it into a temporary folder, then the folder renamed into place
 * and its parent fsynced, as PyTorch's distributed checkpoint commits; the page cache dropped;
 * then every shard {@code torch.load}-ed and compared with the tensors it was made from.
 *
 * <ul>
 *   <li><b>local</b>: a folder of this disk.
 *   <li><b>fuse</b>: the mount ({@code PfsMount}, {@code parityfs mount}'s defaults) of a 3-node
 *       cluster in this JVM (RAID-6 4+2 nodes over folders of the disk, 8 MiB chunks over the 3
 *       targets), the Python processes writing and reading through it.
 *   <li><b>client</b>: the same cluster through {@code ParityClient}: each process serializes
 *       its shard to memory and writes it to stdout, which this JVM streams into a ParityFS
 *       file (durable at close); a load streams the file to the process's stdin.
 * </ul>
 *
 * The mount and the client each run an unmeasured pass of a quarter of the size first: in a
 * cold JVM the JIT compilers took a third of the mount's CPU time.
 *
 * <p>Timing: each process builds its tensors first (not timed) and says so; the phase starts when
 * all are ready (a go file appears) and ends when the last shard is durable and the folder
 * renamed (save) or the last process has loaded its shard (load, before its comparison). CPU:
 * the machine's busy time over the phase ({@code /proc/stat}), per GB of checkpoint.
 *
 * <p>{@code mvn -q -pl fs-client -Pbench test-compile exec:exec
 * -Dbench.main=io.parityfs.client.bench.TorchBenchmark} writes {@code docs/benchmarks/torch.json};
 * {@code -Dbench.args="--procs 2 --shard-mib 256 --out none"} for a quick look; {@code --profile
 * DIR} writes the CPU profile of this JVM's threads in each local and mount phase there
 * (async-profiler's collapsed stacks, as {@code FuseBenchmark}'s).
 */
public final class TorchBenchmark {
  private static final String PYTHON = "/usr/bin/python3";

  /** Where each phase's CPU profile of this JVM goes (collapsed stacks); null: none. */
  private static Path profile;
  private final Path dir = Path.of("fs-client/target/bench/torch").toAbsolutePath();
  private final Path script;
  private final BenchReport report;
  private final int procs;
  private final int shardMiB;
  /** The shard size of the pass under way: a quarter of it in the warm-up pass. */
  private int passMiB;
  /** Whether the pass under way is the unmeasured warm-up. */
  private boolean warmup;
  private final ExecutorService pumps = Executors.newCachedThreadPool();
  /** The machine's busy CPU seconds when the last rank of a phase said done. */
  private double busyAtDone;

  private TorchBenchmark(int procs, int shardMiB, String command) {
    this.procs = procs;
    this.shardMiB = shardMiB;
    this.passMiB = shardMiB;
    this.report = new BenchReport("torch", command);
    this.script = Path.of("fs-client/src/bench/python/torch_checkpoint.py").toAbsolutePath();
  }

  public static void main(String[] args) throws Exception {
    int procs = 2;
    int shardMiB = 1024;
    Path out = Path.of("docs/benchmarks/torch.json");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--procs" -> procs = Integer.parseInt(args[++i]);
        case "--shard-mib" -> shardMiB = Integer.parseInt(args[++i]);
        case "--out" -> out = args[++i].equals("none") ? null : Path.of(args[i]);
        case "--profile" -> profile = Path.of(args[++i]).toAbsolutePath();
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + " (--procs N, --shard-mib N, --out PATH|none, --profile DIR)");
      }
    }
    String command = "mvn -q -pl fs-client -Pbench test-compile exec:exec"
        + " -Dbench.main=io.parityfs.client.bench.TorchBenchmark";
    TorchBenchmark b = new TorchBenchmark(procs, shardMiB, command);
    String loadBefore = BenchReport.loadAverage();
    b.run();
    b.report.loadAverageSince(loadBefore);
    b.report.ratio("torch_save_vs_local", "fuse_save_mbps", "local_save_mbps");
    b.report.ratio("torch_load_vs_client", "fuse_load_mbps", "client_load_mbps");
    b.report.ratio("torch_save_vs_client", "fuse_save_mbps", "client_save_mbps");
    b.report.ratio("torch_load_vs_local", "fuse_load_mbps", "local_load_mbps");
    b.report.write(out);
    b.pumps.shutdownNow();
    System.exit(0);
  }

  private void run() throws Exception {
    String torch = ensureTorch();
    TestDirs.deleteTree(dir);
    Files.createDirectories(dir);
    boolean cold = BenchReport.dropCaches();
    report.describe("torch", torch);
    report.describe("parityfs", "ParityFS in this JVM: embedded ZooKeeper, 3 storage nodes, each"
        + " one RAID-6 4+2 target over 6 folders of the same disk (64 KiB cells, CPU codec),"
        + " files in 8 MiB chunks striped over the 3 targets; the mount with parityfs mount's"
        + " default options");
    report.describe("method", String.format(Locale.ROOT, "%d processes each torch.save one"
        + " shard of %d MiB (float32 tensors of 32 MiB, built before the clock starts) and"
        + " fsync it into a temporary folder, which is then renamed into place and its parent"
        + " fsynced; page cache dropped%s; every shard torch.load-ed (timed) and compared with"
        + " the tensors it was made from (not timed). local: a folder of this disk; fuse:"
        + " through the mount; client: each process serializes to memory and pipes the bytes"
        + " to this JVM, which writes them through ParityClient (durable at close), and a load"
        + " pipes the file back; the mount and the client each run an unmeasured pass of a"
        + " quarter of the size first (the JIT). mbps = checkpoint bytes (the .pt files) / phase seconds;"
        + " core_s_per_gb = the machine's busy CPU time over the phase (/proc/stat; a load's"
        + " to the last rank's end of loading, its comparison excluded) per GB",
        procs, shardMiB, cold ? "" : " (could not: not root)"));
    Path local = dir.resolve("local");
    Files.createDirectories(local);
    side("local", local);
    try (MiniCluster cluster = MiniCluster.start(dir.resolve("cluster"), 3, "raid6:4+2", 6);
        ParityClient client = cluster.client(Caller.of("root"))) {
      client.namespace().setLayout("/", new Layout(8L << 20, 3, List.of(), "raid6:4+2"));
      Path mnt = dir.resolve("mnt");
      Files.createDirectories(mnt);
      try (PfsMount mount = PfsMount.start(client, MountOptions.of(mnt))) {
        Path d = mnt.resolve("fuse");
        Files.createDirectories(d);
        // an unmeasured pass of a quarter of the size through the mount and the client first:
        // in a cold JVM the JIT compilers took a third of the mount's CPU time (profiled)
        warmup = true;
        passMiB = Math.max(32, shardMiB / 4);
        side("fuse", d);
        clientSide(client, "/warmup");
        warmup = false;
        passMiB = shardMiB;
        side("fuse", d);
      }
      clientSide(client, "/client");
    }
    TestDirs.deleteTree(dir);
  }

  /** Python with torch; installs Debian's python3-torch when it is missing and we may. */
  private static String ensureTorch() throws IOException, InterruptedException {
    String version = torchVersion();
    if (version == null) {
      log("python3-torch is missing: installing it (apt-get install python3-torch)");
      int rc = new ProcessBuilder("sh", "-c", "DEBIAN_FRONTEND=noninteractive apt-get install"
          + " -y -qq python3-torch || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive"
          + " apt-get install -y -qq python3-torch)").inheritIO().start().waitFor();
      version = torchVersion();
      if (version == null) {
        throw new IllegalStateException("PyTorch is not importable by " + PYTHON + " (apt-get"
            + " install python3-torch exited " + rc + "; it needs root and Debian's archive)");
      }
    }
    return "PyTorch " + version + " (Debian python3-torch) on " + PYTHON;
  }

  private static String torchVersion() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(PYTHON, "-c", "import torch; print(torch.__version__)")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    return p.waitFor() == 0 ? out : null;
  }

  /** A side whose processes read and write files under {@code root}. */
  private void side(String name, Path root) throws Exception {
    Path tmp = root.resolve(".ckpt-1.tmp");
    Path done = root.resolve("ckpt-1");
    Files.createDirectories(tmp);
    List<Rank> ranks = new ArrayList<>();
    for (int r = 0; r < procs; r++) {
      ranks.add(start("save", tmp.resolve(shardName(r)).toString(), r));
    }
    double cpu = BenchReport.machineBusySeconds();
    PathProfiler p = profile == null || warmup ? null : PathProfiler.start(name + "-save", profile);
    long go = go(ranks);
    finish(ranks);
    Files.move(tmp, done);
    fsyncDir(root);
    long bytes = sizes(done);
    if (p != null) {
      p.stop(bytes);
    }
    phase(name + "_save", bytes, go, System.currentTimeMillis(), cpu,
        BenchReport.machineBusySeconds());
    BenchReport.dropCaches();
    ranks.clear();
    for (int r = 0; r < procs; r++) {
      ranks.add(start("load", done.resolve(shardName(r)).toString(), r));
    }
    cpu = BenchReport.machineBusySeconds();
    p = profile == null || warmup ? null : PathProfiler.start(name + "-load", profile);
    go = go(ranks);
    long end = finish(ranks);
    if (p != null) {
      p.stop(bytes);
    }
    phase(name + "_load", bytes, go, end, cpu, busyAtDone); // not the comparison after it
    TestDirs.deleteTree(done);
  }

  /** The client side: shards piped between the processes and ParityClient streams. */
  private void clientSide(ParityClient client, String root) throws Exception {
    String tmp = root + "/.ckpt-1.tmp";
    String done = root + "/ckpt-1";
    client.namespace().mkdirs(tmp);
    List<Rank> ranks = new ArrayList<>();
    List<Future<Long>> stores = new ArrayList<>();
    for (int r = 0; r < procs; r++) {
      Rank rank = start("save", "-", r);
      ranks.add(rank);
      String path = tmp + "/" + shardName(r);
      stores.add(pumps.submit(() -> {
        long n;
        try (PfsOutputStream out = client.create(path, CreateOptions.file());
            InputStream in = rank.process.getInputStream()) {
          n = in.transferTo(out);
        } // closed: durable
        return n;
      }));
    }
    double cpu = BenchReport.machineBusySeconds();
    long go = go(ranks);
    finish(ranks);
    long bytes = 0;
    for (Future<Long> f : stores) {
      bytes += f.get(10, TimeUnit.MINUTES);
    }
    client.namespace().rename(tmp, done);
    phase("client_save", bytes, go, System.currentTimeMillis(), cpu,
        BenchReport.machineBusySeconds());
    BenchReport.dropCaches();
    ranks.clear();
    List<Future<?>> feeds = new ArrayList<>();
    for (int r = 0; r < procs; r++) {
      Rank rank = start("load", "-", r);
      ranks.add(rank);
      String path = done + "/" + shardName(r);
      feeds.add(pumps.submit(() -> {
        try (PfsInputStream in = client.open(path);
            OutputStream out = rank.process.getOutputStream()) {
          in.transferTo(out);
        }
        return null;
      }));
    }
    cpu = BenchReport.machineBusySeconds();
    go = go(ranks);
    long end = finish(ranks);
    for (Future<?> f : feeds) {
      f.get(10, TimeUnit.MINUTES);
    }
    phase("client_load", bytes, go, end, cpu, busyAtDone);
  }

  private static String shardName(int rank) {
    return "__" + rank + "_0.distcp.pt";
  }

  /** One Python process and its stderr. */
  private record Rank(int rank, Process process, BufferedReader status) {}

  private Rank start(String mode, String path, int rank) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(PYTHON, script.toString(), mode, path,
        Integer.toString(rank), Integer.toString(passMiB), dir.resolve("go").toString());
    if (!path.equals("-")) {
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
      pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    }
    Files.deleteIfExists(dir.resolve("go"));
    Process p = pb.start();
    return new Rank(rank, p, new BufferedReader(new InputStreamReader(p.getErrorStream(),
        StandardCharsets.UTF_8)));
  }

  /** Waits until every rank is ready, then starts them; returns the start, epoch millis. */
  private long go(List<Rank> ranks) throws IOException {
    for (Rank r : ranks) {
      String line = expectLine(r);
      if (!line.equals("ready")) {
        throw new IOException("rank " + r.rank + ": expected ready, got " + line);
      }
    }
    long t = System.currentTimeMillis();
    Files.createFile(dir.resolve("go"));
    return t;
  }

  /**
   * Waits for every rank to end well; returns when the last said done (epoch millis, and the
   * machine's busy CPU seconds then in {@link #busyAtDone}).
   */
  private long finish(List<Rank> ranks) throws IOException, InterruptedException {
    long last = 0;
    for (Rank r : ranks) {
      String line = expectLine(r);
      String[] f = line.split(" ");
      if (f.length != 3 || !f[0].equals("done")) {
        throw new IOException("rank " + r.rank + ": expected done, got " + line);
      }
      long at = (long) (Double.parseDouble(f[1]) * 1000);
      if (at >= last) {
        last = at;
        busyAtDone = Double.parseDouble(f[2]);
      }
      StringBuilder rest = new StringBuilder();
      for (String l; (l = r.status.readLine()) != null; ) {
        rest.append(l).append('\n');
      }
      if (!r.process.waitFor(10, TimeUnit.MINUTES) || r.process.exitValue() != 0) {
        throw new IOException("rank " + r.rank + " failed: " + rest);
      }
    }
    Files.deleteIfExists(dir.resolve("go"));
    return last;
  }

  private static String expectLine(Rank r) throws IOException {
    StringBuilder skipped = new StringBuilder();
    for (String l; (l = r.status.readLine()) != null; ) {
      if (l.equals("ready") || l.startsWith("done ")) {
        return l;
      }
      skipped.append(l).append('\n'); // warnings
    }
    throw new IOException("rank " + r.rank + " ended early: " + skipped);
  }

  /**
   * Records a phase from {@code startMillis} to {@code endMillis}, the machine's busy CPU seconds
   * being {@code cpu} at its start and {@code cpuEnd} at its end.
   */
  private void phase(String name, long bytes, long startMillis, long endMillis, double cpu,
      double cpuEnd) {
    double s = (endMillis - startMillis) / 1000.0;
    double busy = cpuEnd - cpu;
    if (warmup) {
      log("warm-up %s: %.0f MB/s", name, bytes / 1e6 / s);
      return;
    }
    report.metric(name + "_mbps", bytes / 1e6 / s);
    report.metric(name + "_core_s_per_gb", busy / (bytes / 1e9));
    log("%s: %.0f MB/s (%.2f s, %,d bytes), %.2f core-s/GB", name, bytes / 1e6 / s, s, bytes,
        busy / (bytes / 1e9));
  }

  private static long sizes(Path folder) throws IOException {
    try (var s = Files.list(folder)) {
      long n = 0;
      for (Path p : (Iterable<Path>) s::iterator) {
        n += Files.size(p);
      }
      return n;
    }
  }

  private static void fsyncDir(Path d) throws IOException {
    try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
