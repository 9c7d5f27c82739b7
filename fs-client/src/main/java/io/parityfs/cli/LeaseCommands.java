package io.parityfs.cli;

import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** What releases a file's write lease by path: {@code recover-lease}. */
final class LeaseCommands {
  private LeaseCommands() {}

  /** {@code recover-lease PATH...}: lease recovery through {@code Namespace.recoverLease}. */
  @Command(name = "recover-lease", description = {"Close files left open for writing: a writer"
      + " that died, or whose write failed and still holds the file (EBUSY through a mount).",
      "The file is closed at what its storage targets hold (lease recovery, as a cluster"
          + " manager does for dead writers); a live writer's lease is revoked, its next flush"
          + " or close fails with LEASE_EXPIRED. A closed file is left as it is."})
  static final class RecoverLease extends CliCommand {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "files")
    List<String> paths;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      for (String path : paths) {
        each(s, path, () -> {
          FileStatus before = ns.getStatus(path);
          if (before.isDirectory()) {
            throw new CliException(ExitStatus.FAILED, path, "IS_A_DIRECTORY: not a file");
          }
          String writer = before.writer();
          if (writer != null) {
            s.client().recoverLease(path); // PERMISSION_DENIED and the like: reported
          }
          FileStatus after = ns.getStatus(path);
          if (s.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", after.path());
            m.put("recovered", writer != null);
            m.put("writer", writer);
            m.put("closed", !after.isOpenForWrite());
            m.put("length", after.length());
            m.put("version", after.version());
            s.printJson(m);
            return;
          }
          String where = Printable.of(after.path());
          if (writer == null) {
            s.out().println(where + ": not open for writing; " + after.length() + " bytes");
          } else {
            s.out().println(where + ": lease of " + Printable.of(writer) + " recovered; closed at "
                + after.length() + " bytes (version " + after.version() + ")");
          }
          s.out().flush();
        });
      }
    }
  }
}
