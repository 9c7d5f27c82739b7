package io.parityfs.cli;

import io.parityfs.client.ParityClient;
import io.parityfs.client.workload.BenchException;
import io.parityfs.client.workload.BenchResult;
import io.parityfs.client.workload.CheckpointWorkload;
import io.parityfs.client.workload.LatencyHistogram;
import io.parityfs.client.workload.PhaseResult;
import io.parityfs.client.workload.Progress;
import io.parityfs.client.workload.SmallFilesWorkload;
import io.parityfs.meta.NamespaceException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench checkpoint} and {@code bench smallfiles}: the workloads of {@link
 * io.parityfs.client.workload} with a live {@link ProgressLine}, a summary (throughput per phase,
 * latency percentiles per operation) or one {@code --json} document.
 */
final class BenchCommands {
  private BenchCommands() {}

  /** {@code bench}: the group; alone it prints its usage. */
  @Command(name = "bench", description = "Measure the cluster through the client: a"
      + " checkpoint (N writers, one shard file each, written then read back and verified) or"
      + " many small files.", mixinStandardHelpOptions = true,
      subcommands = {Checkpoint.class, SmallFiles.class})
  static final class Bench implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().usage(spec.commandLine().getErr());
      return ExitStatus.USAGE.code();
    }
  }

  /**
   * A bench subcommand: {@link CliCommand}'s session and error lines, with a workload's failure
   * (a corrupt or failed file) and the directory's namespace errors named as such.
   */
  abstract static class BenchCommand extends CliCommand {
    @Override
    final void run(Session s) throws CliException, IOException {
      try {
        bench(s);
      } catch (BenchException e) {
        throw failure(e);
      } catch (NamespaceException e) { // the directory: exists, cannot be made
        throw CliException.of(e.path(), e);
      }
    }

    abstract void bench(Session s) throws CliException, IOException;

    /**
     * What every bench runs: the header line (not with --json), the workload with a progress
     * line, then the summary or the JSON document with {@code parameters} (name, value pairs,
     * in order).
     */
    static void runAndPrint(Session s, String header, Workload workload, Object... parameters)
        throws CliException, IOException {
      ParityClient client = s.client();
      if (!s.json()) {
        s.out().println(header);
        s.out().flush();
      }
      BenchResult r = workload.run(client, progress(s));
      Map<String, Object> params = new LinkedHashMap<>();
      for (int i = 0; i < parameters.length; i += 2) {
        params.put((String) parameters[i], parameters[i + 1]);
      }
      print(s, r, params);
    }

    /** One workload run. */
    interface Workload {
      BenchResult run(ParityClient client, Progress progress) throws IOException;
    }

    /** Progress on stdout (none with --json): redrawn on a terminal, else a line a second. */
    static Progress progress(Session s) {
      return s.json() ? Progress.NONE : new Line(new ProgressLine(s.out(), s.terminal()));
    }

    static Duration interval(Session s) {
      return s.terminal() ? Duration.ofMillis(200) : Duration.ofSeconds(1);
    }
  }

  /** A corrupt file exits 1 (as the namespace's CORRUPT); a failed one with its cause's code. */
  static CliException failure(BenchException e) {
    if (e.corrupt()) {
      return new CliException(ExitStatus.FAILED, e.path(), e.getMessage());
    }
    return new CliException(ExitStatus.of(e.getCause()), e.path(),
        CliException.describe(e.getCause(), e.path()) + " (" + e.phase() + " phase)");
  }

  /** {@link Progress} drawn with a {@link ProgressLine}: bytes, and files in the state. */
  static final class Line implements Progress {
    private final ProgressLine line;

    Line(ProgressLine line) {
      this.line = line;
    }

    @Override
    public void update(Snapshot p) {
      String files = p.filesDone() + "/" + p.filesTotal() + " files"
          + String.format(Locale.ROOT, "  %.0f files/s", p.filesPerSecond());
      line.update(p.phase(), p.bytesDone(), p.bytesTotal(), p.bytesPerSecond(),
          p.finished() ? Double.valueOf(0) : p.etaSeconds(), files);
      if (p.finished()) {
        line.finish();
      }
    }
  }

  /** {@code bench checkpoint}. */
  @Command(name = "checkpoint", mixinStandardHelpOptions = true, description = {
      "DLIO-style checkpoint: N writers each write one shard file (all at once) and close it,"
      + " then each reads its shard back and compares every byte; the directory is deleted at"
      + " the end unless --keep.",
      "Prints MB/s (1e6 bytes) per phase and latency percentiles of each create, write call,"
      + " close, open and read call."})
  static final class Checkpoint extends BenchCommand {
    @Option(names = "--writers", paramLabel = "<n>", defaultValue = "8",
        description = "ranks, one thread and one shard file each (default ${DEFAULT-VALUE})")
    int writers;

    @Option(names = "--size", paramLabel = "<size>", defaultValue = "256M",
        description = "bytes per writer, K/M/G suffixes (default ${DEFAULT-VALUE})")
    String size;

    @Option(names = "--block", paramLabel = "<size>", defaultValue = "4M",
        description = "bytes per write and read call (default ${DEFAULT-VALUE})")
    String block;

    @Option(names = "--dir", paramLabel = "<path>", description = "a new namespace directory"
        + " (default /bench/checkpoint-<UTC time>); an existing one is refused")
    String dir;

    @Option(names = "--keep", description = "leave the directory and its shards")
    boolean keep;

    @Option(names = "--no-verify", description = "read back without comparing")
    boolean noVerify;

    @Option(names = "--restore-only", description = "only read and verify the shards an"
        + " earlier run left with --keep (same --writers and --size; needs --dir; deletes"
        + " nothing)")
    boolean restoreOnly;

    @Override
    void bench(Session s) throws CliException, IOException {
      CheckpointWorkload.Options o = CheckpointWorkload.Options.builder().writers(writers)
          .bytesPerWriter(Sizes.parse(size)).blockBytes(intSize("--block", block))
          .dir(dir).verify(!noVerify).keep(keep).restoreOnly(restoreOnly)
          .progressInterval(interval(s)).build();
      runAndPrint(s, "checkpoint: " + o.writers() + " writers x "
              + Sizes.human(o.bytesPerWriter()) + " = " + Sizes.human(o.totalBytes()) + ", block "
              + Sizes.human(o.blockBytes()) + ", verify " + (o.verify() ? "on" : "off")
              + (o.dir() == null ? "" : ", dir " + o.dir()),
          (client, progress) -> CheckpointWorkload.run(client, o, progress),
          "writers", o.writers(), "bytesPerWriter", o.bytesPerWriter(),
          "blockBytes", o.blockBytes(), "verify", o.verify(), "keep", o.keep(),
          "restoreOnly", o.restoreOnly());
    }
  }

  /** {@code bench smallfiles}. */
  @Command(name = "smallfiles", mixinStandardHelpOptions = true, description = {
      "Many small files: T threads create, write and close N files, then open, read and verify"
      + " each, then delete each (unless --keep).",
      "Prints files/s per phase and latency percentiles per file operation."})
  static final class SmallFiles extends BenchCommand {
    @Option(names = "--files", paramLabel = "<n>", defaultValue = "10000",
        description = "files (default ${DEFAULT-VALUE})")
    int files;

    @Option(names = "--threads", paramLabel = "<n>", defaultValue = "16",
        description = "threads (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--min-size", paramLabel = "<size>", defaultValue = "1K",
        description = "smallest file (default ${DEFAULT-VALUE})")
    String minSize;

    @Option(names = "--max-size", paramLabel = "<size>", defaultValue = "8K",
        description = "largest file (default ${DEFAULT-VALUE}); lengths are uniform between")
    String maxSize;

    @Option(names = "--dir", paramLabel = "<path>", description = "a new namespace directory"
        + " (default /bench/smallfiles-<UTC time>); an existing one is refused")
    String dir;

    @Option(names = "--keep", description = "skip the delete phase; leave the files")
    boolean keep;

    @Option(names = "--no-verify", description = "read back without comparing")
    boolean noVerify;

    @Override
    void bench(Session s) throws CliException, IOException {
      SmallFilesWorkload.Options o = SmallFilesWorkload.Options.builder().files(files)
          .threads(threads).sizes(intSize("--min-size", minSize), intSize("--max-size", maxSize))
          .dir(dir).verify(!noVerify).keep(keep).progressInterval(interval(s)).build();
      runAndPrint(s, "smallfiles: " + o.files() + " files of " + Sizes.human(o.minBytes())
              + ".." + Sizes.human(o.maxBytes()) + ", " + o.workers() + " threads, verify "
              + (o.verify() ? "on" : "off") + (o.dir() == null ? "" : ", dir " + o.dir()),
          (client, progress) -> SmallFilesWorkload.run(client, o, progress),
          "files", o.files(), "threads", o.workers(), "minBytes", o.minBytes(),
          "maxBytes", o.maxBytes(), "verify", o.verify(), "keep", o.keep());
    }
  }

  static int intSize(String option, String text) {
    long v = Sizes.parse(text);
    if (v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(option + " (" + text + ") must be below 2 GiB");
    }
    return (int) v;
  }

  /** The summary tables, or the JSON document. */
  static void print(Session s, BenchResult r, Map<String, Object> parameters) {
    if (s.json()) {
      s.printJson(document(r, parameters));
      return;
    }
    Table phases = new Table("lrrrrr");
    phases.row("PHASE", "FILES", "BYTES", "SECONDS", "MB/S", "FILES/S");
    for (PhaseResult p : r.phases()) {
      phases.row(p.phase(), p.files(), p.bytes(), fixed(p.seconds(), 3),
          fixed(p.megabytesPerSecond(), 1), fixed(p.filesPerSecond(), 1));
    }
    phases.print(s.out());
    Table latency = new Table("llrrrrrr");
    latency.row("PHASE", "OP", "COUNT", "P50 MS", "P90 MS", "P99 MS", "MAX MS", "MEAN MS");
    for (PhaseResult p : r.phases()) {
      p.latencies().forEach((op, l) -> latency.row(p.phase(), op, l.count(), ms(l.p50Nanos()),
          ms(l.p90Nanos()), ms(l.p99Nanos()), ms(l.maxNanos()), ms(l.meanNanos())));
    }
    latency.print(s.out());
    s.out().println((r.removed() ? "removed " : "kept ") + Printable.of(r.dir()));
    s.out().flush();
  }

  static Map<String, Object> document(BenchResult r, Map<String, Object> parameters) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("benchmark", r.workload());
    m.put("dir", r.dir());
    m.put("parameters", parameters);
    List<Map<String, Object>> phases = new ArrayList<>();
    for (PhaseResult p : r.phases()) {
      Map<String, Object> ph = new LinkedHashMap<>();
      ph.put("phase", p.phase());
      ph.put("files", p.files());
      ph.put("bytes", p.bytes());
      ph.put("seconds", round(p.seconds(), 6));
      ph.put("megabytesPerSecond", round(p.megabytesPerSecond(), 3));
      ph.put("filesPerSecond", round(p.filesPerSecond(), 3));
      Map<String, Object> lat = new LinkedHashMap<>();
      p.latencies().forEach((op, l) -> lat.put(op, latency(l)));
      ph.put("latencyMs", lat);
      phases.add(ph);
    }
    m.put("phases", phases);
    m.put("removed", r.removed());
    return m;
  }

  private static Map<String, Object> latency(LatencyHistogram.Summary l) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("count", l.count());
    m.put("p50", round(l.p50Nanos() / 1e6, 6));
    m.put("p90", round(l.p90Nanos() / 1e6, 6));
    m.put("p99", round(l.p99Nanos() / 1e6, 6));
    m.put("max", round(l.maxNanos() / 1e6, 6));
    m.put("mean", round(l.meanNanos() / 1e6, 6));
    return m;
  }

  private static String ms(double nanos) {
    return fixed(nanos / 1e6, 3);
  }

  private static String fixed(double v, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  private static double round(double v, int decimals) {
    double f = Math.pow(10, decimals);
    return Math.round(v * f) / f;
  }
}
