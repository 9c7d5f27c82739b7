package io.parityfs.integration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parityfs.cli.ExitStatus;
import io.parityfs.cli.Main;
import io.parityfs.cli.ProgressLine;
import io.parityfs.cli.Sizes;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.client.workload.BenchResult;
import io.parityfs.client.workload.CheckpointWorkload;
import io.parityfs.client.workload.PhaseResult;
import io.parityfs.client.workload.Progress;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.TargetId;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code parityfs demo}: the quickstart. Starts the local cluster (creating it the first time),
 * writes a checkpoint with parallel writers and restores it, fails a drive, restores degraded,
 * replaces the drive and rebuilds it, restores once more, kills a storage node during a last
 * restore, writes a file while it is down and brings it back (the keeper catches it up), and
 * prints what it measured. Every restore compares every byte. Each admin step runs the {@code parityfs} command a user would
 * type, printed before its output.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"The quickstart: start the local cluster (./.parityfs; created the first"
        + " time), write a checkpoint with parallel writers and restore it, fail a drive and"
        + " restore degraded, replace the drive and watch the rebuild, restore again, kill a"
        + " storage node during a last restore, write while it is down, bring it back and watch"
        + " the keeper catch it up (every byte verified each time), and print a throughput summary. The cluster stays up.",
        "Exits 0 when every step held, 1 when one failed (its error says which)."})
