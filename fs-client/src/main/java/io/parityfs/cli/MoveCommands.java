package io.parityfs.cli;

import io.parityfs.keeper.AcrossKeeper;
import io.parityfs.keeper.MovePass;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.registry.MoveProgress;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.Retirements;
import io.parityfs.meta.targets.Standing;
import io.parityfs.meta.targets.TargetInfo;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Moving files off targets (docs/across-nodes.md §5): the pass that {@code reprotect}, {@code
 * node drain} and {@code node remove} share ({@link MovePass}), its lines and summary, {@code
 * --watch} of the progress records, and the {@code node} group.
 */
final class MoveCommands {
  private MoveCommands() {}

  /** The targets of node {@code arg} (its id, or a prefix only it has). */
  static Set<String> nodeTargets(Session s, String arg) throws CliException {
    Set<String> nodes = new LinkedHashSet<>();
    for (TargetInfo t : s.client().registry().targets()) {
      if (t.nodeId().equals(arg)) {
        nodes = new LinkedHashSet<>(List.of(arg));
        break;
      }
      if (t.nodeId().startsWith(arg)) {
        nodes.add(t.nodeId());
      }
    }
    if (nodes.isEmpty()) {
      throw new CliException(ExitStatus.NOT_FOUND, arg, "NOT_FOUND: no node in the registry has"
          + " this id or id prefix (see parityfs nodes)");
    }
    if (nodes.size() > 1) {
      throw new CliException(ExitStatus.USAGE, arg, "INVALID_ARGUMENT: " + nodes.size()
          + " nodes have this id prefix: " + nodes);
    }
    String node = nodes.iterator().next();
    Set<String> out = new LinkedHashSet<>();
    for (TargetInfo t : s.client().registry().targets()) {
      if (t.nodeId().equals(node)) {
        out.add(t.id());
      }
    }
    return out;
  }

