package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The data path at scale on a live cluster of three RAID-6 4+2 nodes: many concurrent readers
 * and writers with every byte checked, a file larger than 2^31 bytes, thousands of small files.
 *
 * <p>Sizes (system properties), small by default so that the class runs in about a minute
 * on 2 cores: {@code parityfs.test.bigFileBytes} (default 256 MiB + 4321 bytes, 33 chunks of
 * 8 MiB; {@code 2150633697} = 2 GiB + 3 MiB + 4321 crosses 2^31 and also checks positional reads
 * and seeks across it: about 35 s and 3.2 GiB of disk for RAID-6 4+2; 0 skips the test) and
 * {@code parityfs.test.smallFiles} (default 1,000; the 5,000 took 2 min 15 s here, nearly
 * all of it creates: every small file is a chunk write that the node commits with an fsync per
 * drive).
 */
class ClientScaleTest extends StripedClusterTest {
  static final Layout BIG = new Layout(8 << 20, 3, List.of(), "raid6:4+2");
  static final long BIG_FILE = Long.getLong("parityfs.test.bigFileBytes",
      (256L << 20) + 4321);
  static final int SMALL_FILES = Integer.getInteger("parityfs.test.smallFiles", 1000);

  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/c", CreateOptions.directory().withLayout(STRIPED));
    client.namespace().mkdirs("/big", CreateOptions.directory().withLayout(BIG));
    client.namespace().mkdirs("/small", CreateOptions.directory().withLayout(STRIPED));
  }

  static byte[] content(int file) {
    Random r = new Random(file * 7919L);
    byte[] b = new byte[r.nextInt(2 * CHUNK + 1000)];
    r.nextBytes(b);
    return b;
  }

  /**
   * 6 writer threads write 24 files of 0-2 MiB in uneven pieces, each with an hflush midway;
   * 4 readers meanwhile read random finished files whole and by positional reads, and one
   * follows a file being written through its hflushes: every byte compared.
   */
  @Test
  void concurrentReadersAndWritersOnManyFiles() throws Exception {
    int files = 24;
    ExecutorService pool = Executors.newFixedThreadPool(11);
    ConcurrentLinkedQueue<Integer> todo = new ConcurrentLinkedQueue<>();
    for (int i = 0; i < files; i++) {
      todo.add(i);
    }
    List<Integer> done = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger reads = new AtomicInteger();
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 6; w++) {
        writers.add(pool.submit(() -> {
          Integer f;
          while ((f = todo.poll()) != null) {
            byte[] data = content(f);
            try (PfsOutputStream out = client.create("/c/f" + f, CreateOptions.file())) {
              int off = 0;
              while (off < data.length) {
                int n = Math.min(data.length - off,
                    1 + ThreadLocalRandom.current().nextInt(300_000));
                out.write(data, off, n);
                off += n;
                if (off >= data.length / 2 && off - n < data.length / 2) {
                  out.hflush();
                }
              }
            }
            done.add(f);
          }
          return null;
        }));
      }
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 4; r++) {
        readers.add(pool.submit(() -> {
          ThreadLocalRandom rnd = ThreadLocalRandom.current();
          while (writing.get() || reads.get() < files) {
            int f;
            synchronized (done) {
              if (done.isEmpty()) {
                Thread.yield();
                continue;
              }
              f = done.get(rnd.nextInt(done.size()));
            }
            byte[] data = content(f);
            try (PfsInputStream in = client.open("/c/f" + f, rnd.nextBoolean() ? 0 : 8 << 20)) {
              assertArrayEquals(data, readAll(in), "file " + f);
              if (data.length > 10) {
                int at = rnd.nextInt(data.length - 10);
                int len = rnd.nextInt(1, data.length - at);
                byte[] b = new byte[len];
                in.readFully(at, ByteBuffer.wrap(b));
                assertArrayEquals(Arrays.copyOfRange(data, at, at + len), b, "pread of " + f);
              }
            }
            reads.incrementAndGet();
          }
          return null;
        }));
      }
      Future<?> tail = pool.submit(() -> {
        byte[] data = content(1000);
        try (PfsOutputStream out = client.create("/c/tailed", CreateOptions.file());
            PfsInputStream in = client.open("/c/tailed")) {
          int off = 0;
          int seen = 0;
          byte[] buf = new byte[50_000];
          while (off < data.length) {
            int n = Math.min(data.length - off, 200_000);
            out.write(data, off, n);
            out.hflush();
            off += n;
            int k;
            while (seen < off && (k = in.read(buf, 0, buf.length)) > 0) {
              assertArrayEquals(Arrays.copyOfRange(data, seen, seen + k),
                  Arrays.copyOf(buf, k), "tail at " + seen);
              seen += k;
            }
            assertEquals(off, seen, "the reader saw every hflushed byte");
          }
        }
        return null;
      });
      for (Future<?> w : writers) {
        w.get();
      }
      writing.set(false);
      for (Future<?> r : readers) {
        r.get();
      }
      tail.get();
    } finally {
      writing.set(false);
      pool.shutdownNow();
    }
    assertEquals(files + 1, client.namespace().listAll("/c").size());
    for (int f = 0; f < files; f++) {
      assertEquals(content(f).length, client.namespace().getStatus("/c/f" + f).length());
    }
    assertTrue(reads.get() >= files);
  }

  /** Deterministic content: the 8-byte word at word index w is a mix of w. */
  static void fill(ByteBuffer b, long offset) {
    b.order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < b.limit(); i += 8) {
      b.putLong(i, mix((offset + i) >>> 3));
    }
  }

  static long mix(long z) {
    z += 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  @Test
  void aLargeFileWrittenAndReadBackWithItsChecksum() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(BIG_FILE > 0, "parityfs.test.bigFileBytes=0");
    int buf = 4 << 20; // a multiple of 8: every buffer starts on a word
    ByteBuffer pattern = ByteBuffer.allocate(buf);
    CRC32C written = new CRC32C();
    long t0 = System.nanoTime();
    try (PfsOutputStream out = client.create("/big/file", CreateOptions.file())) {
      for (long off = 0; off < BIG_FILE; off += buf) {
        int n = (int) Math.min(buf, BIG_FILE - off);
        pattern.clear();
        fill(pattern, off);
        pattern.limit(n);
        written.update(pattern.duplicate());
        out.write(pattern);
      }
    }
    long t1 = System.nanoTime();
    FileStatus f = client.namespace().getStatus("/big/file");
    assertEquals(BIG_FILE, f.length());
    CRC32C read = new CRC32C();
    ByteBuffer expect = ByteBuffer.allocate(buf);
    try (PfsInputStream in = client.open("/big/file")) {
      ByteBuffer got = ByteBuffer.allocate(buf);
      long off = 0;
      while (true) {
        got.clear();
        while (got.hasRemaining() && in.read(got) > 0) {
          // fill a whole buffer so it lines up with the pattern
        }
        got.flip();
        if (!got.hasRemaining()) {
          break;
        }
        expect.clear();
        fill(expect, off);
        expect.limit(got.limit());
        if (!expect.equals(got)) {
          throw new AssertionError("bytes differ in the " + buf + " bytes at " + off);
        }
        read.update(got);
        off += expect.limit();
      }
      assertEquals(BIG_FILE, off);
      assertEquals(written.getValue(), read.getValue(), "CRC32C of the whole file");
      if (BIG_FILE > (1L << 31) + 4096) {
        // positional reads and seeks across 2^31
        long at = (1L << 31) - 1000;
        ByteBuffer across = ByteBuffer.allocate(4096);
        in.readFully(at, across);
        ByteBuffer want = ByteBuffer.allocate(4096 + 8);
        fill(want, at - (at % 8));
        want.position((int) (at % 8)).limit((int) (at % 8) + 4096);
        across.flip();
        assertEquals(want, across, "pread across 2^31");
        in.seek((1L << 31) + 8);
        ByteBuffer w = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        in.read(w);
        assertEquals(mix(((1L << 31) + 8) >>> 3), w.getLong(0), "seek past 2^31");
      }
    }
    long t2 = System.nanoTime();
    System.out.printf("big file %,d bytes: write %.1f s, read+check %.1f s%n", BIG_FILE,
        (t1 - t0) / 1e9, (t2 - t1) / 1e9);
    assertTrue(client.namespace().delete("/big/file", false));
  }

  /** Many small files from 16 threads: created, listed, read back, deleted. */
  @Test
  void manySmallFiles() throws Exception {
    int threads = 16;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    ConcurrentHashMap<Integer, Boolean> failures = new ConcurrentHashMap<>();
    long t0 = System.nanoTime();
    try {
      runAll(pool, threads, i -> {
        try (PfsOutputStream out = client.create("/small/s" + i, CreateOptions.file())) {
          out.write(small(i));
        }
      });
      long t1 = System.nanoTime();
      assertEquals(SMALL_FILES, client.namespace().listAll("/small").size());
      runAll(pool, threads, i -> {
        try (PfsInputStream in = client.open("/small/s" + i)) {
          if (!Arrays.equals(small(i), readAll(in))) {
            failures.put(i, true);
          }
        }
      });
      long t2 = System.nanoTime();
      assertTrue(failures.isEmpty(), "files read back wrong: " + failures.keySet());
      runAll(pool, threads, i -> assertTrue(client.namespace().delete("/small/s" + i, false)));
      long t3 = System.nanoTime();
      assertEquals(0, client.namespace().listAll("/small").size());
      System.out.printf("%,d small files: create %.1f s, read %.1f s, delete %.1f s%n",
          SMALL_FILES, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  /** 1 to 4,096 bytes, different per file. */
  static byte[] small(int i) {
    Random r = new Random(i);
    byte[] b = new byte[1 + r.nextInt(4096)];
    r.nextBytes(b);
    return b;
  }

  interface FileJob {
    void run(int i) throws Exception;
  }

  static void runAll(ExecutorService pool, int threads, FileJob job) throws Exception {
    AtomicInteger next = new AtomicInteger();
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      fs.add(pool.submit(() -> {
        int i;
        while ((i = next.getAndIncrement()) < SMALL_FILES) {
          job.run(i);
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
  }
}
