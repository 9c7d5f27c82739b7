package io.parityfs.cli;

import io.parityfs.keeper.FileWalk;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code repair [-r] PATH...}: catch-up of files whose writes left members out while their
 * nodes were down ({@link Repairer}, docs/across-nodes.md §5).
 */
@Command(name = "repair", description = {"Catch up files written while storage nodes were down:"
    + " store again the members their repair records name, on the targets that are back, and"
    + " empty the records.",
    "Only what the records name is written. Files open for writing are left for later; members"
        + " on targets still down stay recorded (exit 6)."})
final class RepairCommand extends CliCommand {
  @Parameters(paramLabel = "PATH", arity = "1..*", description = "files, or directories with -r")
  List<String> paths;

  @Option(names = {"-r", "--recursive"}, description = "walk directories")
  boolean recursive;

  private long files;
  private long repaired;
  private long waiting;
  private long bytes;
  private long skipped;

  @Override
  void run(Session s) throws CliException {
    Namespace ns = s.client().namespace();
    for (String path : paths) {
      each(s, path, () -> {
        FileStatus top = ns.getStatus(path);
        if (top.isDirectory() && !recursive) {
          throw new CliException(ExitStatus.FAILED, path, "IS_A_DIRECTORY: a directory (-r"
              + " walks it)");
        }
        FileWalk.files(ns, top, f -> {
          files++;
          if (!f.repairs().isEmpty()) {
            each(s, f.path(), () -> one(s, f.path()));
          }
        });
      });
    }
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("files", files);
      m.put("repaired", repaired);
      m.put("waiting", waiting);
      m.put("skipped", skipped);
      m.put("bytes", bytes);
      s.printJson(m);
    } else {
      s.out().println("checked " + files + (files == 1 ? " file" : " files") + ": " + repaired
          + " members caught up (" + Sizes.human(bytes) + "), " + waiting + " waiting for"
          + " their targets, " + skipped + " files left for later");
    }
    s.out().flush();
    if (waiting > 0 || skipped > 0) {
      report(s, new CliException(ExitStatus.UNAVAILABLE, null, waiting + " members wait for"
          + " their targets and " + skipped + " files were left for later: run repair again"
          + " once the targets are back and the files closed"));
    }
  }

  private void one(Session s, String path) throws CliException, IOException {
    Repairer.Outcome o = new Repairer(s.client()).repair(path);
    repaired += o.repaired();
    waiting += o.waiting();
    bytes += o.bytes();
    skipped += o.skipped() == null ? 0 : 1;
    if (s.json()) {
      return;
    }
    s.out().println(Printable.of(path) + ": " + o.repaired() + " members caught up, "
        + o.waiting() + " waiting" + (o.skipped() == null ? "" : "; left for later: "
        + o.skipped()));
    s.out().flush();
  }
}
