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
 * Many small files, as an mdtest-like run: {@code threads} workers share {@code files} files
 * (worker {@code t} takes files {@code t, t + threads, ...} in its own directory {@code
 * <dir>/t<t, 3 digits>}); phase {@code create} creates, writes and closes each, {@code read}
 * opens, reads and checks each, {@code delete} deletes each (skipped with {@code keep}; its
 * bytes are those of the files deleted, so that its progress reads like the others'). File
 * {@code i} is {@code f<i, 7 digits>}, its length drawn from [minBytes, maxBytes] by the seed and
 * {@code i}, its content derived like a checkpoint shard's ({@link ContentPattern}). Each phase
 * times one operation per file, named after the phase. The directory is made new and deleted at
 * the end unless {@code keep}.
 *
 * <p>Stateless: {@link #run} may be called from several threads with different options.
 */
public final class SmallFilesWorkload {
  public static final String NAME = "smallfiles";

  private SmallFilesWorkload() {}

  /**
   * What to run; {@link #DEFAULT}, {@link #builder()} and {@link #toBuilder()} build one. Every value is
   * checked at once, the bad one named in the IllegalArgumentException.
   *
   * @param files 1..100,000,000
   * @param threads 1..1024 (at most {@code files} are used)
   * @param minBytes the smallest file; >= 0
   * @param maxBytes the largest file; minBytes..64 MiB
   * @param dir the namespace directory, absolute; null: {@code /bench/smallfiles-<UTC time>}
   * @param verify compare every byte read with what was written
   * @param keep skip the delete phase; leave the directory and its files
   * @param seed of the lengths and contents
   * @param progressInterval how often {@link Progress} is told during a phase
   */
  public record Options(int files, int threads, int minBytes, int maxBytes, String dir,
      boolean verify, boolean keep, long seed, Duration progressInterval) {
    public static final Options DEFAULT = new Options(10_000, 16, 1 << 10, 8 << 10, null, true,
        false, 0x5EED, Duration.ofSeconds(1));

    public Options {
      if (files < 1 || files > 100_000_000) {
        throw new IllegalArgumentException("files (" + files + ") must be in 1..100000000");
      }
      if (threads < 1 || threads > 1024) {
        throw new IllegalArgumentException("threads (" + threads + ") must be in 1..1024");
      }
      if (minBytes < 0 || maxBytes < minBytes || maxBytes > (64 << 20)) {
        throw new IllegalArgumentException("min-size (" + minBytes + ") and max-size ("
            + maxBytes + ") must satisfy 0 <= min <= max <= 64 MiB");
      }
      BenchDir.checkOption(dir);
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

    /** Workers actually used. */
    public int workers() {
      return Math.min(threads, files);
    }

    /** Builder of {@link Options}; {@link #build} checks every value. */
    public static final class Builder {
      private int files;
      private int threads;
      private int minBytes;
      private int maxBytes;
      private String dir;
      private boolean verify;
      private boolean keep;
      private long seed;
      private Duration progressInterval;

      private Builder(Options from) {
        files = from.files;
        threads = from.threads;
        minBytes = from.minBytes;
        maxBytes = from.maxBytes;
        dir = from.dir;
        verify = from.verify;
        keep = from.keep;
        seed = from.seed;
        progressInterval = from.progressInterval;
      }

      public Builder files(int v) {
        files = v;
        return this;
      }

      public Builder threads(int v) {
        threads = v;
        return this;
      }

      public Builder minBytes(int v) {
        minBytes = v;
        return this;
      }

      public Builder maxBytes(int v) {
        maxBytes = v;
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

      public Builder seed(long v) {
        seed = v;
        return this;
      }

      public Builder progressInterval(Duration v) {
        progressInterval = v;
        return this;
      }

      /** Both ends of the file-length range. */
      public Builder sizes(int min, int max) {
        minBytes = min;
        maxBytes = max;
        return this;
      }

      public Options build() {
        return new Options(files, threads, minBytes, maxBytes, dir, verify, keep, seed,
            progressInterval);
      }
    }
  }

  /** The path of file {@code index} in {@code dir}. */
  public static String filePath(Options o, String dir, int index) {
    return BenchDir.child(workerDir(dir, index % o.workers()),
        String.format(Locale.ROOT, "f%07d", index));
  }

  /** The length of file {@code index}. */
  public static int fileLength(Options o, int index) {
    return o.minBytes() + (int) ContentPattern.hash(o.seed(), index, -1,
        o.maxBytes() - o.minBytes() + 1L);
  }

  /**
   * Runs the phases (create, read, then delete unless keep) on {@code client}, which the caller
   * owns and closes.
   *
   * @throws BenchException a file failed to be written, read or deleted, or differed (every
   *     worker was stopped; the directory removed unless keep)
   * @throws NamespaceException the directory exists (ALREADY_EXISTS), or cannot be made
   * @throws java.io.InterruptedIOException the calling thread was interrupted
   */
  public static BenchResult run(ParityClient client, Options options, Progress progress)
      throws IOException {
    String dir = options.dir() != null ? options.dir() : BenchDir.defaultPath(NAME);
    ContentPattern pattern = new ContentPattern(options.seed());
    int workers = options.workers();
    int[] lengths = new int[options.files()];
    long totalBytes = 0;
    for (int i = 0; i < lengths.length; i++) {
      lengths[i] = fileLength(options, i);
      totalBytes += lengths[i];
    }
    List<PhaseResult> phases = new ArrayList<>();
    boolean created = false;
    try {
      BenchDir.create(client.namespace(), dir);
      created = true;
      for (int w = 0; w < workers; w++) {
        client.namespace().mkdirs(workerDir(dir, w));
      }
      phases.add(PhaseRunner.run("create", workers, totalBytes, options.files(),
          List.of("create"), (w, ctx) -> {
            byte[] buf = new byte[options.maxBytes()];
            for (int i = w; i < lengths.length && !ctx.stopped(); i += workers) {
              write(client, pattern, filePath(options, dir, i), i, buf, lengths[i], ctx);
            }
          }, progress, options.progressInterval()));
      phases.add(PhaseRunner.run("read", workers, totalBytes, options.files(), List.of("read"),
          (w, ctx) -> {
            byte[] buf = new byte[options.maxBytes() + 1];
            for (int i = w; i < lengths.length && !ctx.stopped(); i += workers) {
              read(client, options, pattern, filePath(options, dir, i), i, buf, lengths[i], ctx);
            }
          }, progress, options.progressInterval()));
      if (!options.keep()) {
        phases.add(PhaseRunner.run("delete", workers, totalBytes, options.files(),
            List.of("delete"), (w, ctx) -> {
              for (int i = w; i < lengths.length && !ctx.stopped(); i += workers) {
                delete(client, filePath(options, dir, i), i, lengths[i], ctx);
              }
            }, progress, options.progressInterval()));
      }
    } catch (IOException | RuntimeException e) {
      if (created && !options.keep()) {
        BenchDir.removeQuietly(client.namespace(), dir);
      }
      throw e;
    }
    boolean removed = !options.keep() && client.namespace().delete(dir, true);
    return new BenchResult(NAME, dir, phases, removed);
  }

  /**
   * Reads file {@code index} at {@code path} and checks it is exactly what a run with {@code
   * options} (sizes, seed) wrote there. The seam for checking verification itself.
   *
   * @throws BenchException corrupt (the first differing offset), or the read failed
   */
  public static void verifyFile(ParityClient client, Options options, String path, int index)
      throws BenchException {
    read(client, options.toBuilder().verify(true).build(), new ContentPattern(options.seed()),
        path, index,
        new byte[options.maxBytes() + 1], fileLength(options, index),
        new PhaseRunner.Context(List.of("read")));
  }

  private static String workerDir(String dir, int worker) {
    return BenchDir.child(dir, String.format(Locale.ROOT, "t%03d", worker));
  }

  private static void write(ParityClient client, ContentPattern pattern, String path, int index,
      byte[] buf, int length, PhaseRunner.Context ctx) throws BenchException {
    pattern.fill(index, 0, buf, 0, length);
    long t = System.nanoTime();
    PfsOutputStream out = null;
    try {
      out = client.create(path, CreateOptions.file().withCreateParents(false));
      out.write(buf, 0, length);
      out.close();
    } catch (IOException e) {
      CheckpointWorkload.abandon(out);
      throw BenchException.failed("create", path, "file", index, e);
    }
    ctx.latency("create").recordSince(t);
    ctx.addBytes(length);
    ctx.fileDone();
  }

  private static void read(ParityClient client, Options o, ContentPattern pattern, String path,
      int index, byte[] buf, int length, PhaseRunner.Context ctx) throws BenchException {
    long t = System.nanoTime();
    int got;
    try (PfsInputStream in = client.open(path)) {
      // one byte more than expected: a longer file shows as such
      got = in.readNBytes(buf, 0, (int) Math.min(in.length(), buf.length));
    } catch (IOException e) {
      throw BenchException.failed("read", path, "file", index, e);
    }
    ctx.latency("read").recordSince(t);
    if (o.verify()) {
      int m = pattern.mismatch(index, 0, buf, 0, Math.min(got, length));
      if (m >= 0) {
        throw BenchException.corrupt("read", path, "file", index, m, String.format(Locale.ROOT,
            "read 0x%02x, expected 0x%02x", buf[m] & 0xff, pattern.at(index, m) & 0xff));
      }
      if (got != length) {
        throw BenchException.corrupt("read", path, "file", index, Math.min(got, length),
            "the file is " + (got > length ? "longer" : got + " bytes long") + ", expected "
                + length + " bytes");
      }
    }
    ctx.addBytes(got);
    ctx.fileDone();
  }

  private static void delete(ParityClient client, String path, int index, int length,
      PhaseRunner.Context ctx) throws BenchException {
    long t = System.nanoTime();
    try {
      if (!client.namespace().delete(path, false)) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "vanished before delete");
      }
    } catch (NamespaceException e) {
      throw BenchException.failed("delete", path, "file", index, e);
    }
    ctx.latency("delete").recordSince(t);
    ctx.addBytes(length);
    ctx.fileDone();
  }
}
