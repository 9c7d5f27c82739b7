package io.parityfs.node.bench;

import io.netty.handler.ssl.OpenSsl;
import io.parityfs.node.StorageNode;
import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.node.chunk.ChunkWriter;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.config.NodeConfigKeys;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.net.NettyNodeServer;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.testing.TestNodeConfig;
import io.parityfs.node.tls.CertificateAuthority;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.node.tls.TlsContext;
import io.parityfs.node.tls.TlsRole;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.report.BenchmarkJson;
import io.parityfs.raid.report.Machine;
import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.curator.test.TestingServer;

/**
 * The storage node through its wire protocol, next to the same work done on its chunk store in
 * the same JVM (no network): one node on loopback, RAID-6 4+2 over 6 drive directories on disk
 * (64 KiB cells, 64 MiB chunks, the codec the factory picks), served by {@link NettyNodeServer}
 * and driven by the real {@link NodeClient}.
 *
 * <ul>
 *   <li><b>sequential</b>: {@code --streams} threads write, then read, {@code --gib} GiB of 64
 *       MiB chunks: through the node (1 MiB DATA frames both ways) and directly on the {@link
 *       ChunkStore} (1 MiB write and read calls). Ratios: {@code write_vs_array}, {@code
 *       read_vs_array} (node MB/s over store MB/s).
 *   <li><b>TLS</b>: the same sequential writes and reads on a second node with mutual TLS 1.3
 *       through the JDK's engine and on a third through netty-tcnative's BoringSSL (skipped
 *       where it does not load), each with its own drives, in {@code --rounds} rounds with the
 *       plaintext node (3, after an uncounted warm-up pass; each round's order rotated, each
 *       round's data deleted at its end; the ratios are the medians of the rounds' ratios), and
 *       the engine alone in memory ({@link TlsEngineSpeed}). CPU nanoseconds per byte of the
 *       whole JVM for every phase.
 *       Ratios: {@code tls_write_vs_plain}, {@code tls_read_vs_plain} (the engine ParityFS
 *       picks, {@link TlsContext#provider}; goal 0.9, issue 18), the same for the JDK's
 *       ({@code jdk_tls_*}), and {@code boringssl_write_vs_jdk}, {@code boringssl_read_vs_jdk}.
 *   <li><b>random reads</b> of 4 KiB and 64 KiB at aligned random offsets, {@code --clients}
 *       threads each with one read in flight: IOPS, MB/s, p50, p99.
 *   <li><b>random writes</b> (issue 20): 4 KiB OVERWRITEs at random aligned offsets, at most
 *       one writer per chunk, every page's last write read back and compared.
 *   <li><b>the raw disk</b> (issue 20): a file as large as the data set on the same disk, the
 *       same random reads with O_DIRECT and the random writes with O_DIRECT and O_DSYNC.
 *       Ratios {@code rand4k_read_vs_raw}, {@code rand64k_read_vs_raw}, {@code
 *       rand4k_write_vs_raw}.
 * </ul>
 *
 * Every byte read back is checked against its generator; a wrong byte stops the run (exit 2).
 * Run from the repository root:
 *
 * <pre>
 *   mvn -q -pl storage-node/server -Pbench test-compile exec:exec [-Dbench.args=--quick]
 * </pre>
 *
 * Writes {@code docs/benchmarks/node.json} ({@code --quick}: small sizes, to {@code
 * storage-node/server/target/node-quick.json}). The drive directories (under {@code
 * storage-node/server/target/node-bench}) are deleted at the end.
 */
public final class NodeBenchmark {
  private static final long CHUNK = 64L << 20;
  private static final int REQUEST = 1 << 20;

  private final boolean quick;
  /** Chunks per phase: {@code --gib}'s, or fewer during the warm-up pass. */
  private long chunks;
  private final int streams;
  private final int clients;
  private final int randSeconds;
  private final Path dir;
  private final int rounds;
  private final Map<String, Object> metrics = new LinkedHashMap<>();
  private String tlsRounds = "";
  /** The CPU nanoseconds per byte moved of the last {@link #timed} phase. */
  private double lastCpuNsPerByte;

