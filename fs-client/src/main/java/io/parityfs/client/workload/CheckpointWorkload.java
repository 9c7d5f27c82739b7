package io.parityfs.client.workload;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A DLIO-style checkpoint: {@code writers} ranks each write one shard file of {@code
 * bytesPerWriter} bytes in calls of {@code blockBytes} and close it (durable), all at once; then
 * each reads its shard back in calls of the same size and compares every byte. Shard {@code r}
 * is {@code <dir>/rank-<r, 4 digits>}; its content is derived from the seed, {@code r} and the
 * offset ({@link ContentPattern}).
 *
 * <p>Phases and their timed operations: {@code write} ({@code create}, {@code write}, {@code
 * close}), {@code read} ({@code open}, {@code read}; a read's time includes neither the
 * comparison nor, for a write, producing the data). The directory is made new (an existing one
 * is refused) and deleted at the end unless {@code keep}. A restore-only run reads the shards a
 * run with {@code keep} left and never deletes them.
 *
 * <p>Stateless: {@link #run} may be called from several threads with different options.
 */
public final class CheckpointWorkload {
  public static final String NAME = "checkpoint";

  private CheckpointWorkload() {}

  /**
   * What to run; {@link #DEFAULT}, {@link #builder()} and {@link #toBuilder()} build one. Every value is
   * checked at once, the bad one named in the IllegalArgumentException.
   *
   * @param writers ranks, one thread and one shard file each; 1..10000
   * @param bytesPerWriter each shard's length; >= 0
   * @param blockBytes bytes per write and read call; 1 B..256 MiB
   * @param dir the namespace directory, absolute; null: {@code /bench/checkpoint-<UTC time>}
   * @param verify compare every byte read with what was written
   * @param keep leave the directory and its shards
   * @param restoreOnly skip the write phase: read the shards of an earlier run (needs {@code
   *     dir}; nothing is deleted)
   * @param seed of the content; a restore-only run needs the writing run's
   * @param progressInterval how often {@link Progress} is told during a phase
   */
  public record Options(int writers, long bytesPerWriter, int blockBytes, String dir,
      boolean verify, boolean keep, boolean restoreOnly, long seed, Duration progressInterval) {
    public static final Options DEFAULT = new Options(8, 256L << 20, 4 << 20, null, true, false,
        false, 0x5EED, Duration.ofSeconds(1));

    public Options {
      if (writers < 1 || writers > 10_000) {
        throw new IllegalArgumentException("writers (" + writers + ") must be in 1..10000");
      }
      if (bytesPerWriter < 0) {
        throw new IllegalArgumentException("size (" + bytesPerWriter + ") must be >= 0");
      }
      if (blockBytes < 1 || blockBytes > (256 << 20)) {
        throw new IllegalArgumentException("block (" + blockBytes
            + ") must be in 1 B..256 MiB");
      }
      BenchDir.checkOption(dir);
      if (restoreOnly && dir == null) {
        throw new IllegalArgumentException("restore-only needs the dir of the run to read");
      }
      PhaseRunner.checkInterval(progressInterval);
    }

    /** A builder starting from {@link #DEFAULT}. */
    public static Builder builder() {
      return DEFAULT.toBuilder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
      return new Builder(this);
    }

    /** Bytes over all ranks. */
    public long totalBytes() {
      return Math.multiplyExact(writers, bytesPerWriter);
    }

    /** Builder of {@link Options}; {@link #build} checks every value. */
    public static final class Builder {
      private int writers;
      private long bytesPerWriter;
      private int blockBytes;
      private String dir;
      private boolean verify;
      private boolean keep;
      private boolean restoreOnly;
      private long seed;
      private Duration progressInterval;

      private Builder(Options from) {
        writers = from.writers;
        bytesPerWriter = from.bytesPerWriter;
        blockBytes = from.blockBytes;
        dir = from.dir;
        verify = from.verify;
        keep = from.keep;
        restoreOnly = from.restoreOnly;
        seed = from.seed;
        progressInterval = from.progressInterval;
      }

      public Builder writers(int v) {
        writers = v;
        return this;
      }

      public Builder bytesPerWriter(long v) {
        bytesPerWriter = v;
        return this;
      }

      public Builder blockBytes(int v) {
        blockBytes = v;
        return this;
      }

      public Builder dir(String v) {
        dir = v;
        return this;
      }

      public Builder verify(boolean v) {
        verify = v;
        return this;
      }

      public Builder keep(boolean v) {
        keep = v;
        return this;
      }

      public Builder restoreOnly(boolean v) {
        restoreOnly = v;
        return this;
      }

      public Builder seed(long v) {
        seed = v;
        return this;
      }

      public Builder progressInterval(Duration v) {
        progressInterval = v;
        return this;
      }

      public Options build() {
        return new Options(writers, bytesPerWriter, blockBytes, dir, verify, keep, restoreOnly,
            seed, progressInterval);
      }
    }
  }

  /** The path of rank {@code rank}'s shard in {@code dir}. */
  public static String shardPath(String dir, int rank) {
    return BenchDir.child(dir, String.format(Locale.ROOT, "rank-%04d", rank));
  }

  /**
   * Runs the phases (write unless restore-only, then read) on {@code client}, which the caller
   * owns and closes.
   *
   * @throws BenchException a shard failed to write or read, or differed (every worker was
   *     stopped; the directory removed unless keep or restore-only)
   * @throws NamespaceException the directory exists (ALREADY_EXISTS), or cannot be made
   * @throws java.io.InterruptedIOException the calling thread was interrupted
   */
  public static BenchResult run(ParityClient client, Options options, Progress progress)
      throws IOException {
    String dir = options.dir() != null ? options.dir() : BenchDir.defaultPath(NAME);
    ContentPattern pattern = new ContentPattern(options.seed());
    boolean created = false;
    List<PhaseResult> phases = new ArrayList<>();
    try {
      if (!options.restoreOnly()) {
        BenchDir.create(client.namespace(), dir);
        created = true;
        phases.add(PhaseRunner.run("write", options.writers(), options.totalBytes(),
            options.writers(), List.of("create", "write", "close"),
            (rank, ctx) -> writeShard(client, options, pattern, shardPath(dir, rank), rank, ctx),
            progress, options.progressInterval()));
      } else if (!BenchDir.exists(client.namespace(), dir)) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND, dir,
            "no such directory to restore from");
      }
      phases.add(PhaseRunner.run("read", options.writers(), options.totalBytes(),
          options.writers(), List.of("open", "read"),
          (rank, ctx) -> readShard(client, options, pattern, shardPath(dir, rank), rank, ctx),
          progress, options.progressInterval()));
    } catch (IOException | RuntimeException e) {
      if (created && !options.keep()) {
        BenchDir.removeQuietly(client.namespace(), dir);
      }
      throw e;
    }
    boolean removed = created && !options.keep() && client.namespace().delete(dir, true);
    return new BenchResult(NAME, dir, phases, removed);
  }

  /**
   * Reads shard {@code rank} at {@code path} and checks it is exactly what a run with {@code
   * options} (size, seed) wrote for that rank. The seam for checking verification itself.
   *
   * @throws BenchException corrupt (the first differing offset), or the read failed
   */
  public static void verifyShard(ParityClient client, Options options, String path, int rank)
      throws BenchException {
    readShard(client, options.toBuilder().verify(true).build(),
        new ContentPattern(options.seed()), path, rank,
        new PhaseRunner.Context(List.of("open", "read")));
  }

  private static void writeShard(ParityClient client, Options o, ContentPattern pattern,
      String path, int rank, PhaseRunner.Context ctx) throws BenchException {
    byte[] buf = new byte[(int) Math.min(o.blockBytes(), Math.max(1, o.bytesPerWriter()))];
    PfsOutputStream out = null;
    try {
      long t = System.nanoTime();
      out = client.create(path, CreateOptions.file());
      ctx.latency("create").recordSince(t);
      for (long off = 0; off < o.bytesPerWriter(); ) {
        if (ctx.stopped()) {
          abandon(out);
          return;
        }
        int n = (int) Math.min(buf.length, o.bytesPerWriter() - off);
        pattern.fill(rank, off, buf, 0, n);
        t = System.nanoTime();
        out.write(buf, 0, n);
        ctx.latency("write").recordSince(t);
        off += n;
        ctx.addBytes(n);
      }
      t = System.nanoTime();
      out.close();
      ctx.latency("close").recordSince(t);
      ctx.fileDone();
    } catch (IOException e) {
      abandon(out);
      throw BenchException.failed("write", path, "rank", rank, e);
    }
  }

  private static void readShard(ParityClient client, Options o, ContentPattern pattern,
      String path, int rank, PhaseRunner.Context ctx) throws BenchException {
    long t = System.nanoTime();
    try (PfsInputStream in = client.open(path)) {
      ctx.latency("open").recordSince(t);
      long length = in.length();
      if (o.verify() && length != o.bytesPerWriter()) {
        throw BenchException.corrupt("read", path, "rank", rank,
            Math.min(length, o.bytesPerWriter()), "the shard is " + length + " bytes long,"
                + " expected " + o.bytesPerWriter());
      }
      byte[] buf = new byte[(int) Math.min(o.blockBytes(), Math.max(1, length))];
      for (long off = 0; off < length; ) {
        if (ctx.stopped()) {
          return;
        }
        int want = (int) Math.min(buf.length, length - off);
        t = System.nanoTime();
        int got = in.readNBytes(buf, 0, want);
        ctx.latency("read").recordSince(t);
        if (got < want) {
          throw BenchException.corrupt("read", path, "rank", rank, off + got,
              "the shard ends early (" + length + " bytes at open)");
        }
        int m = o.verify() ? pattern.mismatch(rank, off, buf, 0, got) : -1;
        if (m >= 0) {
          throw BenchException.corrupt("read", path, "rank", rank, off + m, String.format(
              Locale.ROOT, "read 0x%02x, expected 0x%02x", buf[m] & 0xff,
              pattern.at(rank, off + m) & 0xff));
        }
        off += got;
        ctx.addBytes(got);
      }
      ctx.fileDone();
    } catch (BenchException e) {
      throw e;
    } catch (IOException e) {
      throw BenchException.failed("read", path, "rank", rank, e);
    }
  }

  /** Closes a stream whose run stopped; its file is removed with the directory. */
  static void abandon(PfsOutputStream out) {
    if (out == null) {
      return;
    }
    try {
      out.close();
    } catch (IOException | RuntimeException e) {
      // the stream had failed already; the run reports the first failure
    }
  }
}
