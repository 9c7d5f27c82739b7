package io.parityfs.raid.bench;

import io.parityfs.raid.array.assembly.ArrayLabels;
import io.parityfs.raid.array.assembly.AssembledArray;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import io.parityfs.testkit.TestDirs;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What the number of objects on the drives costs (issue 19, item 7): for each count N, a fresh
 * RAID-6 4+2 array of 4 KiB cells on the disk is filled with N small objects (uncounted), then
 * {@value #PROBE} more are written in {@value #SEGMENTS} timed segments (objects/s: the median
 * segment's, as fsync latency on a shared disk varies), and the array is closed and started
 * again the way a storage node starts it: assembled from its labels, the store opened, every
 * object listed and each one's manifest looked up (seconds). Before the first count, one
 * uncounted pass of the smallest count warms the JIT. A cost that grows with the data shows as
 * the write rate falling and the start time rising faster than N.
 */
final class ObjectCountScale {
  /** Objects written and timed on top of the N already there. */
  static final int PROBE = 2100;
  /** The probe's timed segments; the median one's rate counts. */
  static final int SEGMENTS = 3;
  private static final int OBJECT = 4096;
  private static final CodecGeometry GEOMETRY = CodecGeometry.parse("raid6:4+2");

  /** One count's results. */
  record Result(int objects, double writesPerSecond, double startSeconds, double fillSeconds) {}

  private final Path root;
  private final int threads;
  private final ParityCodecFactory codecs;
  private final PrintStream out;

  ObjectCountScale(Path root, int threads, ParityCodecFactory codecs, PrintStream out) {
    this.root = root;
    this.threads = threads;
    this.codecs = codecs;
    this.out = out;
  }

  /**
   * Alone, without the rest of {@link ArrayBenchmark} (prints, writes no JSON): {@code [dir]
   * [count,count,...]}, default {@code gpu-raid/array/target/scale-bench 10,1000}.
   */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "gpu-raid/array/target/scale-bench");
    int[] counts = Arrays.stream((args.length > 1 ? args[1] : "10,1000").split(","))
        .mapToInt(Integer::parseInt).toArray();
    try (ParityCodecFactory codecs = ParityCodecFactory.builder().build()) {
      new ObjectCountScale(dir, 8, codecs, System.out).run(counts);
    }
    System.exit(0);
  }

  /** Runs every count of {@code counts}, each on new drives deleted after it. */
  Map<Integer, Result> run(int[] counts) throws IOException {
    Map<Integer, Result> all = new LinkedHashMap<>();
    out.println("[scale] warm-up pass (not counted):");
    one(counts[0]);
    for (int n : counts) {
      all.put(n, one(n));
    }
    return all;
  }

  private Result one(int n) throws IOException {
    Path dir = root.resolve("scale-" + n);
    TestDirs.deleteTree(dir);
    List<Path> drives = new ArrayList<>();
    for (int i = 0; i < GEOMETRY.k() + GEOMETRY.m(); i++) {
      drives.add(Files.createDirectories(dir.resolve("drive" + i)));
    }
    try {
      ArrayConfig config = ArrayConfig.builder().geometry(GEOMETRY).cellSize(OBJECT)
          .maxObjectSize(1 << 20).build();
      AssembledArray array = ArrayLabels.create(config, drives);
      double fill;
      double rate;
      try (ObjectStore store = ObjectStore.open(array, codecs, StoreOptions.DEFAULTS)) {
        long t0 = System.nanoTime();
        writeAll(store, 0, n);
        fill = (System.nanoTime() - t0) / 1e9;
        double[] rates = new double[SEGMENTS];
        int per = PROBE / SEGMENTS;
        for (int seg = 0; seg < SEGMENTS; seg++) {
          long t1 = System.nanoTime();
          writeAll(store, n + seg * per, n + (seg + 1) * per);
          rates[seg] = per / ((System.nanoTime() - t1) / 1e9);
        }
        Arrays.sort(rates);
        rate = rates[SEGMENTS / 2];
      }
      long t2 = System.nanoTime();
      int found;
      AssembledArray again = ArrayLabels.assemble(drives);
      try (ObjectStore store = ObjectStore.open(again, codecs, StoreOptions.DEFAULTS)) {
        NavigableSet<Long> ids = store.listObjects(0, -1L);
        for (long id : ids) {
          if (store.stat(id).isEmpty()) {
            throw new IOException("object " + id + " listed but has no manifest");
          }
        }
        found = ids.size();
      }
      double start = (System.nanoTime() - t2) / 1e9;
      if (found != n + PROBE) {
        throw new IOException("the start found " + found + " objects, not " + (n + PROBE));
      }
      out.printf(Locale.ROOT, "[scale] %,d objects per drive: filled in %.1f s; %d more written"
          + " at %.0f objects/s (median of %d segments); start (assemble, open, list, look up each) %.2f s%n", n, fill,
          PROBE, rate, SEGMENTS, start);
      return new Result(n, rate, start, fill);
    } finally {
      TestDirs.deleteTree(dir);
    }
  }

  /** Writes objects [from, to) of 4 KiB each, their content keyed by id, on the threads. */
  private void writeAll(ObjectStore store, int from, int to) throws IOException {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> all = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = from + t;
        all.add(pool.submit(() -> {
          byte[] b = new byte[OBJECT];
          for (int id = first; id < to; id += threads) {
            Arrays.fill(b, (byte) id);
            ByteBuffer.wrap(b).putInt(0, id);
            store.write(id, new ByteArrayInputStream(b), OBJECT);
          }
          return null;
        }));
      }
      for (Future<?> f : all) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }
}