  /**
   * Runs a pass over the files under {@code roots} using {@code targets}, a line per file and a
   * summary ({@code --json}: the totals); reports what is left (exit 6) or failed (exit 1).
   */
  static MovePass.Summary pass(CliCommand cmd, Session s, Set<String> targets, boolean drain,
      long rate, List<String> roots) throws CliException, IOException {
    String name = drain ? "drain" : "reprotect";
    MovePass pass = new MovePass(s.client(), targets, drain, rate).waitingForLocks(
        s.client().config().zooKeeper().sessionTimeout().plusSeconds(5), m -> {
          s.err().println(Printable.of("parityfs: " + name + ": " + m));
          s.err().flush();
        });
    List<FileStatus> files = pass.find(roots.isEmpty() ? List.of("/") : roots);
    String verb = drain ? "copied" : "rebuilt";
    for (FileStatus d : pass.pinned()) {
      s.err().println(Printable.of("parityfs: " + name + ": " + d.path() + ": its layout names "
          + targets.stream().filter(d.layout().targets()::contains).toList() + ": new files"
          + " there are refused until it names other targets (parityfs setstripe)"));
    }
    long begin = System.nanoTime();
    MovePass.Summary sum = pass.run(files, (i, of, f, o, error, soFar) -> {
      if (s.json()) {
        return;
      }
      if (error != null) {
        cmd.report(s, CliException.of(f.path(), error));
        return;
      }
      if (o.skipped() != null) {
        s.err().println(Printable.of("parityfs: " + name + ": " + f.path() + ": "
            + o.skipped()));
        s.err().flush();
      }
      double secs = Math.max(1e-9, (System.nanoTime() - begin) / 1e9);
      s.out().println("[" + i + "/" + of + "] " + Printable.of(f.path()) + ": " + o.members()
          + " members " + verb + (o.moved() > 0 ? ", layout switched" : "") + "; "
          + Sizes.human(soFar.bytes()) + " so far at " + Sizes.rate(soFar.bytes() / secs));
      s.out().flush();
    }, () -> true);
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put(drain ? "draining" : "lost", List.copyOf(targets));
      m.put("files", sum.files());
      m.put("moved", sum.moved());
      m.put("members", sum.members());
      m.put("bytes", sum.bytes());
      m.put("leftForLater", sum.leftForLater());
      m.put("noReplacement", sum.noReplacement());
      m.put("failed", sum.failed());
      m.put("pinnedDirectories", pass.pinned().stream().map(FileStatus::path).toList());
      s.printJson(m);
    } else {
      s.out().println(name + ": " + sum.files() + " files on " + targets.size() + " "
          + (drain ? "draining" : "lost") + " " + (targets.size() == 1 ? "target" : "targets")
          + ": " + sum.moved() + " moved, " + sum.members() + " members " + verb + " ("
          + Sizes.human(sum.bytes()) + "), " + sum.leftForLater() + " left for later, "
          + sum.failed() + " failed");
    }
    s.out().flush();
    if (sum.failed() > 0) {
      cmd.report(s, new CliException(ExitStatus.FAILED, null, sum.failed()
          + " files cannot be moved"));
    } else if (sum.noReplacement() > 0) {
      cmd.report(s, new CliException(ExitStatus.UNAVAILABLE, null, sum.noReplacement()
          + " files have no target that can take their members (" + sum.why() + "): a file"
          + " of ec:K+M needs K+M failure domains, and one more to be re-protected after a"
          + " node is lost; add a node (or a target in another failure domain) and run it"
          + " again" + (sum.leftForLater() > sum.noReplacement() ? "; "
          + (sum.leftForLater() - sum.noReplacement()) + " more were left for later (open"
          + " for writing or written meanwhile)" : "")));
    } else if (sum.leftForLater() > 0) {
      cmd.report(s, new CliException(ExitStatus.UNAVAILABLE, null, sum.leftForLater()
          + " files were left for later (open for writing or written meanwhile): run it"
          + " again once they are closed"));
    }
    return sum;
  }

  /**
   * Follows the progress records of {@code targets} until every one says done (a pass run
   * elsewhere: another CLI, the keeper); one line per target and poll, and each target's final
   * line once, when its record first says done. Files a finished pass left (open for writing,
   * written meanwhile, without a replacement) end it with UNAVAILABLE (exit 6), as the pass
   * itself does, naming how many; a watch interrupted before the end says so (exit 1).
   */
  static void watch(CliCommand cmd, Session s, Set<String> targets, double period)
      throws CliException, IOException {
    Retirements r = new Retirements(s.client().registry());
    Map<String, MoveProgress> finished = new LinkedHashMap<>();
    while (true) {
      boolean allDone = true;
      for (String t : targets) {
        if (finished.containsKey(t)) {
          continue;
        }
        Optional<MoveProgress> p = r.progress(t);
        if (p.isEmpty()) {
          s.out().println(t + ": no move recorded yet");
          allDone = false;
          continue;
        }
        MoveProgress m = p.get();
        double secs = Math.max(1e-3, (m.updatedMillis() - m.startedMillis()) / 1e3);
        s.out().println(t + ": " + m.kind() + (m.done() ? " done" : " running") + ": "
            + m.filesMoved() + " files moved, " + m.filesLeft() + " left, " + m.members()
            + " members, " + Sizes.human(m.bytes()) + " at " + Sizes.rate(m.bytes() / secs)
            + " (" + m.mover() + ", updated " + Instant.ofEpochMilli(m.updatedMillis()) + ")");
        if (m.done()) {
          finished.put(t, m);
        } else {
          allDone = false;
        }
      }
      s.out().flush();
      if (allDone) {
        break;
      }
      try {
        Thread.sleep((long) (period * 1000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException(ExitStatus.FAILED, null, "interrupted before the pass finished");
      }
    }
    long left = finished.values().stream().mapToLong(MoveProgress::filesLeft).sum();
    if (left > 0) {
      cmd.report(s, new CliException(ExitStatus.UNAVAILABLE, null, left + " files were left"
          + " unprotected by the pass: run it again once they are closed, or see why with"
          + " `parityfs reprotect` (it names each file)"));
    }
  }

  /** {@code node}: the group; alone it prints its usage. */
  @Command(name = "node", description = "Take a storage node out of service: drain it (copy"
      + " everything off while it runs), remove it (rebuild what it held elsewhere, then drop"
      + " it from the registry), or put it back in service. (`parityfs node start --config"
      + " FILE` runs a storage node: docs/storage-node.md.)", mixinStandardHelpOptions = true,
      subcommands = {Drain.class, Remove.class, Reinstate.class})
  static final class Node implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().usage(spec.commandLine().getErr());
      return ExitStatus.USAGE.code();
    }
  }

  /** {@code node drain NODE}. */
  @Command(name = "drain", description = {"Decommission a live node: mark its targets draining"
      + " (no new file is placed on them), then copy every file's members off them onto other"
      + " targets and switch each layout after the copy, so protection never drops.",
      "Resumable: run it again to move what was left (files open for writing: exit 6)."})
  static final class Drain extends CliCommand {
    @Parameters(index = "0", paramLabel = "NODE", description = "node id or unique prefix")
    String node;

    @Option(names = "--rate", paramLabel = "BYTES", description = "write at most this many"
        + " bytes a second (K, M, G suffixes; default unthrottled)")
    String rate;

    @Override
    void run(Session s) throws CliException, IOException {
      Set<String> targets = nodeTargets(s, node);
      Retirements r = new Retirements(s.client().registry());
      for (String t : targets) {
        TargetInfo info = s.client().registry().target(t).orElseThrow();
        if (info.standing() == Standing.BAD) {
          throw new CliException(ExitStatus.CONFLICT, t, "declared bad (" + info.standingReason()
              + "): its members are rebuilt, not copied (node remove), or reinstate it first");
        }
        r.retire(t, Standing.DRAINING, "drained by " + System.getProperty("user.name", "?"));
      }
      MovePass.Summary sum = pass(this, s, targets, true, rate == null ? 0 : Sizes.parse(rate),
          List.of());
      if (sum.complete() && !s.json()) {
        s.out().println("node " + node + " drained: no file uses its targets; stop it, then"
            + " run parityfs node remove " + node);
      }
    }
  }

  /** {@code node remove NODE}. */
  @Command(name = "remove", description = {"Declare a node lost for good: mark its targets bad,"
      + " rebuild every member they held onto other targets from the other members of its"
      + " group, then remove the node and its targets from the registry.",
      "The node must be down (a live node is drained first). Resumable: run it again while"
          + " files are left (exit 6)."})
  static final class Remove extends CliCommand {
    @Parameters(index = "0", paramLabel = "NODE", description = "node id or unique prefix")
    String node;

    @Option(names = "--rate", paramLabel = "BYTES", description = "write at most this many"
        + " bytes a second (K, M, G suffixes; default unthrottled)")
    String rate;

    @Override
    void run(Session s) throws CliException, IOException {
      Set<String> targets = nodeTargets(s, node);
      for (String t : targets) {
        if (s.client().registry().target(t).orElseThrow().reachability()
            == Reachability.ONLINE) {
          throw new CliException(ExitStatus.CONFLICT, t, "ONLINE: stop the node first (drain"
              + " it before, to move its data off without lowering protection)");
        }
      }
      Retirements r = new Retirements(s.client().registry());
      for (String t : targets) {
        if (s.client().registry().target(t).orElseThrow().standing() != Standing.BAD) {
          r.retire(t, Standing.BAD, "removed by " + System.getProperty("user.name", "?"));
        }
      }
      MovePass.Summary sum = pass(this, s, targets, false, rate == null ? 0
          : Sizes.parse(rate), List.of());
      if (!sum.complete()) {
        return;
      }
      for (String t : targets) {
        r.removeRecords(t);
      }
      if (!s.json()) {
        s.out().println("node " + node + " removed: " + targets.size() + " targets out of the"
            + " registry (their retirement marks stay, should the node come back)");
      }
    }
  }

  /** {@code node reinstate NODE}. */
  @Command(name = "reinstate", description = {"Put a draining or bad node's targets back in"
      + " service (new files may be placed on them again).", "A bad target must be online: what"
      + " it holds of files that moved off it (re-protected elsewhere) is deleted first."})
  static final class Reinstate extends CliCommand {
    @Parameters(index = "0", paramLabel = "NODE", description = "node id or unique prefix")
    String node;

    @Override
    void run(Session s) throws CliException, IOException {
      Set<String> targets = nodeTargets(s, node);
      Retirements r = new Retirements(s.client().registry());
      List<String> back = new ArrayList<>();
      for (String t : targets) {
        TargetInfo info = s.client().registry().target(t).orElseThrow();
        if (info.standing() == Standing.BAD) {
          // its members of files re-protected elsewhere are garbage now: deleted first
          if (info.reachability() != Reachability.ONLINE) {
            throw new CliException(ExitStatus.CONFLICT, t, "bad and " + info.reachability()
                + ": start its node first (reinstating a bad target deletes what it holds of"
                + " files that moved off it)");
          }
          long wiped = new MovePass(s.client(), Set.of(t), false, 0).wipeUnused(t);
          if (!s.json()) {
            s.out().println(t + ": " + wiped + " chunks of files that moved off it deleted");
          }
        }
        if (r.reinstate(t)) {
          back.add(t);
        }
      }
      if (!s.json()) {
        s.out().println(back.isEmpty() ? "node " + node + ": every target was in service"
            : "node " + node + ": " + back.size() + " targets back in service");
      } else {
        s.printJson(Map.of("reinstated", back));
      }
    }
  }

  /** {@code keeper}: the daemon that makes catch-up, re-protection and drains automatic. */
  @Command(name = "keeper", description = {"Run the keeper of protection across nodes: every"
      + " interval, catch up the files whose repair records name a target that is back,"
      + " rebuild elsewhere the files on targets declared bad (node remove, or the cluster"
      + " manager's cluster.manager.deadAfter), and finish drains. Several may run; one is"
      + " elected and acts. Runs until stopped (SIGTERM, Ctrl-C) unless --once.",
      "Prints a line per round that did something."})
  static final class Keeper extends CliCommand {
    @Option(names = "--interval", paramLabel = "<seconds>", description = "time between rounds"
        + " (default 30)")
    double interval = 30;

    @Option(names = "--rate", paramLabel = "BYTES", description = "moves write at most this"
        + " many bytes a second (K, M, G suffixes; default unthrottled)")
    String rate;

    @Option(names = "--once", description = "run one round now (leading or not), print it"
        + " and exit")
    boolean once;

    @Option(names = "--check-interval", paramLabel = "<seconds>", description = "also check"
        + " every group of every file across nodes (as fsck) in a round at least this long after"
        + " the last check: counts in the metrics, groups not protected in the log (default"
        + " 3600; 0: never)")
    double checkInterval = 3600;

    @Option(names = "--metrics-port", paramLabel = "<port>", description = "serve /metrics"
        + " (Prometheus) on this port (0: a free one; default: none)")
    Integer metricsPort;

    @Option(names = "--metrics-host", paramLabel = "<host>", description = "the address of"
        + " /metrics (default 127.0.0.1)")
    String metricsHost = "127.0.0.1";

    @Override
    void run(Session s) throws CliException, IOException {
      if (interval <= 0 || interval > 86_400) {
        throw new CliException(ExitStatus.USAGE, null, "--interval (" + interval + ") must be"
            + " in (0, 86400] seconds");
      }
      long bytes = rate == null ? 0 : Sizes.parse(rate);
      if (checkInterval < 0) {
        throw new CliException(ExitStatus.USAGE, null, "--check-interval (" + checkInterval
            + ") must be >= 0 seconds");
      }
      AcrossKeeper keeper = new AcrossKeeper(s.client(),
          Duration.ofMillis((long) (interval * 1000)), bytes).checkEvery(checkInterval == 0
              ? null : Duration.ofMillis((long) (checkInterval * 1000)));
      if (once) {
        print(s, keeper.runOnce(() -> true));
        return;
      }
      keeper.start();
      KeeperMetrics metrics = metricsPort == null ? null
          : KeeperMetrics.start(metricsHost, metricsPort, keeper);
      Thread stop = new Thread(() -> {
        try {
          if (metrics != null) {
            metrics.close();
          }
          keeper.close();
        } catch (IOException e) {
          // leaving the election failed: the session's end removes the latch node
        }
      }, "parityfs-keeper-stop");
      Runtime.getRuntime().addShutdownHook(stop);
      s.err().println("parityfs: keeper running against " + s.zooKeeper().connect() + ", a"
          + " round every " + interval + " s" + (metrics == null ? ""
              : ", metrics at http://" + metricsHost + ":" + metrics.port() + "/metrics"));
      s.err().flush();
      long seen = 0;
      boolean wasLeading = false;
      try {
        while (true) {
          Thread.sleep(1000);
          AcrossKeeper.Status st = keeper.status();
          if (st.leading() != wasLeading) {
            s.err().println("parityfs: keeper " + (st.leading() ? "elected: acting"
                : "not leading: standing by"));
            s.err().flush();
            wasLeading = st.leading();
          }
          if (st.rounds() != seen) {
            seen = st.rounds();
            if (st.lastError() != null) {
              s.err().println(Printable.of("parityfs: keeper: round failed: " + st.lastError()));
              s.err().flush();
            } else if (st.last() != null && (st.last().busy() || st.last().filesLeft() > 0)) {
              print(s, st.last());
            }
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        if (metrics != null) {
          metrics.close();
        }
        keeper.close();
      }
    }

    private static void print(Session s, AcrossKeeper.Round r) {
      if (s.json()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("filesCaughtUp", r.filesCaughtUp());
        m.put("membersCaughtUp", r.membersCaughtUp());
        m.put("filesMoved", r.filesMoved());
        m.put("bytesMoved", r.bytesMoved());
        m.put("filesLeft", r.filesLeft());
        m.put("lostHandedOff", r.lostHandedOff());
        m.put("filesNotCaughtUp", r.filesNotCaughtUp());
        s.printJson(m);
      } else {
        s.out().println(Instant.now() + " keeper: " + r.filesCaughtUp() + " files caught up ("
            + r.membersCaughtUp() + " members), " + r.filesMoved() + " files moved off bad or"
            + " draining targets (" + Sizes.human(r.bytesMoved()) + "), " + r.filesLeft()
            + " left for later, " + r.lostHandedOff() + " lost members handed to catch-up"
            + (r.filesNotCaughtUp() == 0 ? "" : ", " + r.filesNotCaughtUp() + " files not caught"
            + " up (see the log)"));
      }
      s.out().flush();
    }
  }
}