public final class DemoCommand implements Callable<Integer> {
  /** The slot the demo fails: any slot would do; RAID-6 survives two. */
  static final int FAILED_SLOT = 2;

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--dir", paramLabel = "<folder>",
      defaultValue = "${env:PARITYFS_LOCAL_DIR:-.parityfs}",
      description = "the local cluster's folder (default ${DEFAULT-VALUE})")
  Path dir;

  @Option(names = "--writers", paramLabel = "<n>", defaultValue = "8",
      description = "parallel writers, one checkpoint shard each (default ${DEFAULT-VALUE})")
  int writers;

  @Option(names = "--size", paramLabel = "<bytes>", defaultValue = "256M",
      description = "bytes per writer, with K, M or G (default ${DEFAULT-VALUE}: 2 GiB in all"
          + " with 8 writers)")
  String size;

  @Option(names = "--keep", description = "leave the checkpoint in the namespace")
  boolean keep;

  @Option(names = "--stop", description = "stop the local cluster at the end")
  boolean stop;

  private PrintWriter out;
  private boolean terminal;
  private final List<String[]> summary = new ArrayList<>();

  @Override
  public Integer call() {
    out = spec.commandLine().getOut();
    terminal = System.console() != null;
    long started = System.nanoTime();
    long bytesPerWriter;
    try {
      bytesPerWriter = Sizes.parse(size);
      CheckpointWorkload.Options.builder().writers(writers).bytesPerWriter(bytesPerWriter).build();
    } catch (IllegalArgumentException e) {
      return Main.fail(spec, ExitStatus.USAGE, e.getMessage());
    }
    try {
      heading("1/7", "the local cluster");
      LocalCluster cluster = LocalCommand.startCluster(dir, LocalCluster.Shape.defaults(),
          Duration.ofMinutes(3), out);
      try (ParityClient client = cluster.client(Caller.of("root"))) {
        run(cluster, client, bytesPerWriter);
      }
      out.printf(Locale.ROOT, "%nSummary (%d writers x %s = %s; every byte verified on each"
              + " restore)%n", writers, Sizes.human(bytesPerWriter),
          Sizes.human(writers * bytesPerWriter));
      for (String[] row : summary) {
        out.printf(Locale.ROOT, "  %-38s %s%n", row[0], row[1]);
      }
      out.printf(Locale.ROOT, "  %-38s %.0f s%n", "the whole demo",
          (System.nanoTime() - started) / 1e9);
      out.println();
      if (stop) {
        cluster.stop(Duration.ofSeconds(30), m -> { });
        out.println("stopped the local cluster (bin/parityfs local start brings it back)");
      } else {
        out.println("The local cluster stays up.");
        LocalCommand.printReach(cluster, out);
      }
      out.flush();
      return ExitStatus.OK.code();
    } catch (IOException | RuntimeException e) {
      return Main.fail(spec, ExitStatus.FAILED,
          e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  private void run(LocalCluster cluster, ParityClient client, long bytesPerWriter)
      throws IOException {
    String ckpt = "/demo/checkpoint-" + LocalDateTime.now(ZoneOffset.UTC)
        .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    CheckpointWorkload.Options options = CheckpointWorkload.Options.builder()
        .writers(writers).bytesPerWriter(bytesPerWriter).dir(ckpt).keep(true).build();
    client.namespace().mkdirs("/demo");

    try {
      heading("2/7", String.format(Locale.ROOT, "a checkpoint: %d writers each write a %s"
          + " shard to %s at once, durable at close; then the restore", writers,
          Sizes.human(bytesPerWriter), ckpt));
      BenchResult first = CheckpointWorkload.run(client, options, progress());
      PhaseResult write = first.phase("write");
      record("checkpoint write", write);
      record("restore (all drives)", first.phase("read"));

      TargetInfo target = client.registry().targets().stream()
          .min(Comparator.comparing(TargetInfo::id)).orElseThrow(
              () -> new IOException("the registry lists no target"));
      String slotPath = drivePath(client, target, FAILED_SLOT);
      heading("3/7", "drive slot " + FAILED_SLOT + " of target " + target.id()
          + " fails (" + slotPath + ")");
      cli(cluster, "fail-drive", target.id(), Integer.toString(FAILED_SLOT));

      heading("4/7", "the restore while the drive is gone: its cells are rebuilt from parity"
          + " on every read");
      record("restore (a drive failed: degraded)", restore(client, options));

      heading("5/7", "a new, empty drive goes into the slot (its folder emptied, as when a disk"
          + " is swapped in the same bay); the rebuild");
      emptyFolder(Path.of(slotPath));
      long t0 = System.nanoTime();
      cli(cluster, "replace-drive", target.id(), Integer.toString(FAILED_SLOT), slotPath,
          "--watch");
      double rebuildSeconds = (System.nanoTime() - t0) / 1e9;
      summary.add(new String[] {"drive replaced and rebuilt",
          String.format(Locale.ROOT, "%.1f s", rebuildSeconds)});

      heading("6/7", "the restore after the rebuild, and the targets");
      record("restore (after the rebuild)", restore(client, options));
      cli(cluster, "targets");

      nodeLoss(cluster, client, options, ckpt);
    } finally {
      // also when a step failed: a rerun must not find the disk filled by the last one
      if (!keep) {
        try {
          client.namespace().delete(ckpt, true);
          out.println("(the checkpoint " + ckpt + " is deleted; --keep leaves it)");
        } catch (IOException e) {
          out.println("(could not delete the checkpoint " + ckpt + ": " + e.getMessage() + ")");
        }
      }
    }
  }

  /**
   * Step 7: a storage node is killed (SIGKILL) a quarter into a restore; the restore goes on
   * from the other nodes (the mirror copies, or the chunks decoded from the rest of their
   * groups) and every byte is compared; a file is written with the node down, the node is
   * started again, and the keeper catches it up on what it missed.
   */
  private void nodeLoss(LocalCluster cluster, ParityClient client,
      CheckpointWorkload.Options options, String ckpt) throws IOException {
    Across across = client.namespace().getStatus(ckpt).layout().across();
    if (across.isNone() || cluster.shape().nodes() < 2) {
      heading("7/7", "a storage node lost during the restore: skipped, the checkpoint has no"
          + " protection across nodes (a cluster made before it was the default: parityfs"
          + " setstripe --across ec:2+1 / gives new files one)");
      return;
    }
    int victim = cluster.shape().nodes() - 1;
    heading("7/7", "storage node " + cluster.nodeName(victim) + " is killed (SIGKILL) during"
        + " the restore: the checkpoint is " + across + " across nodes, so its chunks there"
        + " come from the other nodes; then the node comes back");
    // killed from the progress ticker (not a reader) once a quarter is read; a restore too
    // short for a tick to see it mid-way is read again with the node down
    AtomicReference<Double> killedAt = new AtomicReference<>();
    AtomicReference<IOException> killFailed = new AtomicReference<>();
    Progress shown = progress();
    Progress withKill = snap -> {
      shown.update(snap);
      if (killedAt.get() == null && snap.bytesDone() * 4 >= snap.bytesTotal()) {
        killedAt.set(snap.bytesTotal() == 0 ? 1.0 : snap.bytesDone() / (double) snap.bytesTotal());
        try {
          cluster.killNode(victim);
        } catch (IOException e) {
          killFailed.set(e);
        }
      }
    };
    PhaseResult r = CheckpointWorkload.run(client, options.toBuilder().restoreOnly(true).build(),
        withKill).phase("read");
    if (killFailed.get() != null) {
      throw killFailed.get();
    }
    if (killedAt.get() == null) {
      throw new IOException("the restore ended before " + cluster.nodeName(victim)
          + " could be killed");
    }
    if (killedAt.get() < 1.0) {
      out.printf(Locale.ROOT, "  %s was killed %.0f%% into the restore; every byte was still"
          + " read and compared%n", cluster.nodeName(victim), 100 * killedAt.get());
      record("restore (a storage node killed)", r);
    } else {
      out.println("  the restore ended before a progress tick saw it mid-way, and "
          + cluster.nodeName(victim) + " was killed at its end; restoring again with it down");
      record("restore (a storage node down)", restore(client, options));
    }
    // written while the node is down: the file's repair record names what it left out there
    String during = ckpt + "/written-while-" + cluster.nodeName(victim) + "-was-down";
    byte[] bytes;
    try (PfsOutputStream o = client.create(during, CreateOptions.file())) {
      // one whole ec group: every member of it holds bytes, so the down node misses one
      // whatever the rotation (a file of less than a chunk left some runs nothing to miss)
      Layout l = o.file().layout();
      bytes = new byte[Math.toIntExact(l.chunkSize() * Math.max(1, l.across().data()))];
      new Random(during.hashCode()).nextBytes(bytes);
      o.write(bytes);
    }
    long missed = client.namespace().getStatus(during).repairs().members();
    out.println("  wrote " + during + " (" + Sizes.human(bytes.length) + ") with the node down:"
        + " its repair record names " + missed + " members left out on "
        + cluster.nodeName(victim));
    out.println("$ parityfs local start   # brings the killed node back");
    cluster.start(Duration.ofMinutes(3), m -> out.println("  " + m));
    catchUp(client, during, missed, cluster.nodeName(victim));
    try (PfsInputStream in = client.open(during)) {
      if (!Arrays.equals(bytes, in.readAllBytes())) {
        throw new IOException(during + " read back differs from what was written");
      }
    }
    out.println("  every byte of it read back and compared");
    cli(cluster, "targets");
  }

  /**
   * Waits for the local cluster's keeper to catch {@code path} up (its repair record empty);
   * runs the catch-up itself, saying so, when the keeper has not done it in three rounds.
   */
  private void catchUp(ParityClient client, String path, long missed, String node)
      throws IOException {
    long t0 = System.nanoTime();
    long deadline = t0 + Duration.ofSeconds(3L * LocalCluster.KEEPER_INTERVAL_S + 5).toNanos();
    while (!client.namespace().getStatus(path).repairs().isEmpty()
        && System.nanoTime() < deadline) {
      ProcessSupervisor.sleep(250);
    }
    if (client.namespace().getStatus(path).repairs().isEmpty()) {
      out.printf(Locale.ROOT, "  the keeper caught %s up %.1f s after it was back: %d members"
          + " stored again from the other nodes, only what it missed%n", node,
          (System.nanoTime() - t0) / 1e9, missed);
      return;
    }
    Repairer.Outcome o = new Repairer(client).repair(path);
    if (o.waiting() > 0 || o.repaired() == 0) {
      throw new IOException("catch-up of " + path + " stored " + o.repaired() + " of " + missed
          + " members, " + o.waiting() + " still waiting for " + node);
    }
    out.println("  the keeper did not catch " + node + " up in time (is it running? parityfs"
        + " local status); parityfs repair did: " + o.repaired() + " members");
  }

  private PhaseResult restore(ParityClient client, CheckpointWorkload.Options options)
      throws IOException {
    return CheckpointWorkload.run(client, options.toBuilder().restoreOnly(true).build(),
        progress()).phase("read");
  }

  /** Runs {@code parityfs <args>} against the cluster in this JVM, printing it first. */
  private void cli(LocalCluster cluster, String... args) throws IOException {
    out.println("$ parityfs " + String.join(" ", args));
    out.flush();
    List<String> all = new ArrayList<>(cluster.cliOptions());
    all.addAll(List.of("--user", "root"));
    all.addAll(List.of(args));
    CommandLine cl = ParityFsMain.commandLine(System.out, System.err, terminal);
    cl.setOut(out);
    cl.setErr(spec.commandLine().getErr());
    int rc = cl.execute(all.toArray(String[]::new));
    if (rc != 0) {
      throw new IOException("parityfs " + String.join(" ", args) + " exited with " + rc);
    }
  }

  /** The folder of drive {@code slot} of {@code target}, from its node's array status. */
  private static String drivePath(ParityClient client, TargetInfo target, int slot)
      throws IOException {
    JsonNode status = new ObjectMapper().readTree(client.nodes().admin().arrayStatus(
        target.socketAddress(), TargetId.of(target.id())));
    for (JsonNode t : status.path("targets")) {
      for (JsonNode d : t.path("id").asText().equals(target.id()) ? t.path("drives")
          : List.<JsonNode>of()) {
        if (d.path("slot").asInt() == slot) {
          return d.path("path").asText();
        }
      }
    }
    throw new IOException("target " + target.id() + " reports no drive in slot " + slot);
  }

  private static void emptyFolder(Path folder) throws IOException {
    try (Stream<Path> all = Files.walk(folder)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(folder)) {
          Files.delete(p);
        }
      }
    }
  }

  private Progress progress() {
    ProgressLine line = new ProgressLine(out, terminal);
    return s -> {
      line.update("  " + s.phase(), s.bytesDone(), s.bytesTotal(), s.bytesPerSecond(),
          s.etaSeconds(), null);
      if (s.finished()) {
        line.finish();
      }
    };
  }

  private void record(String what, PhaseResult p) {
    String line = String.format(Locale.ROOT, "%s in %.1f s: %.0f MB/s", Sizes.human(p.bytes()),
        p.seconds(), p.megabytesPerSecond());
    out.println("  " + what + ": " + line);
    summary.add(new String[] {what, line});
  }

  private void heading(String step, String what) {
    out.println();
    out.println("== " + step + " " + what);
    out.flush();
  }
}
