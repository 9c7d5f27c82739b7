package io.parityfs.client.bench;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.keeper.Reprotector;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Layout;
import io.parityfs.testing.MiniCluster;
import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Protection across nodes, side by side in one run on one local cluster (docs/across-nodes.md):
 * {@code nodes} storage nodes in this JVM, each one RAID-6 4+2 target over six folders of the
 * same disk, and for each policy ({@code none}, {@code mirror:2}, {@code ec:K+M}) in turn:
 *
 * <ul>
 *   <li><b>write</b>: {@code writers} threads each write one {@code fileMiB} MiB file in 4 MiB
 *       writes and close it (durable on every member), timed to the last close; the bytes of the
 *       files' shards and manifests on all drives, over the data bytes, are the media bytes
 *       per data byte;
 *   <li><b>read</b>: the page cache dropped, the same threads read the files back in 4 MiB reads,
 *       every byte compared;
 *   <li><b>degraded read</b> (mirror and ec): one storage node stopped (the first that holds a
 *       member of every file, so that every run loses the same share), the files read again,
 *       every byte compared (its chunks come from the other copy, or are decoded from K members);
 *       the node restarted.
 * </ul>
 *
 * <li><b>re-protection</b> (ec): with that node still stopped, declared lost, the same threads
 *       re-protect the files ({@code Reprotector}: each member the node held rebuilt by the node
 *       of its new target, the spare node's, from K others it reads from their nodes itself
 *       (REBUILD_MEMBER), 16 groups of a file at once, the layouts switched), timed, with the
 *       process's CPU time per rebuilt byte beside the rate; then every
 *       byte is read back (untimed) with the node still down, and the node restarted.
 *
 * Files stripe over one group's width ({@code K+M}) of the {@code nodes}, so that a node's
 * members have somewhere to go. Every policy is first run once untimed on 16 MiB files (the
 * JIT, the codecs, the connections).
 *
 * <p>Arguments: {@code --writers N} (4), {@code --file-mib N} (512), {@code --rounds N} (2), {@code --nodes N} (6),
 * {@code --k N} {@code --m N} (4 and 1), {@code --chunk-mib N} (8), {@code --dir PATH}
 * (fs-client/target/bench-across), {@code --out PATH} (docs/benchmarks/across.json; "-" for none).
 */
public final class AcrossBenchmark {
  private static final int IO = 4 << 20;

  private int writers = 4;
  private int fileMiB = 512;
  private int nodes = 6;
  private int k = 4;
  private int m = 1;
  private int chunkMiB = 8;
  private Path dir = Path.of("fs-client/target/bench-across");
  private Path out = Path.of("docs/benchmarks/across.json");
  private String command = "mvn -q -pl fs-client -Pbench test-compile exec:exec"
      + " -Dbench.main=io.parityfs.client.bench.AcrossBenchmark";
  private final Map<String, Object> metrics = new LinkedHashMap<>();
  /** Per phase kind: bytes, seconds and CPU seconds summed over its runs. */
  private final Map<String, double[]> times = new LinkedHashMap<>();
  private int rounds = 2;
  /** The node stopped for the degraded read and re-protection; -1: the first of every file. */
  private int down = -1;
  private boolean cachesDropped = true;

  public static void main(String[] args) throws Exception {
    AcrossBenchmark b = new AcrossBenchmark();
    b.parse(args);
    b.run();
    System.exit(0);
  }

