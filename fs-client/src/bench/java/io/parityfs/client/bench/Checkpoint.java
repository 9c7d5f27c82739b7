package io.parityfs.client.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The checkpoint workload of the client benchmarks: {@code writers} threads each write one file
 * ({@code part-W}) in 4 MiB writes and close it, then read it back in 4 MiB {@code readFully}
 * calls comparing every byte. Each writer's bytes come from its own seed and each 4 MiB block's
 * first byte is its index, so a block from another writer or another offset does not compare
 * equal.
 */
final class Checkpoint {
  static final int IO = 4 << 20;

  private final FileSystem fs;
  private final Path dir;
  private final int writers;
  private final long fileBytes;
  private final byte[][] data;

  Checkpoint(FileSystem fs, Path dir, int writers, long fileBytes) {
    this.fs = fs;
    this.dir = dir;
    this.writers = writers;
    this.fileBytes = fileBytes;
    this.data = new byte[writers][IO];
    for (int w = 0; w < writers; w++) {
      new Random(w).nextBytes(data[w]);
    }
  }

  /** Data bytes of one phase (every writer's file). */
  long totalBytes() {
    return fileBytes * writers;
  }

  /** Writes every file on {@code pool} (hsync before close when asked), until the last close. */
  void write(ExecutorService pool, boolean hsyncBeforeClose) throws Exception {
    all(pool, w -> {
      try (FSDataOutputStream o = fs.create(new Path(dir, "part-" + w))) {
        byte[] b = data[w];
        for (long done = 0; done < fileBytes; done += IO) {
          b[0] = (byte) (done / IO); // each 4 MiB block a little different
          o.write(b, 0, (int) Math.min(IO, fileBytes - done));
        }
        if (hsyncBeforeClose) {
          o.hsync();
        }
      }
    });
  }

  /** Reads every file back on {@code pool}, failing on the first byte that differs. */
  void read(ExecutorService pool, String side) throws Exception {
    all(pool, w -> {
      byte[] b = new byte[IO];
      byte[] expect = data[w].clone();
      try (FSDataInputStream in = fs.open(new Path(dir, "part-" + w))) {
        for (long done = 0; done < fileBytes; done += IO) {
          int n = (int) Math.min(IO, fileBytes - done);
          in.readFully(b, 0, n);
          expect[0] = (byte) (done / IO);
          if (!Arrays.equals(b, 0, n, expect, 0, n)) {
            throw new IOException(side + ": part-" + w + " differs in the block at " + done);
          }
        }
        if (in.read() != -1) {
          throw new IOException(side + ": part-" + w + " is longer than written");
        }
      }
    });
  }

  /** One thread's part of a phase. */
  interface Task {
    void run(int i) throws Exception;
  }

  /** Runs {@code t} for 0 … n−1 on {@code pool} and waits for all (throws the first failure). */
  static void all(ExecutorService pool, int n, Task t) throws Exception {
    List<Future<?>> fs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int k = i;
      fs.add(pool.submit(() -> {
        t.run(k);
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
  }

  private void all(ExecutorService pool, Task t) throws Exception {
    all(pool, writers, t);
  }
}
