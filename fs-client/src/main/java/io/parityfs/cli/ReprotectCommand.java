package io.parityfs.cli;

import io.parityfs.client.Reprotector;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.targets.TargetInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
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
        + " without protection across nodes cannot be rebuilt (exit 1)."})
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

  @Override
  void run(Session s) throws CliException {
    Set<String> lost = new LinkedHashSet<>(targets);
    if (node != null) {
      for (TargetInfo t : s.client().registry().targets()) {
        if (t.nodeId().equals(node)) {
          lost.add(t.id());
        }
      }
      if (lost.size() == targets.size()) {
        throw new CliException(ExitStatus.NOT_FOUND, node, "no target of node " + node
            + " in the registry");
      }
    }
    if (lost.isEmpty()) {
      throw new CliException(ExitStatus.USAGE, null, "name the lost targets: --node NODE or"
          + " --target TARGET");
    }
    for (String t : lost) {
      java.util.Optional<TargetInfo> info = s.client().registry().target(t);
      if (info.isPresent()
          && info.get().reachability() == io.parityfs.meta.targets.Reachability.ONLINE) {
        throw new CliException(ExitStatus.CONFLICT, t, "ONLINE: re-protection rebuilds what"
            + " targets that are gone held; stop the node first");
      }
    }
    long bytesPerSecond = rate == null ? 0 : Sizes.parse(rate);
    List<FileStatus> todo = new ArrayList<>();
    Namespace ns = s.client().namespace();
    for (String path : paths.isEmpty() ? List.of("/") : paths) {
      each(s, path, () -> FileWalk.files(ns, ns.getStatus(path), f -> {
        if (Reprotector.uses(f, lost)) {
          todo.add(f);
        }
      }));
    }
    // the files with the fewest members to spare first
    todo.sort(Comparator.comparingInt(f -> Reprotector.margin(f, lost)));
    Reprotector r = s.client().reprotector(bytesPerSecond);
    long moved = 0;
    long members = 0;
    long bytes = 0;
    long left = 0;
    long failed = 0;
    long begin = System.nanoTime();
    for (int i = 0; i < todo.size(); i++) {
      FileStatus f = todo.get(i);
      Reprotector.Outcome[] got = new Reprotector.Outcome[1];
      each(s, f.path(), () -> got[0] = r.reprotect(f.path(), lost));
      Reprotector.Outcome o = got[0];
      if (o == null) {
        failed++;
        continue;
      }
      moved += o.moved();
      members += o.members();
      bytes += o.bytes();
      if (o.skipped() != null) {
        boolean unprotected = f.layout().across().isNone();
        failed += unprotected ? 1 : 0;
        left += unprotected ? 0 : 1;
        if (!s.json()) {
          s.err().println(Printable.of("parityfs: reprotect: " + f.path() + ": " + o.skipped()));
          s.err().flush();
        }
      }
      if (!s.json()) {
        double secs = Math.max(1e-9, (System.nanoTime() - begin) / 1e9);
        s.out().println("[" + (i + 1) + "/" + todo.size() + "] " + Printable.of(f.path()) + ": "
            + o.members() + " members rebuilt" + (o.moved() > 0 ? ", layout switched" : "")
            + "; " + Sizes.human(bytes) + " so far at " + Sizes.rate(bytes / secs));
        s.out().flush();
      }
    }
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("lost", List.copyOf(lost));
      m.put("files", todo.size());
      m.put("moved", moved);
      m.put("members", members);
      m.put("bytes", bytes);
      m.put("leftForLater", left);
      m.put("failed", failed);
      s.printJson(m);
    } else {
      s.out().println("reprotect: " + todo.size() + " files on " + lost.size() + " lost "
          + (lost.size() == 1 ? "target" : "targets") + ": " + moved + " moved, " + members
          + " members rebuilt (" + Sizes.human(bytes) + "), " + left + " left for later, "
          + failed + " failed");
    }
    s.out().flush();
    if (failed > 0) {
      report(s, new CliException(ExitStatus.FAILED, null, failed + " files cannot be rebuilt"));
    } else if (left > 0) {
      report(s, new CliException(ExitStatus.UNAVAILABLE, null, left + " files were left for"
          + " later: run reprotect again once they are closed"));
    }
  }
}