  private void parse(String[] args) {
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--writers" -> writers = Integer.parseInt(args[++i]);
        case "--file-mib" -> fileMiB = Integer.parseInt(args[++i]);
        case "--nodes" -> nodes = Integer.parseInt(args[++i]);
        case "--k" -> k = Integer.parseInt(args[++i]);
        case "--m" -> m = Integer.parseInt(args[++i]);
        case "--chunk-mib" -> chunkMiB = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--down" -> down = Integer.parseInt(args[++i]);
        case "--dir" -> dir = Path.of(args[++i]);
        case "--out" -> {
          String o = args[++i];
          out = o.equals("-") ? null : Path.of(o);
        }
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + " (see AcrossBenchmark's Javadoc)");
      }
    }
    if (args.length > 0) {
      command += " -Dbench.args=\"" + String.join(" ", args) + "\"";
    }
  }

  private void run() throws Exception {
    dir = dir.toAbsolutePath();
    String loadBefore = BenchReport.loadAverage();
    Across ec = Across.ec(k, m);
    List<Across> policies = List.of(Across.NONE, Across.mirror(2), ec);
    BenchReport.log("load %s; %d nodes, %d writers x %d MiB per policy %s", loadBefore, nodes,
        writers, fileMiB, policies);
    TestDirs.deleteTree(dir);
    Files.createDirectories(dir);
    MiniCluster cluster = MiniCluster.start(dir, nodes, "raid6:4+2", 6);
    try (ParityClient client = cluster.client(Caller.of("root"))) {
      for (Across p : policies) {
        policy(cluster, client, p, 16L << 20, false); // warm-up: JIT, codecs, connections
      }
      metrics.clear();
      times.clear();
      for (int round = 1; round <= rounds; round++) {
        for (Across p : policies) {
          policy(cluster, client, p, (long) fileMiB << 20, true);
        }
      }
      for (Map.Entry<String, double[]> t : times.entrySet()) {
        double[] v = t.getValue(); // bytes, seconds, cpu seconds
        metrics.put(t.getKey() + "_mbps", BenchReport.round(v[0] / v[1] / 1e6));
        metrics.put(t.getKey() + "_cpu_cores", BenchReport.round(v[2] / v[1]));
        // CPU of the whole process (client and every node) per byte: on one machine both the
        // rebuild and the degraded read are CPU-bound, so this is what a rate costs
        metrics.put(t.getKey() + "_cpu_ns_per_byte", BenchReport.round(v[2] * 1e9 / v[0]));
      }
    } finally {
      cluster.close();
      TestDirs.deleteTree(dir);
    }
    write(ec, loadBefore, BenchReport.loadAverage());
  }

  private static String name(Across p) {
    return p.isNone() ? "none" : p.isErasureCoded() ? "ec" : "mirror";
  }

  private void policy(MiniCluster cluster, ParityClient client, Across p, long fileBytes,
      boolean measured) throws Exception {
    String name = name(p);
    String d = "/" + name + (measured ? "" : "-warm-up");
    Layout layout = new Layout((long) chunkMiB << 20, Math.min(nodes, k + m), List.of(),
        "raid6:4+2").withAcross(p);
    client.namespace().mkdirs(d, CreateOptions.directory().withLayout(layout));
    long total = fileBytes * writers;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      Phase write = new Phase(name + " write");
      all(pool, w -> {
        try (PfsOutputStream o = client.create(d + "/part-" + w, CreateOptions.file())) {
          byte[] b = block(w, p);
          for (long done = 0; done < fileBytes; done += IO) {
            b[0] = (byte) (done / IO);
            o.write(b, 0, (int) Math.min(IO, fileBytes - done));
          }
        }
      });
      write.end(total);
      record(measured, name + "_write", write, total);
      java.util.Set<Long> ids = new java.util.HashSet<>();
      for (int w = 0; w < writers; w++) {
        ids.add(client.namespace().getStatus(d + "/part-" + w).id());
      }
      double media = mediaBytes(dir, ids) / (double) total;
      if (measured) {
        metrics.put(name + "_media_bytes_per_data_byte", BenchReport.round(media));
      }
      BenchReport.log("%s: %.3f media bytes per data byte", name, media);

      read(pool, client, d, p, fileBytes, measured, name + "_read", " read");
      if (!p.isNone()) {
        // degraded twice between two healthy reads: a second read of the same bytes may be
        // faster (the VM's host caches the virtual disk), so each kind gets a first and a
        // second place
        int down = this.down >= 0 ? this.down : nodeOfEveryFile(cluster, client, d);
        cluster.stopNode(down);
        try {
          for (int i = 0; i < 2; i++) {
            read(pool, client, d, p, fileBytes, measured, name + "_degraded_read",
                " degraded read (node " + down + " down)");
          }
          if (p.isErasureCoded()) {
            reprotect(cluster, client, pool, d, down, measured);
            all(pool, w -> verify(client, d, w, p, fileBytes)); // the node still down
          }
        } finally {
          cluster.restartNode(down);
          cluster.awaitTargets(nodes);
        }
        read(pool, client, d, p, fileBytes, measured, name + "_read", " read");
      }
      client.namespace().delete(d, true);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The first node that holds a member of every file of {@code d}: the node the degraded read
   * and re-protection lose. Placement picks each file's targets, and a node some file does not
   * use would leave that file healthy, so the work measured would vary from run to run.
   */
  private int nodeOfEveryFile(MiniCluster cluster, ParityClient client, String d)
      throws Exception {
    java.util.Map<String, String> nodeOf = new java.util.HashMap<>();
    client.registry().targets().forEach(t -> nodeOf.put(t.id(), t.nodeId()));
    for (int i = 0; i < cluster.nodes().size(); i++) {
      String node = cluster.nodes().get(i).nodeId();
      boolean everyFile = true;
      for (int w = 0; w < writers && everyFile; w++) {
        everyFile = client.namespace().getStatus(d + "/part-" + w).layout().targets().stream()
            .anyMatch(t -> node.equals(nodeOf.get(t)));
      }
      if (everyFile) {
        return i;
      }
    }
    throw new IllegalStateException("no node holds a member of every file of " + d);
  }

  /** Re-protects the files of {@code d} off node {@code down}'s targets, timed (class comment). */
  private void reprotect(MiniCluster cluster, ParityClient client, ExecutorService pool,
      String d, int down, boolean measured) throws Exception {
    String lostNode = cluster.nodes().get(down).nodeId();
    java.util.Set<String> lost = new java.util.HashSet<>();
    client.registry().targets().stream().filter(t -> t.nodeId().equals(lostNode))
        .forEach(t -> lost.add(t.id()));
    Reprotector r = new Reprotector(client, 0);
    java.util.concurrent.atomic.AtomicLong rebuilt = new java.util.concurrent.atomic.AtomicLong();
    Phase phase = new Phase("ec reprotect (node " + down + " lost)");
    all(pool, w -> {
      Reprotector.Outcome o = r.reprotect(d + "/part-" + w, lost);
      if (o.skipped() != null) {
        throw new IOException(o.path() + ": not re-protected: " + o.skipped());
      }
      rebuilt.addAndGet(o.bytes());
    });
    phase.end(rebuilt.get());
    record(measured, "ec_reprotect", phase, rebuilt.get());
  }

  private void read(ExecutorService pool, ParityClient client, String d, Across p,
      long fileBytes, boolean measured, String key, String label) throws Exception {
    dropCaches();
    Phase read = new Phase(name(p) + label);
    all(pool, w -> verify(client, d, w, p, fileBytes));
    long total = fileBytes * writers;
    read.end(total);
    record(measured, key, read, total);
  }

  /** The 4 MiB block writer {@code w} writes under policy {@code p}; byte 0 is the block's index. */
  private static byte[] block(int w, Across p) {
    byte[] b = new byte[IO];
    new java.util.Random(w * 31L + p.toString().hashCode()).nextBytes(b);
    return b;
  }

  private static void verify(ParityClient client, String d, int w, Across p, long fileBytes)
      throws IOException {
    byte[] b = new byte[IO];
    byte[] expect = block(w, p);
    try (PfsInputStream in = client.open(d + "/part-" + w)) {
      for (long done = 0; done < fileBytes; done += IO) {
        int n = (int) Math.min(IO, fileBytes - done);
        in.readFully(done, java.nio.ByteBuffer.wrap(b, 0, n));
        expect[0] = (byte) (done / IO);
        if (!Arrays.equals(b, 0, n, expect, 0, n)) {
          throw new IOException(d + "/part-" + w + " differs in the block at " + done);
        }
      }
      if (in.length() != fileBytes) {
        throw new IOException(d + "/part-" + w + " has " + in.length() + " bytes");
      }
    }
  }

  private void all(ExecutorService pool, Checkpoint.Task t) throws Exception {
    Checkpoint.all(pool, writers, t);
  }

  /** A timed phase: wall time and this process's CPU time. */
  private static final class Phase {
    final String name;
    final long t0 = System.nanoTime();
    final long cpu0 = cpuNanos();
    double seconds;
    double cpu;

    Phase(String name) {
      this.name = name;
    }

    void end(long bytes) {
      seconds = (System.nanoTime() - t0) / 1e9;
      cpu = (cpuNanos() - cpu0) / 1e9;
      BenchReport.log("%s: %.2f s (%.0f MB/s), %.2f cores", name, seconds,
          bytes / seconds / 1e6, cpu / seconds);
    }

    static long cpuNanos() {
      return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
          .getOperatingSystemMXBean()).getProcessCpuTime();
    }
  }

  private void record(boolean measured, String what, Phase p, long bytes) {
    if (measured) {
      double[] t = times.computeIfAbsent(what, x -> new double[3]);
      t[0] += bytes;
      t[1] += p.seconds;
      t[2] += p.cpu;
    }
  }

  /**
   * The bytes on the nodes' drives of the files {@code ids}: every shard and manifest file of
   * their chunks' objects (named by the object id, {@code fileId << 24 | chunkIndex}, in 16 hex
   * digits), the parity inside the nodes and the parity or copies across them included. Files
   * removed while it walks (temp files, collected garbage) count 0.
   */
  private static long mediaBytes(Path root, java.util.Set<Long> ids) throws IOException {
    long[] sum = new long[1];
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        String name = file.getFileName().toString();
        int dot = name.indexOf('.');
        if (attrs.isRegularFile() && dot == 16) {
          try {
            long object = Long.parseUnsignedLong(name.substring(0, 16), 16);
            if (ids.contains(object >>> 24)) {
              sum[0] += attrs.size();
            }
          } catch (NumberFormatException e) {
            // not an object's file
          }
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) {
        return FileVisitResult.CONTINUE;
      }
    });
    return sum[0];
  }

  private void dropCaches() {
    cachesDropped &= BenchReport.dropCaches();
  }

  private void write(Across ec, String loadBefore, String loadAfter) throws IOException {
    BenchReport r = new BenchReport("across", command);
    r.describe("load_average", loadBefore + " before, " + loadAfter + " after");
    r.describe("cluster", String.format(Locale.ROOT, "%d storage nodes in this JVM, each one "
        + "RAID-6 4+2 target over 6 folders of the same disk (64 KiB cells, CPU codec); "
        + "embedded ZooKeeper; files in %d MiB chunks over %d of the targets; the client's "
        + "group codec is the CPU one (no GPU here)", nodes, chunkMiB, Math.min(nodes, k + m)));
    r.describe("cold_reads", cachesDropped ? "page cache dropped before every read phase"
        : "could not drop the page cache: reads may be warm");
    r.describe("method", String.format(Locale.ROOT, "%d rounds, each policy (none, mirror:2, "
        + "%s) in turn in each, on the same cluster (after an untimed warm-up round of 16 MiB "
        + "files); rates = bytes / seconds summed over the rounds; %d threads each write one %d MiB file in 4 MiB writes "
        + "and close it (acknowledged only when every member is stored), timed to the last "
        + "close; media bytes = the bytes of the files' shard and manifest files on all drives over the data bytes; read = "
        + "the same threads read every byte back and compare; degraded read = the same with "
        + "one storage node stopped (the first that holds a member of every file: for ec, one "
        + "member of every group; its chunks read from the other copy or decoded), run twice "
        + "between the two healthy reads of each round, so that neither kind is always the "
        + "second read of the same bytes; re-protection = with that node still down and declared "
        + "lost, the same threads re-protect their files: the node of each member's new "
        + "target rebuilds it from K members it reads from the other nodes (REBUILD_MEMBER, "
        + "16 groups of a file in flight), then the layouts switch, rate = bytes rebuilt / "
        + "seconds; reprotect_vs_surviving_read = that rate over the degraded read's (what the "
        + "surviving targets deliver)", rounds, ec, writers, fileMiB));
    r.metrics.putAll(metrics);
    Object none = metrics.get("none_write_mbps");
    if (none instanceof Number n) {
      r.metrics.put("none_write_data_share_ec_mbps",
          BenchReport.round(n.doubleValue() * ec.data() / ec.width()));
      r.metrics.put("none_write_data_share_mirror_mbps", BenchReport.round(n.doubleValue() / 2));
    }
    r.ratio("ec_write_vs_none_data_share", "ec_write_mbps", "none_write_data_share_ec_mbps");
    r.ratio("mirror_write_vs_none_data_share", "mirror_write_mbps",
        "none_write_data_share_mirror_mbps");
    r.ratio("degraded_read_vs_healthy", "ec_degraded_read_mbps", "ec_read_mbps");
    r.ratio("mirror_degraded_read_vs_healthy", "mirror_degraded_read_mbps", "mirror_read_mbps");
    r.ratio("reprotect_vs_surviving_read", "ec_reprotect_mbps", "ec_degraded_read_mbps");
    if (metrics.get("ec_reprotect_cpu_ns_per_byte") instanceof Number ns) {
      // beside the ratio, as a metric: a cost, not a ratio to 1 (the charts draw the ratios)
      r.metrics.put("reprotect_cpu_ns_per_byte", ns.doubleValue());
    }
    if (metrics.get("ec_media_bytes_per_data_byte") instanceof Number e) {
      r.ratios.put("ec_media_bytes_per_data_byte", e.doubleValue());
    }
    r.write(out);
  }
}
