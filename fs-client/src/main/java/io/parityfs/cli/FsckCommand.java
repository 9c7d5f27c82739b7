package io.parityfs.cli;

import io.parityfs.keeper.FileWalk;
import io.parityfs.keeper.GroupCheck;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code fsck [PATH...]}: the state of every group of every file with a policy across nodes
 * ({@link GroupCheck}; docs/across-nodes.md, "Checking groups"). Read only.
 */
@Command(name = "fsck", description = {"Check the protection across nodes of files: for every"
    + " group of every file with an ec or mirror policy, whether it is protected, under-protected"
    + " (catch-up or a node's return heals it), torn, unavailable or unrecoverable.",
    "Reads no data (stats members only). Exit 0: every group protected; 6: some under-protected"
        + " or unavailable; 1: some torn or unrecoverable."})
final class FsckCommand extends CliCommand {
  @Parameters(paramLabel = "PATH", arity = "0..*", description = "files or directories"
      + " (walked); default /")
  List<String> paths;

  @Option(names = "--repair", description = "hand what catch-up can heal to it: members found"
      + " missing or of another round that no repair record names are added to their files'"
      + " records, and the files caught up (closed files; the groups are then checked again)")
  boolean repair;

  private long repairedMembers;

  private long files;
  private long checked;
  private final Map<GroupCheck.State, Long> totals = new EnumMap<>(GroupCheck.State.class);
  private final List<Map<String, Object>> problems = new ArrayList<>();
  private long lastProgress = System.nanoTime();

  @Override
  void run(Session s) throws CliException {
    Namespace ns = s.client().namespace();
    GroupCheck check = new GroupCheck(s.client());
    for (String path : paths == null || paths.isEmpty() ? List.of("/") : paths) {
      each(s, path, () -> FileWalk.files(ns, ns.getStatus(path), f -> {
        files++;
        each(s, f.path(), () -> one(s, check, f));
        progress(s);
      }));
    }
    long groups = totals.values().stream().mapToLong(Long::longValue).sum();
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("files", files);
      m.put("filesChecked", checked);
      m.put("groups", groups);
      for (GroupCheck.State st : GroupCheck.State.values()) {
        m.put(name(st), totals.getOrDefault(st, 0L));
      }
      m.put("repaired", repairedMembers);
      m.put("problems", problems);
      s.printJson(m);
    } else {
      StringBuilder b = new StringBuilder("checked " + files + (files == 1 ? " file" : " files")
          + " (" + checked + " with a policy across nodes), " + groups + " groups:");
      for (GroupCheck.State st : GroupCheck.State.values()) {
        b.append(' ').append(totals.getOrDefault(st, 0L)).append(' ')
            .append(st.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')).append(',');
      }
      b.setLength(b.length() - 1);
      s.out().println(b);
    }
    s.out().flush();
    long bad = totals.getOrDefault(GroupCheck.State.TORN, 0L)
        + totals.getOrDefault(GroupCheck.State.UNRECOVERABLE, 0L);
    long waiting = totals.getOrDefault(GroupCheck.State.UNDER_PROTECTED, 0L)
        + totals.getOrDefault(GroupCheck.State.UNAVAILABLE, 0L);
    if (bad > 0) {
      report(s, new CliException(ExitStatus.FAILED, null, bad + " groups are torn or"
          + " unrecoverable (listed above)"));
    } else if (waiting > 0) {
      report(s, new CliException(ExitStatus.UNAVAILABLE, null, waiting + " groups are"
          + " under-protected or unavailable: catch-up (parityfs repair, the keeper) or their"
          + " nodes' return heals them"));
    }
  }

  private void one(Session s, GroupCheck check, FileStatus f)
      throws java.io.IOException, CliException {
    GroupCheck.Report r = check.check(f);
    if (r.groups() == 0) {
      return;
    }
    if (repair && !f.isOpenForWrite() && heal(s, f, r)) {
      r = check.check(s.client().namespace().getStatus(f.path()));
    }
    checked++;
    r.counts().forEach((st, n) -> totals.merge(st, n, Long::sum));
    if (r.findings().isEmpty()) {
      return;
    }
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("path", f.path());
      m.put("policy", r.policy());
      m.put("worst", name(r.worst()));
      List<Map<String, Object>> groups = new ArrayList<>();
      for (GroupCheck.Finding g : r.findings()) {
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("group", g.group());
        one.put("state", name(g.state()));
        one.put("detail", g.detail());
        groups.add(one);
      }
      m.put("groups", groups);
      problems.add(m);
      return;
    }
    for (GroupCheck.Finding g : r.findings()) {
      s.out().println(Printable.of(f.path()) + ": group " + g.group() + " " + g.state() + ": "
          + g.detail());
    }
  }

  /**
   * Adds the unrecorded members of {@code r}'s findings to {@code f}'s repair record and
   * catches the file up; whether it did.
   */
  private boolean heal(Session s, FileStatus f, GroupCheck.Report r)
      throws java.io.IOException, CliException {
    Repairer.HandOff h = new Repairer(s.client()).handOff(f, r);
    if (h == null) {
      return false;
    }
    Repairer.Outcome o = h.outcome();
    repairedMembers += o.repaired();
    if (!s.json()) {
      s.out().println(Printable.of(f.path()) + ": " + h.members() + " members handed to"
          + " catch-up, " + o.repaired() + " stored again" + (o.skipped() == null ? ""
          : "; " + o.skipped()));
    }
    return true;
  }

  /** A line on stderr every 2 s of a long walk. */
  private void progress(Session s) {
    long now = System.nanoTime();
    if (now - lastProgress >= 2_000_000_000L) {
      lastProgress = now;
      s.err().println("fsck: " + files + " files walked, " + checked + " checked");
      s.err().flush();
    }
  }

  private static String name(GroupCheck.State st) {
    String[] words = st.name().toLowerCase(java.util.Locale.ROOT).split("_");
    StringBuilder b = new StringBuilder(words[0]);
    for (int i = 1; i < words.length; i++) {
      b.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
    }
    return b.toString();
  }
}