  private NodeBenchmark(String[] args) {
    List<String> a = Arrays.asList(args);
    quick = a.contains("--quick");
    double gib = Double.parseDouble(option(a, "--gib", quick ? "0.25" : "4"));
    chunks = Math.max(1, (long) (gib * 1024 / 64));
    streams = Integer.parseInt(option(a, "--streams", "8"));
    clients = Integer.parseInt(option(a, "--clients", "32"));
    randSeconds = Integer.parseInt(option(a, "--rand-seconds", quick ? "2" : "10"));
    rounds = Integer.parseInt(option(a, "--rounds", quick ? "1" : "3"));
    dir = Path.of(option(a, "--dir", "storage-node/server/target/node-bench"));
  }

  private static String option(List<String> args, String name, String dflt) {
    int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : dflt;
  }

  public static void main(String[] args) throws Exception {
    try {
      new NodeBenchmark(args).run();
      System.exit(0);
    } catch (WrongByte e) {
      System.err.println("WRONG BYTE: " + e.getMessage());
      System.exit(2);
    }
  }

  private void run() throws Exception {
    TestDirs.deleteTree(dir);
    Files.createDirectories(dir);
    String loadBefore = Machine.loadAverage();
    try (TestingServer zk = new TestingServer(true)) {
      NettyNodeServer server = new NettyNodeServer(NodeServerConfig.DEFAULT);
      StorageNode node = new StorageNode(NodeConfigParser.parse(props(zk, dir.resolve("plain")),
          "bench", dir), server);
      node.start();
      // the same node twice more, with mutual TLS: the JDK's engine, and BoringSSL
      Path pki = dir.resolve("pki");
      CertificateAuthority ca = CertificateAuthority.init(pki, "bench");
      ca.issue(TlsRole.NODE, "node", Duration.ofDays(1), List.of("127.0.0.1"), pki);
      ca.issue(TlsRole.CLIENT, "client", Duration.ofDays(1), List.of(), pki);
      BenchNode jdk = BenchNode.start(this, zk, "jdk", pki);
      BenchNode openssl = OpenSsl.isAvailable() ? BenchNode.start(this, zk, "openssl", pki)
          : null;
      if (openssl == null) {
        System.out.println("  BoringSSL (netty-tcnative) does not load here: "
            + OpenSsl.unavailabilityCause());
      }
      // what ParityFS uses by default (TlsContext.provider: BoringSSL where it loads)
      BenchNode used = openssl != null ? openssl : jdk;
      try (NodeClient client = NodeClient.create(clientConfig(TlsConfig.OFF))) {
        BenchNode plain = new BenchNode(this, "plain", node, client);
        ChunkStore store = plain.store;
        System.out.printf("node benchmark: %d chunks of 64 MiB (%.2f GiB), %d streams, %s,"
            + " %s; %d rounds of the node phases%n", chunks, chunks / 16.0, streams,
            server.transport(), node.targets().get(0).codec().map(Object::toString)
                .orElse("none"), rounds);
        // baseline first, then the node; each side's data is deleted before the other writes
        double arrayWrite = timed("array write", () -> parallel(c -> storeWrite(store, c, 1)));
        double arrayRead = timed("array read", () -> parallel(c -> storeRead(store, c, 1)));
        parallel(c -> store.delete(new ChunkId(1, (int) c)));
        // the plaintext node and the TLS nodes in rounds, each round in another order (the
        // disk's state after a side's writes must not favour the next side), every side's
        // data deleted at the round's end; the medians of the rounds count
        List<BenchNode> sides = new ArrayList<>(List.of(plain, jdk));
        if (openssl != null) {
          sides.add(openssl);
        }
        Map<BenchNode, List<Double>> writes = new LinkedHashMap<>();
        Map<BenchNode, List<Double>> reads = new LinkedHashMap<>();
        Map<BenchNode, List<Double>> writeCpu = new LinkedHashMap<>();
        Map<BenchNode, List<Double>> readCpu = new LinkedHashMap<>();
        sides.forEach(b -> {
          writes.put(b, new ArrayList<>());
          reads.put(b, new ArrayList<>());
          writeCpu.put(b, new ArrayList<>());
          readCpu.put(b, new ArrayList<>());
        });
        // a warm-up pass first (a quarter of the volume on every side, not counted): the JIT has
        // compiled each side's path before the first counted round
        long volume = chunks;
        chunks = Math.max(streams, chunks / 4);
        for (BenchNode b : sides) {
          b.write(5);
          b.read(5);
          b.delete(5);
        }
        chunks = volume;
        long lastPlainFile = 0;
        for (int r = 0; r < rounds; r++) {
          List<BenchNode> order = new ArrayList<>(sides);
          java.util.Collections.rotate(order, -r);
          System.out.println("  round " + (r + 1) + ": " + order.stream().map(b -> b.name)
              .toList());
          for (BenchNode b : order) {
            writes.get(b).add(b.write(file(r, sides.indexOf(b))));
            writeCpu.get(b).add(lastCpuNsPerByte);
          }
          for (BenchNode b : order) {
            reads.get(b).add(b.read(file(r, sides.indexOf(b))));
            readCpu.get(b).add(lastCpuNsPerByte);
          }
          for (BenchNode b : sides) {
            if (b != plain || r < rounds - 1) {
              b.delete(file(r, sides.indexOf(b)));
            }
          }
          lastPlainFile = file(r, 0);
        }
        double nodeWrite = median(writes.get(plain));
        double nodeRead = median(reads.get(plain));
        metrics.put("array_write_mbps", arrayWrite);
        metrics.put("array_read_mbps", arrayRead);
        metrics.put("node_write_mbps", nodeWrite);
        metrics.put("node_read_mbps", nodeRead);
        metrics.put("tls_write_mbps", median(writes.get(used)));
        metrics.put("tls_read_mbps", median(reads.get(used)));
        metrics.put("jdk_tls_write_mbps", median(writes.get(jdk)));
        metrics.put("jdk_tls_read_mbps", median(reads.get(jdk)));
        // where TLS's cost goes: CPU per byte of the whole JVM (both ends share its cores), and
        // the engine's own AES-GCM speed on one core, in memory
        metrics.put("node_write_cpu_ns_per_byte", median(writeCpu.get(plain)));
        metrics.put("tls_write_cpu_ns_per_byte", median(writeCpu.get(used)));
        metrics.put("node_read_cpu_ns_per_byte", median(readCpu.get(plain)));
        metrics.put("tls_read_cpu_ns_per_byte", median(readCpu.get(used)));
        double[] engine = TlsEngineSpeed.measure(pki);
        metrics.put("tls_engine_encrypt_gbps", engine[0]);
        metrics.put("tls_engine_decrypt_gbps", engine[1]);
        random(client, plain.addr, plain.target, lastPlainFile, 4096, "read4k");
        random(client, plain.addr, plain.target, lastPlainFile, 65536, "read64k");
        // issue 20: 4 KiB random writes (OVERWRITE of 4 KiB in a chunk, durable when answered),
        // verified; then the raw disk's O_DIRECT random reads and writes, same clients
        randomWrites(client, plain, lastPlainFile);
        plain.delete(lastPlainFile);
        rawRandom();
        Map<String, Object> ratios = new LinkedHashMap<>();
        ratios.put("write_vs_array", nodeWrite / arrayWrite);
        ratios.put("read_vs_array", nodeRead / arrayRead);
        ratios.put("rand4k_read_vs_raw", (double) metrics.get("read4k_iops")
            / (double) metrics.get("raw_read4k_iops"));
        ratios.put("rand64k_read_vs_raw", (double) metrics.get("read64k_iops")
            / (double) metrics.get("raw_read64k_iops"));
        ratios.put("rand4k_write_vs_raw", (double) metrics.get("write4k_iops")
            / (double) metrics.get("raw_write4k_iops"));
        ratios.put("tls_write_vs_plain", medianRatio(writes.get(used), writes.get(plain)));
        ratios.put("tls_read_vs_plain", medianRatio(reads.get(used), reads.get(plain)));
        ratios.put("jdk_tls_write_vs_plain", medianRatio(writes.get(jdk), writes.get(plain)));
        ratios.put("jdk_tls_read_vs_plain", medianRatio(reads.get(jdk), reads.get(plain)));
        if (openssl != null) {
          ratios.put("boringssl_write_vs_jdk", medianRatio(writes.get(openssl),
              writes.get(jdk)));
          ratios.put("boringssl_read_vs_jdk", medianRatio(reads.get(openssl), reads.get(jdk)));
        }
        tlsRounds = String.format(Locale.ROOT, "per round (%s first, then rotated), %s over"
            + " plain: write %s, read %s", sides.stream().map(b -> b.name).toList(), used.name,
            perRound(writes.get(used), writes.get(plain)),
            perRound(reads.get(used), reads.get(plain)));
        report(node, server, ratios, loadBefore);
      } finally {
        node.close();
        jdk.close();
        if (openssl != null) {
          openssl.close();
        }
      }
    } finally {
      TestDirs.deleteTree(dir);
    }
  }

