package io.parityfs.meta.cluster;

import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.DeleteQueue;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetRegistry;
import io.parityfs.meta.targets.TargetRegistryConfig;
import io.parityfs.node.StorageNode;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.cluster.NodeChunkService;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.net.NettyNodeServer;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.testing.TestNodeConfig;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.report.BenchmarkJson;
import io.parityfs.raid.report.Machine;
import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;

/**
 * How fast the cluster manager gives back the space of deleted files (issue 15 item 7): one
 * storage node on loopback (RAID-6 4+2 over 6 drive directories on one disk), one embedded
 * ZooKeeper, the real {@link NodeChunkService} over the wire protocol. Files of one 256 KiB chunk
 * are written through the node and closed in the namespace; a directory of them is removed with
 * one recursive delete, which queues every file; then the deferred-delete task drains the queue,
 * rounds run as the {@link ClusterManager} runs them. Reclaimed: the files' recorded lengths
 * (on disk, 1.5 times that for RAID-6 4+2).
 *
 * <ul>
 *   <li><b>baseline</b>, the old batch settings: 100 records a round, one after the other, a
 *       10 s pause after every round (the old scheduling, which did not look at {@link
 *       ManagerTask#moreDue()}); {@code --old-rounds} rounds (default 3) timed pauses included.
 *   <li><b>now</b>: {@link ClusterManagerConfig#DEFAULT} (1,000 records a round, 32 at once,
 *       the next round at once while records are due), {@code --files} files (default 10,000),
 *       timed from the first round until the queue is empty.
 * </ul>
 *
 * After each side every chunk of its files must be gone from the target (a LIST), or the run
 * fails. This class sits in the cluster manager's package (in the node's bench source set, where
 * the node is) to run {@code DeferredDeleteTask} rounds itself. Run from the repository root:
 *
 * <pre>
 *   mvn -q -pl storage-node/server -Pbench test-compile exec:exec \
 *       -Dbench.main=io.parityfs.meta.cluster.ReclaimBenchmark [-Dbench.args=--quick]
 * </pre>
 *
 * Writes {@code docs/benchmarks/reclaim.json} ({@code --quick}: 1,000 files and one old round,
 * to {@code storage-node/server/target/reclaim-quick.json}).
 */
public final class ReclaimBenchmark {
  private static final int CHUNK = 256 << 10;
  private static final Duration OLD_INTERVAL = Duration.ofSeconds(10);
  private static final int OLD_BATCH = 100;

  private final boolean quick;
  private final int files;
  private final int oldRounds;
  private final int writers;
  private final Path dir;
  private final String args;

  private ReclaimBenchmark(String[] args) {
    List<String> a = Arrays.asList(args);
    this.args = String.join(" ", args);
    quick = a.contains("--quick");
    files = Integer.parseInt(option(a, "--files", quick ? "1000" : "10000"));
    oldRounds = Integer.parseInt(option(a, "--old-rounds", quick ? "1" : "3"));
    writers = Integer.parseInt(option(a, "--writers", "16"));
    dir = Path.of("storage-node/server/target/reclaim-bench").toAbsolutePath();
  }

  private static String option(List<String> args, String name, String dflt) {
    int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : dflt;
  }

  public static void main(String[] args) throws Exception {
    new ReclaimBenchmark(args).run();
    System.exit(0);
  }

  /** Files drained and seconds taken by one side. */
  private record Side(long files, long bytes, double seconds) {
    double filesPerSecond() {
      return files / seconds;
    }

    double bytesPerSecond() {
      return bytes / seconds;
    }
  }

