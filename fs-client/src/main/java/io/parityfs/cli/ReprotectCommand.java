package io.parityfs.cli;

import io.parityfs.keeper.Reprotector;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.Retirements;
import io.parityfs.meta.targets.Standing;
import io.parityfs.meta.targets.TargetInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code reprotect --node NODE | --target TARGET... [PATH...]}: re-protection of the files whose
 * layouts use targets lost for good ({@link Reprotector}, docs/across-nodes.md §5).
 */
@Command(name = "reprotect", description = {"Rebuild what lost storage targets held onto"
    + " others: every closed file under PATH (default /) whose layout uses one is moved to a"
    + " replacement target, most endangered files first, its layout switched atomically.",
    "For targets that will not come back (a node whose drives or chassis are gone). Files"
        + " open for writing, or written meanwhile, are left for the next pass (exit 6); files"
        + " without protection across nodes cannot be rebuilt (exit 1). The targets are"
        + " marked bad: nothing new is placed on them.",
    "With --watch, follows the progress of a re-protection running elsewhere (the keeper,"
        + " another reprotect) instead."})
final class ReprotectCommand extends CliCommand {
  @Option(names = "--node", paramLabel = "NODE", description = "every target of this node")
  String node;

  @Option(names = "--target", paramLabel = "TARGET", description = "a lost target (repeatable)")
  List<String> targets = new ArrayList<>();

  @Option(names = "--rate", paramLabel = "BYTES", description = "write at most this many bytes"
      + " a second (K, M, G suffixes; default unthrottled)")
  String rate;

  @Parameters(paramLabel = "PATH", arity = "0..*", description = "where to look (default /)")
  List<String> paths = new ArrayList<>();

  @Mixin
  WatchOptions watch = new WatchOptions();

  @Override
  void run(Session s) throws CliException, IOException {
    Set<String> lost = new LinkedHashSet<>(targets);
    if (node != null) {
      lost.addAll(MoveCommands.nodeTargets(s, node));
    }
    if (lost.isEmpty()) {
      throw new CliException(ExitStatus.USAGE, null, "name the lost targets: --node NODE or"
          + " --target TARGET");
    }
    if (watch.watch) {
      // follow a re-protection running elsewhere (another reprotect, the keeper)
      MoveCommands.watch(this, s, lost, watch.period(s));
      return;
    }
    Retirements r = new Retirements(s.client().registry());
    for (String t : lost) {
      Optional<TargetInfo> info = s.client().registry().target(t);
      if (info.isEmpty()) {
        throw new CliException(ExitStatus.NOT_FOUND, t, "no such target in the registry");
      }
      if (info.get().reachability() == Reachability.ONLINE) {
        throw new CliException(ExitStatus.CONFLICT, t, "ONLINE: re-protection rebuilds what"
            + " targets that are gone held; stop the node first (or drain it: node drain)");
      }
    }
    for (String t : lost) {
      if (s.client().registry().target(t).orElseThrow().standing() != Standing.BAD) {
        r.retire(t, Standing.BAD, "re-protected by " + System.getProperty("user.name", "?"));
      }
    }
    MoveCommands.pass(this, s, lost, false, rate == null ? 0 : Sizes.parse(rate), paths);
  }
}