  private NodeClientConfig clientConfig(TlsConfig tls) {
    return NodeClientConfig.builder().writeFrameSize(REQUEST).maxConnectionsPerNode(streams)
        .maxInFlightPerConnection(2).tls(tls).build();
  }

  /** The file id of side {@code side}'s chunks in round {@code round} (their content's key). */
  private static long file(int round, int side) {
    return 10 + 4L * round + side;
  }

  private static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    s.sort(Comparator.naturalOrder());
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  /** The median over rounds of {@code a[r] / b[r]} (both measured in round r). */
  private static double medianRatio(List<Double> a, List<Double> b) {
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      r.add(a.get(i) / b.get(i));
    }
    return median(r);
  }

  private static String perRound(List<Double> a, List<Double> b) {
    List<String> r = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      r.add(String.format(Locale.ROOT, "%.3f", a.get(i) / b.get(i)));
    }
    return String.join(" ", r);
  }

  /**
   * One node of the sequential phases with its client: the plaintext node, or a node with
   * mutual TLS through the engine {@code provider} ({@link TlsContext#provider}) and its own
   * drive directories.
   */
  private static final class BenchNode implements AutoCloseable {
    final NodeBenchmark bench;
    final String name;
    final StorageNode node;
    final NodeClient client;
    final InetSocketAddress addr;
    final TargetId target;
    final ChunkStore store;

    private BenchNode(NodeBenchmark bench, String name, StorageNode node, NodeClient client) {
      this.bench = bench;
      this.name = name;
      this.node = node;
      this.client = client;
      this.addr = new InetSocketAddress("127.0.0.1", node.address().getPort());
      this.target = TargetId.of(node.targets().get(0).id());
      this.store = node.targets().get(0).chunks();
    }

    static BenchNode start(NodeBenchmark bench, TestingServer zk, String provider, Path pki)
        throws Exception {
      String before = System.getProperty(TlsContext.PROVIDER_PROPERTY);
      System.setProperty(TlsContext.PROVIDER_PROPERTY, provider);
      try {
        StorageNode n = new StorageNode(NodeConfigParser.parse(bench.props(zk,
            bench.dir.resolve(provider)), "bench-" + provider, bench.dir), new NettyNodeServer(
            NodeServerConfig.builder().tls(TlsConfig.inDirectory(pki, "node")).build()));
        n.start();
        NodeClient c = NodeClient.create(bench.clientConfig(TlsConfig.inDirectory(pki,
            "client")));
        return new BenchNode(bench, "tls " + provider, n, c);
      } finally {
        if (before == null) {
          System.clearProperty(TlsContext.PROVIDER_PROPERTY);
        } else {
          System.setProperty(TlsContext.PROVIDER_PROPERTY, before);
        }
      }
    }

    double write(long file) throws Exception {
      return bench.timed(name + " write", () -> bench.parallel(c ->
          client.writeChunk(addr, target, new ChunkId(file, (int) c), 0, WriteMode.REPLACE, 0,
              new Gen(file, c), CHUNK)));
    }

    double read(long file) throws Exception {
      return bench.timed(name + " read", () -> bench.parallel(c -> {
        Check check = new Check(file, c);
        client.readChunk(addr, target, new ChunkId(file, (int) c), 0, -1, check);
        check.done(CHUNK);
      }));
    }

    void delete(long file) throws Exception {
      bench.parallel(c -> store.delete(new ChunkId(file, (int) c)));
    }

    @Override
    public void close() throws Exception {
      try {
        client.close();
      } finally {
        node.close();
      }
    }
  }

  private Properties props(TestingServer zk, Path home) throws IOException {
    return TestNodeConfig.target(TestNodeConfig.node(home, "bench", zk.getConnectString())
            // the node's own codec choice (auto: the GPU where there is one), as in production
            .set(NodeConfigKeys.CODEC, CodecBackend.AUTO),
            "t0", "raid6:4+2", TestNodeConfig.driveFolders(home, 6))
        .setText("t0", NodeConfigKeys.CELL_SIZE, "64K")
        .setText("t0", NodeConfigKeys.MAX_CHUNK_SIZE, "64M")
        .toProperties();
  }

  // ---- phases ----

  private interface PerChunk {
    void run(long chunk) throws Exception;
  }

  /** Runs {@code body} for every chunk on {@code streams} threads. */
  private void parallel(PerChunk body) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(streams);
    try {
      List<Future<?>> all = new ArrayList<>();
      for (int s = 0; s < streams; s++) {
        int first = s;
        all.add(pool.submit(() -> {
          for (long c = first; c < chunks; c += streams) {
            body.run(c);
          }
          return null;
        }));
      }
      for (Future<?> f : all) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof WrongByte w) {
            throw w;
          }
          throw e;
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private interface Phase {
    void run() throws Exception;
  }

  /** MB/s (10^6 bytes) of all chunks moved by {@code phase}. */
  private double timed(String name, Phase phase) throws Exception {
    long cpu0 = processCpuNanos();
    long t0 = System.nanoTime();
    phase.run();
    double secs = (System.nanoTime() - t0) / 1e9;
    double mbps = chunks * CHUNK / 1e6 / secs;
    lastCpuNsPerByte = (processCpuNanos() - cpu0) / (double) (chunks * CHUNK);
    System.out.printf(Locale.ROOT, "  %-17s %6.0f MB/s (%.1f s), %.2f CPU ns/byte%n", name, mbps,
        secs, lastCpuNsPerByte);
    return mbps;
  }

  /** CPU time of this whole JVM (client, node, ZooKeeper and the checks alike). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static void storeWrite(ChunkStore store, long c, long file) throws Exception {
    Gen gen = new Gen(file, c);
    ByteBuffer buf = ByteBuffer.allocateDirect(REQUEST);
    try (ChunkWriter w = store.openWrite(new ChunkId(file, (int) c), 0, WriteMode.REPLACE)) {
      for (long done = 0; done < CHUNK; done += REQUEST) {
        buf.clear();
        gen.read(buf);
        buf.flip();
        w.write(buf);
      }
      w.commit();
    }
  }

  private static void storeRead(ChunkStore store, long c, long file) throws Exception {
    Check check = new Check(file, c);
    ByteBuffer buf = ByteBuffer.allocateDirect(REQUEST);
    ChunkId id = new ChunkId(file, (int) c);
    for (long at = 0; at < CHUNK; ) {
      buf.clear();
      while (buf.hasRemaining()) {
        store.read(id, at + buf.position(), buf);
      }
      buf.flip();
      at += buf.remaining();
      check.write(buf);
    }
    check.done(CHUNK);
  }

  private void random(NodeClient client, InetSocketAddress addr, TargetId target, long file,
      int size, String name) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    long end = start + randSeconds * 1_000_000_000L;
    List<Future<long[]>> all = new ArrayList<>();
    for (int t = 0; t < clients; t++) {
      all.add(pool.submit(() -> {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        ByteBuffer buf = ByteBuffer.allocate(size);
        long[] lat = new long[1 << 16];
        int n = 0;
        while (System.nanoTime() < end && n < lat.length) {
          long c = r.nextLong(chunks);
          long off = r.nextLong(CHUNK / size) * size;
          buf.clear();
          long t0 = System.nanoTime();
          client.readChunk(addr, target, new ChunkId(file, (int) c), off, buf);
          lat[n++] = System.nanoTime() - t0;
          buf.flip();
          Check check = new Check(file, c);
          check.skip(off);
          check.write(buf);
        }
        return Arrays.copyOf(lat, n);
      }));
    }
    List<Long> lats = joined(all);
    pool.shutdownNow();
    latencies(name, lats, size, clients, (System.nanoTime() - start) / 1e9);
  }

  /**
   * Issue 20's node side: {@code clients} threads (at most one per chunk, each its own chunks)
   * OVERWRITE 4 KiB pages at random aligned offsets of {@code file}'s chunks for {@code
   * randSeconds}, each answered once durable; then every page's last write is read back and
   * compared (pages stamped with writer, write and place).
   */
  private void randomWrites(NodeClient client, BenchNode node, long file) throws Exception {
    int writers = (int) Math.min(clients, chunks);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    long start = System.nanoTime();
    long end = start + randSeconds * 1_000_000_000L;
    List<Future<long[]>> all = new ArrayList<>();
    List<Map<Long, Long>> last = new ArrayList<>();
    for (int t = 0; t < writers; t++) {
      int me = t;
      Map<Long, Long> mine = new java.util.HashMap<>();
      last.add(mine);
      all.add(pool.submit(() -> {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        ByteBuffer page = ByteBuffer.allocate(PAGE);
        long[] lat = new long[1 << 16];
        int n = 0;
        long mineChunks = (chunks - me + writers - 1) / writers;
        while (System.nanoTime() < end && n < lat.length) {
          long c = me + r.nextLong(mineChunks) * writers;
          long off = r.nextLong(CHUNK / PAGE) * PAGE;
          stamp(page, me, n, c, off);
          long t0 = System.nanoTime();
          client.writeChunk(node.addr, node.target, new ChunkId(file, (int) c), off,
              WriteMode.OVERWRITE, 0, page);
          lat[n] = System.nanoTime() - t0;
          mine.put(c * CHUNK + off, (long) n);
          n++;
        }
        return Arrays.copyOf(lat, n);
      }));
    }
    List<Long> lats = joined(all);
    pool.shutdownNow();
    latencies("write4k", lats, PAGE, writers, (System.nanoTime() - start) / 1e9);
    ByteBuffer got = ByteBuffer.allocate(PAGE);
    ByteBuffer want = ByteBuffer.allocate(PAGE);
    long checked = 0;
    for (int t = 0; t < writers; t++) {
      for (Map.Entry<Long, Long> e : last.get(t).entrySet()) {
        long c = e.getKey() / CHUNK;
        long off = e.getKey() % CHUNK;
        got.clear();
        client.readChunk(node.addr, node.target, new ChunkId(file, (int) c), off, got);
        got.flip();
        stamp(want, t, e.getValue(), c, off);
        if (!got.equals(want)) {
          throw new WrongByte("chunk " + c + " at " + off + " does not hold its last 4 KiB write"
              + " (writer " + t + ", write " + e.getValue() + ")");
        }
        checked++;
      }
    }
    System.out.printf(Locale.ROOT, "  write4k: %d pages read back, each its last write%n",
        checked);
  }

  private static final int PAGE = 4096;

  /** Every latency the threads of a random phase measured (waiting for each). */
  private static List<Long> joined(List<Future<long[]>> all) throws Exception {
    List<Long> lats = new ArrayList<>();
    for (Future<long[]> f : all) {
      for (long l : f.get()) {
        lats.add(l);
      }
    }
    return lats;
  }

  /** Fills {@code page} (position 0, full) with longs naming its writer, write and place. */
  private static void stamp(ByteBuffer page, int writer, long op, long chunk, long off) {
    page.clear();
    long seed = ((long) writer << 56) ^ (op << 32) ^ (chunk << 20) ^ off;
    for (int i = 0; i < PAGE / 8; i++) {
      page.putLong(seed + i);
    }
    page.flip();
  }

  /**
   * IOPS (operations over {@code secs}: from the start until the last one ended, so a slow
   * operation started just before the deadline counts its whole time), MB/s, p50 and p99 of
   * one random phase into the metrics, and a line.
   */
  private void latencies(String name, List<Long> lats, int size, int threads, double secs) {
    lats.sort(Comparator.naturalOrder());
    double iops = lats.size() / secs;
    double p50 = lats.get(lats.size() / 2) / 1e6;
    double p99 = lats.get((int) (lats.size() * 0.99)) / 1e6;
    metrics.put(name + "_iops", iops);
    metrics.put(name + "_mbps", iops * size / 1e6);
    metrics.put(name + "_p50_ms", p50);
    metrics.put(name + "_p99_ms", p99);
    System.out.printf(Locale.ROOT, "  %-12s %8.0f IOPS, p50 %.2f ms, p99 %.2f ms (%d threads,"
        + " %d operations in %.1f s)%n", name, iops, p50, p99, threads, lats.size(), secs);
  }

  /**
   * The raw disk under the same random load: a file as large as the node's data set, on the
   * same disk, read with O_DIRECT in 4 KiB and 64 KiB at random aligned offsets, then written
   * in 4 KiB with O_DIRECT and O_DSYNC (each write durable when it returns, as the node's), by
   * {@code clients} threads for {@code randSeconds} each; the writes read back and compared.
   */
  private void rawRandom() throws Exception {
    Path raw = dir.resolve("raw.bin");
    long size = chunks * CHUNK;
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(raw,
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE)) {
      ByteBuffer block = ByteBuffer.allocateDirect(REQUEST);
      for (long at = 0; at < size; at += REQUEST) {
        block.clear();
        while (block.hasRemaining()) {
          block.putLong(at + block.position());
        }
        block.flip();
        while (block.hasRemaining()) {
          ch.write(block, at + block.position());
        }
      }
      ch.force(true);
    }
    rawPhase(raw, size, PAGE, false, "raw_read4k");
    rawPhase(raw, size, 65536, false, "raw_read64k");
    rawPhase(raw, size, PAGE, true, "raw_write4k");
    Files.delete(raw);
  }

  private void rawPhase(Path raw, long size, int io, boolean write, String name)
      throws Exception {
    java.util.Set<java.nio.file.OpenOption> opts = new java.util.HashSet<>(List.of(
        java.nio.file.StandardOpenOption.READ, com.sun.nio.file.ExtendedOpenOption.DIRECT));
    if (write) {
      opts.add(java.nio.file.StandardOpenOption.WRITE);
      opts.add(java.nio.file.StandardOpenOption.DSYNC);
    }
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    long end = start + randSeconds * 1_000_000_000L;
    List<Future<long[]>> all = new ArrayList<>();
    List<Map<Long, Long>> last = new ArrayList<>();
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(raw, opts)) {
      for (int t = 0; t < clients; t++) {
        int me = t;
        Map<Long, Long> mine = new java.util.HashMap<>();
        last.add(mine);
        all.add(pool.submit(() -> {
          ThreadLocalRandom r = ThreadLocalRandom.current();
          ByteBuffer buf = ByteBuffer.allocateDirect(io + PAGE).alignedSlice(PAGE);
          buf.limit(io);
          long[] lat = new long[1 << 16];
          int n = 0;
          long slots = size / io / clients;
          while (System.nanoTime() < end && n < lat.length) {
            long at = (r.nextLong(slots) * clients + me) * io;
            if (write) {
              stamp(buf, me, n, -1, at);
            } else {
              buf.clear();
              buf.limit(io);
            }
            long t0 = System.nanoTime();
            while (buf.hasRemaining()) {
              int k = write ? ch.write(buf, at + buf.position())
                  : ch.read(buf, at + buf.position());
              if (k < 0) {
                throw new IOException("end of " + raw + " at " + at);
              }
            }
            lat[n] = System.nanoTime() - t0;
            if (write) {
              mine.put(at, (long) n);
            } else if (buf.getLong(0) != at) {
              throw new WrongByte(raw + " at " + at + " holds " + buf.getLong(0));
            }
            n++;
          }
          return Arrays.copyOf(lat, n);
        }));
      }
      List<Long> lats = joined(all);
      pool.shutdownNow();
      latencies(name, lats, io, clients, (System.nanoTime() - start) / 1e9);
      if (write) {
        ByteBuffer got = ByteBuffer.allocateDirect(2 * PAGE).alignedSlice(PAGE);
        ByteBuffer want = ByteBuffer.allocate(PAGE);
        for (int t = 0; t < clients; t++) {
          for (Map.Entry<Long, Long> e : last.get(t).entrySet()) {
            got.clear();
            got.limit(PAGE);
            while (got.hasRemaining()) {
              ch.read(got, e.getKey() + got.position());
            }
            got.flip();
            stamp(want, t, e.getValue(), -1, e.getKey());
            if (!got.equals(want)) {
              throw new WrongByte(raw + " at " + e.getKey() + " does not hold its last write");
            }
          }
        }
      }
    }
  }

  private void report(StorageNode node, NettyNodeServer server, Map<String, Object> ratios,
      String loadBefore) throws IOException {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("benchmark", "node");
    json.put("command", "mvn -q -pl storage-node/server -Pbench test-compile exec:exec"
        + (quick ? " -Dbench.args=--quick" : ""));
    json.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    json.put("jdk", Machine.jdk());
    json.put("machine", Machine.describe());
    json.put("load_average", loadBefore + " before, " + Machine.loadAverage() + " after");
    json.put("node", String.format(Locale.ROOT, "one node on loopback (%s), raid6:4+2 over 6"
        + " drive directories on one disk, 64 KiB cells, %s; %d chunks of 64 MiB; %d"
        + " streams of 1 MiB DATA frames; random reads: %d clients, %d s each; random writes"
        + " (issue 20): up to %d clients, one per chunk at most, each OVERWRITE of 4 KiB at a"
        + " random aligned offset answered once durable, %d s, every page's last write read"
        + " back and compared; raw: a file of the same size on the same disk, O_DIRECT reads"
        + " of 4 and 64 KiB, O_DIRECT+O_DSYNC writes of 4 KiB (durable per write, as the"
        + " node's), %d threads, %d s each, the writes read back and compared; IOPS = operations"
        + " / the time until the last one ended", server.transport(),
        node.targets().get(0).codec().map(Object::toString).orElse("none"), chunks, streams,
        clients, randSeconds, clients, randSeconds, clients, randSeconds));
    json.put("baseline", "the same chunks written and read with 1 MiB calls on the node's"
        + " ChunkStore in the same JVM, no network; for the tls ratios, the plaintext node");
    json.put("tls", "mutual TLS 1.3 (EC P-256 certificates of a bench CA) on two more nodes of"
        + " the same shape on the same disk, sequential phases only: the JDK's engine (jdk_tls_*)"
        + " and " + (OpenSsl.isAvailable() ? OpenSsl.versionString()
        + " (netty-tcnative)" : "no BoringSSL (netty-tcnative does not load)") + "; tls_* is"
        + " what ParityFS uses: " + TlsContext.providerName()
        + "; the CPU's AES and carry-less multiply instructions (AES-GCM): "
        + (cpuFlag("aes") && cpuFlag("pclmulqdq") ? "yes" : "no") + "; " + rounds
        + " rounds of the plaintext and TLS writes and reads after a warm-up pass, each round in"
        + " another order, the ratios the medians of the rounds' ratios; " + tlsRounds);
    Map<String, Object> m = new LinkedHashMap<>();
    metrics.forEach((k, v) -> m.put(k, v));
    json.put("metrics", m);
    json.put("ratios", ratios);
    Path out = quick ? Path.of("storage-node/server/target/node-quick.json")
        : Path.of("docs/benchmarks/node.json");
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, BenchmarkJson.write(json));
    System.out.printf(Locale.ROOT, "write_vs_array %.3f, read_vs_array %.3f, tls_write_vs_plain"
        + " %.3f, tls_read_vs_plain %.3f; wrote %s%n", ratios.get("write_vs_array"),
        ratios.get("read_vs_array"), ratios.get("tls_write_vs_plain"),
        ratios.get("tls_read_vs_plain"), out);
  }

  /** Whether /proc/cpuinfo lists {@code flag} (false where it cannot be read). */
  private static boolean cpuFlag(String flag) {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .anyMatch(l -> l.startsWith("flags") && Arrays.asList(l.split("\\s+")).contains(flag));
    } catch (IOException e) {
      return false;
    }
  }

  // ---- content: chunk c of file f is a deterministic stream of longs ----

  static long word(long file, long chunk, long index) {
    long x = index * 0x9E3779B97F4A7C15L ^ (file << 48 | chunk) * 0xBF58476D1CE4E5B9L;
    x ^= x >>> 29;
    x *= 0x94D049BB133111EBL;
    return x ^ (x >>> 32);
  }

  /** The content of a chunk as a channel (CHUNK bytes). */
  static final class Gen implements ReadableByteChannel {
    private final long file;
    private final long chunk;
    private long pos;

    Gen(long file, long chunk) {
      this.file = file;
      this.chunk = chunk;
    }

    @Override
    public int read(ByteBuffer dst) {
      if (pos >= CHUNK) {
        return -1;
      }
      int n = (int) Math.min(dst.remaining(), CHUNK - pos) & ~7;
      ByteBuffer b = dst.slice().order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i += 8) {
        b.putLong(i, word(file, chunk, (pos + i) >>> 3));
      }
      dst.position(dst.position() + n);
      pos += n;
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }

  /** Checks bytes against the content, in order, from where it was told to start. */
  static final class Check implements WritableByteChannel {
    private final long file;
    private final long chunk;
    private long pos;

    Check(long file, long chunk) {
      this.file = file;
      this.chunk = chunk;
    }

    void skip(long n) {
      pos += n;
    }

    @Override
    public int write(ByteBuffer src) throws WrongByte {
      int n = src.remaining();
      ByteBuffer b = src.slice().order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        long p = pos + i;
        if ((p & 7) == 0 && i + 8 <= n) {
          if (b.getLong(i) != word(file, chunk, p >>> 3)) {
            throw new WrongByte("chunk " + file + ":" + chunk + " near byte " + p);
          }
          i += 7;
        } else if (b.get(i) != (byte) (word(file, chunk, p >>> 3) >>> ((p & 7) * 8))) {
          throw new WrongByte("chunk " + file + ":" + chunk + " byte " + p);
        }
      }
      src.position(src.position() + n);
      pos += n;
      return n;
    }

    void done(long expected) throws WrongByte {
      if (pos != expected) {
        throw new WrongByte("chunk " + file + ":" + chunk + ": " + pos + " bytes, not "
            + expected);
      }
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }

  static final class WrongByte extends IOException {
    private static final long serialVersionUID = 1L;

    WrongByte(String message) {
      super(message);
    }
  }
}