  private void run() throws Exception {
    TestDirs.deleteTree(dir);
    Files.createDirectories(dir);
    String loadBefore = Machine.loadAverage();
    try (TestingServer zk = new TestingServer(true)) {
      StorageNode node = new StorageNode(NodeConfigParser.parse(props(zk), "bench", dir),
          new NettyNodeServer(NodeServerConfig.DEFAULT));
      node.start();
      CuratorFramework curator = CuratorFrameworkFactory.builder()
          .connectString(zk.getConnectString()).sessionTimeoutMs(60_000)
          .retryPolicy(new ExponentialBackoffRetry(100, 10)).build();
      curator.start();
      try (NodeClient client = NodeClient.create(NodeClientConfig.DEFAULT);
          Namespace ns = Namespace.open(curator, NamespaceConfig.builder()
              .ifMissing(NamespaceConfig.IfMissing.FORMAT).build()); // a fresh ZooKeeper
          TargetRegistry registry = TargetRegistry.open(curator, TargetRegistryConfig.DEFAULT)) {
        String targetId = node.targets().get(0).id();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (registry.target(targetId).map(t -> t.reachability() != Reachability.ONLINE)
            .orElse(true)) {
          if (System.nanoTime() > end) {
            throw new IllegalStateException("target " + targetId + " not online");
          }
          Thread.sleep(50);
        }
        InetSocketAddress addr = new InetSocketAddress("127.0.0.1", node.address().getPort());
        Layout layout = new Layout(CHUNK, 1, List.of(targetId), "raid6:4+2");
        int oldFiles = oldRounds * OLD_BATCH;
        System.out.printf("reclaim benchmark: writing %d + %d files of one 256 KiB chunk%n",
            oldFiles, files);
        long t0 = System.nanoTime();
        write(ns, client, addr, TargetId.of(targetId), layout, "/old", oldFiles);
        write(ns, client, addr, TargetId.of(targetId), layout, "/now", files);
        System.out.printf(Locale.ROOT, "  written in %.1f s%n", (System.nanoTime() - t0) / 1e9);

        DeleteQueue queue = DeleteQueue.open(curator, ns.config());
        ChunkService chunks = new NodeChunkService(client, registry);
        ClusterManagerConfig oldConfig = ClusterManagerConfig.builder().deleteBatch(OLD_BATCH)
            .deleteParallelism(1).deleteInterval(OLD_INTERVAL).build();
        Side old = drain("old settings", ns, queue, chunks, oldConfig, "/old", true);
        Side now = drain("now", ns, queue, chunks, ClusterManagerConfig.DEFAULT, "/now", false);
        ChunkPage left = chunks.list(targetId, ChunkService.ALL_FILES, 0, 10);
        if (!left.chunks().isEmpty()) {
          throw new IllegalStateException("chunks left on the target: " + left.chunks());
        }
        report(old, now, oldFiles, loadBefore);
      } finally {
        node.close();
        curator.close();
      }
    } finally {
      TestDirs.deleteTree(dir);
    }
  }

  /** Files of one chunk each, written through the node and closed at their length. */
  private void write(Namespace ns, NodeClient client, InetSocketAddress addr, TargetId target,
      Layout layout, String parent, int count) throws Exception {
    ns.mkdirs(parent);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> all = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int first = w;
        all.add(pool.submit(() -> {
          ByteBuffer data = ByteBuffer.allocateDirect(CHUNK);
          for (int i = first; i < count; i += writers) {
            String path = parent + "/f" + i;
            FileStatus f = ns.create(path, CreateOptions.file().withLayout(layout));
            data.clear();
            while (data.hasRemaining()) {
              data.putLong(f.id() * 31 + data.position()); // keyed by file
            }
            data.flip();
            client.writeChunk(addr, target, new ChunkId(f.id(), 0), 0, WriteMode.REPLACE, 0,
                data);
            ns.complete(path, f.id(), -1, CHUNK);
          }
          return null;
        }));
      }
      for (Future<?> f : all) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Removes {@code parent} (one recursive delete queues its files) and drains the queue with
   * {@code config}: rounds back to back while {@code moreDue}, or, the old way, a pause of the
   * interval after every round.
   */
  private Side drain(String name, Namespace ns, DeleteQueue queue, ChunkService chunks,
      ClusterManagerConfig config, String parent, boolean oldScheduling) throws Exception {
    ns.delete(parent, true);
    long queued = queue.size();
    ManagerCounters counters = new ManagerCounters();
    DeferredDeleteTask task = new DeferredDeleteTask(queue, chunks, config, counters,
        System::currentTimeMillis);
    long t0 = System.nanoTime();
    int rounds = 0;
    while (counters.filesDrained.get() < queued) {
      task.runOnce(() -> true);
      rounds++;
      if (oldScheduling) {
        Thread.sleep(config.deleteInterval().toMillis());
      } else if (!task.moreDue() && counters.filesDrained.get() < queued) {
        throw new IllegalStateException(name + ": round " + rounds + " left records but asked"
            + " for no next round");
      }
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    Side side = new Side(counters.filesDrained.get(), counters.bytesDrained.get(), secs);
    System.out.printf(Locale.ROOT, "  %-13s %6d files, %5d MiB in %6.1f s (%d rounds):"
        + " %8.1f files/s, %7.1f MiB/s%n", name, side.files(), side.bytes() >> 20, secs, rounds,
        side.filesPerSecond(), side.bytesPerSecond() / (1 << 20));
    return side;
  }

  private Properties props(TestingServer zk) throws IOException {
    return TestNodeConfig.target(TestNodeConfig.node(dir, "bench", zk.getConnectString())
            .set(NodeConfigKeys.CODEC, CodecBackend.AUTO)
            // the benchmark runs the rounds itself
            .set(NodeConfigKeys.CLUSTER_MANAGER, false),
            "t0", "raid6:4+2", TestNodeConfig.driveFolders(dir, 6))
        .setText("t0", NodeConfigKeys.CELL_SIZE, "64K")
        .setText("t0", NodeConfigKeys.MAX_CHUNK_SIZE, "1M")
        .toProperties();
  }

  private void report(Side old, Side now, int oldFiles, String loadBefore) throws IOException {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("benchmark", "reclaim");
    json.put("command", "mvn -q -pl storage-node/server -Pbench test-compile exec:exec"
        + " -Dbench.main=io.parityfs.meta.cluster.ReclaimBenchmark"
        + (args.isEmpty() ? "" : " -Dbench.args='" + args + "'"));
    json.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    json.put("jdk", Machine.jdk());
    json.put("machine", Machine.describe());
    json.put("load_average", loadBefore + " before, " + Machine.loadAverage() + " after");
    json.put("setup", String.format(Locale.ROOT, "one storage node on loopback, raid6:4+2 over 6"
        + " drive directories on one disk, 64 KiB cells; one embedded ZooKeeper; files of one"
        + " 256 KiB chunk (stripe count 1), removed by one recursive delete of their directory;"
        + " the deferred-delete task over the real NodeChunkService (NodeClientConfig.DEFAULT):"
        + " one LIST and one DELETE per file, one queue read and one queue delete in ZooKeeper;"
        + " now: %d files with ClusterManagerConfig.DEFAULT (batch %d, %d records at once,"
        + " rounds back to back while records are due), timed from the first round to an empty"
        + " queue", now.files(), ClusterManagerConfig.DEFAULT.deleteBatch(),
        ClusterManagerConfig.DEFAULT.deleteParallelism()));
    json.put("baseline", String.format(Locale.ROOT, "the old batch settings on the same node in"
        + " the same run: batch %d, one record at a time, a 10 s pause after every round (the"
        + " old scheduling); %d files in %d rounds, pauses included", OLD_BATCH, oldFiles,
        oldFiles / OLD_BATCH));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("reclaim_files_per_s", now.filesPerSecond());
    m.put("reclaim_bytes_per_s", now.bytesPerSecond());
    m.put("old_reclaim_files_per_s", old.filesPerSecond());
    m.put("old_reclaim_bytes_per_s", old.bytesPerSecond());
    m.put("files", now.files());
    m.put("seconds", now.seconds());
    json.put("metrics", m);
    Map<String, Object> ratios = new LinkedHashMap<>();
    ratios.put("reclaim_vs_old", now.filesPerSecond() / old.filesPerSecond());
    json.put("ratios", ratios);
    Path out = quick ? Path.of("storage-node/server/target/reclaim-quick.json")
        : Path.of("docs/benchmarks/reclaim.json");
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, BenchmarkJson.write(json));
    System.out.printf(Locale.ROOT, "reclaim_vs_old %.1f; wrote %s%n",
        now.filesPerSecond() / old.filesPerSecond(), out);
  }

}
