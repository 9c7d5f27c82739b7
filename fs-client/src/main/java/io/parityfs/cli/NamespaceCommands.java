package io.parityfs.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.DirectoryPage;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The namespace commands that move no file data: ls, stat, mkdir, rm, mv, du, ln, readlink. */
final class NamespaceCommands {
  static final int PAGE = 1000;
  private static final DateTimeFormatter MTIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

  private NamespaceCommands() {}


  /** {@code dir/name} without doubling the slash of the root. */
  static String child(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }

  /** Calls {@code visit} for each entry of directory {@code path}, a page at a time. */
  static void forEachEntry(Namespace ns, String path, EntryVisitor visit)
      throws NamespaceException, CliException {
    String after = null;
    do {
      DirectoryPage p = ns.list(path, after, PAGE);
      visit.page(p.entries());
      after = p.next();
    } while (after != null);
  }

  interface EntryVisitor {
    void page(List<FileStatus> entries) throws NamespaceException, CliException;
  }

  /** {@code ls [-l] [-R] [-d] [-h] [PATH...]}. */
  @Command(name = "ls", description = "List directories (a file lists as itself).")
  static final class Ls extends CliCommand {
    @Option(names = "-l", description = "long format: mode, owner, group, size, mtime, path")
    boolean long_;

    @Option(names = "-R", description = "recursive")
    boolean recursive;

    @Option(names = "-d", description = "list directories themselves, not their entries")
    boolean directory;

    @Option(names = "-h", description = "sizes in KiB, MiB, ...")
    boolean human;

    @Parameters(paramLabel = "PATH", arity = "0..*", defaultValue = "/",
        description = "namespace paths (default /)")
    List<String> paths;

    private boolean firstJson = true;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      if (s.json()) {
        s.out().print("[");
      }
      for (String path : paths) {
        each(s, path, () -> {
          FileStatus st = ns.getStatus(path);
          if (st.isDirectory() && !directory) {
            list(s, ns, st.path());
          } else {
            emit(s, List.of(st));
          }
        });
      }
      if (s.json()) {
        s.out().println("]");
      }
      s.out().flush();
    }

    private void list(Session s, Namespace ns, String dir) throws NamespaceException,
        CliException {
      forEachEntry(ns, dir, page -> {
        if (!recursive) {
          emit(s, page);
          return;
        }
        for (FileStatus f : page) { // pre-order: an entry, then what is under it
          emit(s, List.of(f));
          if (f.isDirectory()) {
            list(s, ns, f.path());
          }
        }
      });
    }

    private void emit(Session s, List<FileStatus> entries) throws CliException {
      PrintWriter out = s.out();
      if (s.json()) {
        for (FileStatus f : entries) {
          out.print(firstJson ? "" : ",");
          firstJson = false;
          try {
            out.print(Json.MAPPER.writeValueAsString(Json.status(f)));
          } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
          }
        }
        return;
      }
      if (!long_) {
        entries.forEach(f -> out.println(Printable.of(f.path())));
        return;
      }
      Table t = new Table("lllrll", 10, 8, 10, 10, 16);
      for (FileStatus f : entries) {
        t.row(Modes.symbolic(f), f.owner(), f.group(),
            Sizes.of(f.length(), human), MTIME.format(Instant.ofEpochMilli(f.modificationTime())),
            f.isSymlink() ? f.path() + " -> " + Printable.of(f.linkTarget()) : f.path());
      }
      t.print(out);
    }
  }

  /** {@code stat PATH...}. */
  @Command(name = "stat", description = "Show every attribute of paths, layout included.")
  static final class Stat extends CliCommand {
    @Parameters(paramLabel = "PATH", arity = "1..*")
    List<String> paths;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      for (String path : paths) {
        each(s, path, () -> {
          FileStatus f = ns.getStatus(path);
          if (s.json()) {
            s.printJson(Json.status(f));
            return;
          }
          PrintWriter out = s.out();
          out.println("path:        " + Printable.of(f.path()));
          out.println("type:        " + f.type());
          out.println("id:          " + f.id());
          out.println("length:      " + f.length() + " (" + Sizes.human(f.length()) + ")");
          if (f.isSymlink()) {
            out.println("target:      " + Printable.of(f.linkTarget()));
          }
          if (!f.holes().isEmpty()) {
            out.println("stored:      " + f.storedBytes() + " (" + Sizes.human(f.storedBytes())
                + "; sparse, groups never stored: " + f.holes() + ")");
          }
          out.println("version:     " + f.version());
          out.println("modified:    " + Instant.ofEpochMilli(f.modificationTime()) + " ("
              + f.modificationTime() + ")");
          out.println("accessed:    " + Instant.ofEpochMilli(f.accessTime()) + " ("
              + f.accessTime() + ")");
          out.println("owner:       " + f.owner());
          out.println("group:       " + f.group());
          out.println("permission:  " + Modes.octal(f.permission()) + " ("
              + Modes.symbolic(f) + ")");
          StripeCommands.printLayout(out, f, "layout:      ", null);
          out.println("writer:      " + (f.writer() == null ? "- (closed)" : f.writer()));
          if (!f.repairs().isEmpty()) {
            out.println("repairs:     " + f.repairs().members() + " members left out while"
                + " their nodes were down (parityfs repair): " + f.repairs());
          }
          out.flush();
        });
      }
    }
  }

  /** {@code mkdir [-p] PATH...}. */
  @Command(name = "mkdir", description = "Make directories.")
  static final class Mkdir extends CliCommand {
    @Option(names = "-p", description = "make parents as needed; no error if it exists")
    boolean parents;

    @Parameters(paramLabel = "PATH", arity = "1..*")
    List<String> paths;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      for (String path : paths) {
        each(s, path, () -> {
          if (parents) {
            ns.mkdirs(path);
            return;
          }
          try {
            // one level in one multi: ALREADY_EXISTS also when another client just made it
            ns.mkdir(path, CreateOptions.directory());
          } catch (NamespaceException e) {
            if (e.status() == NamespaceStatus.NOT_FOUND) {
              throw new CliException(ExitStatus.NOT_FOUND, path,
                  "NOT_FOUND: parent " + e.path() + " does not exist (use -p)");
            }
            throw e;
          }
        });
      }
    }
  }

  /** {@code rm [-r] [-f] PATH...}. */
  @Command(name = "rm", description = "Remove files, and directories with -r.")
  static final class Rm extends CliCommand {
    @Option(names = {"-r", "-R"}, description = "remove directories and what they hold")
    boolean recursive;

    @Option(names = "-f", description = "no error when a path does not exist")
    boolean force;

    @Parameters(paramLabel = "PATH", arity = "1..*")
    List<String> paths;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      for (String path : paths) {
        each(s, path, () -> {
          FileStatus f = ns.statusOrNull(path);
          if (f == null) {
            if (!force) {
              throw new CliException(ExitStatus.NOT_FOUND, path,
                  "NOT_FOUND: no such file or directory");
            }
            return;
          }
          if (f.isDirectory() && !recursive) {
            throw new CliException(ExitStatus.FAILED, path,
                "IS_A_DIRECTORY: is a directory (use -r)");
          }
          if (!ns.delete(path, recursive)) {
            if (f.path().equals("/")) {
              throw new CliException(ExitStatus.FAILED, path, "INVALID_PATH: the root is"
                  + " never removed");
            }
            if (!force) {
              throw new CliException(ExitStatus.NOT_FOUND, path,
                  "NOT_FOUND: no such file or directory");
            }
          }
        });
      }
    }
  }

  /** {@code ln -s TARGET LINK}. */
  @Command(name = "ln", description = "Make a symbolic link LINK to TARGET (-s; the namespace has"
      + " no hard links).")
  static final class Ln extends CliCommand {
    @Option(names = "-s", required = true, description = "symbolic (the only kind there is)")
    boolean symbolic;

    @Option(names = "-p", description = "make LINK's parent directories as needed")
    boolean parents;

    @Parameters(index = "0", paramLabel = "TARGET", description = "what the link points at, kept"
        + " as given: relative to LINK's directory unless it starts with /; need not exist")
    String target;

    @Parameters(index = "1", paramLabel = "LINK")
    String link;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      each(s, link, () -> ns.createSymlink(target, link, CreateOptions.file()
          .withCreateParents(parents)));
    }
  }

  /** {@code readlink PATH...}. */
  @Command(name = "readlink", description = "Print the targets of symbolic links.")
  static final class ReadLink extends CliCommand {
    @Parameters(paramLabel = "PATH", arity = "1..*")
    List<String> paths;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      for (String path : paths) {
        each(s, path, () -> {
          String t = ns.readLink(path);
          if (s.json()) {
            s.printJson(Map.of("path", path, "target", t));
          } else {
            s.out().println(Printable.of(t));
            s.out().flush();
          }
        });
      }
    }
  }

  /** {@code mv SRC... DST}. */
  @Command(name = "mv", description = "Rename or move; into DST when it is a directory.")
  static final class Mv extends CliCommand {
    @Parameters(paramLabel = "SRC... DST", arity = "2..*",
        description = "sources, then the destination")
    List<String> all;

    @Override
    void run(Session s) throws CliException, IOException {
      Namespace ns = s.client().namespace();
      String dst = all.get(all.size() - 1);
      List<String> sources = all.subList(0, all.size() - 1);
      if (sources.size() > 1) {
        FileStatus d = ns.statusOrNull(dst);
        if (d == null || !d.isDirectory()) {
          throw new CliException(ExitStatus.FAILED, dst,
              "NOT_A_DIRECTORY: moving several sources needs an existing directory");
        }
      }
      for (String src : sources) {
        each(s, src, () -> ns.rename(src, dst));
      }
    }
  }

  /** {@code du [-s] [-h] PATH...}. */
  @Command(name = "du", description = "Sum of file lengths: of each entry of a directory, or"
      + " of each path with -s.")
  static final class Du extends CliCommand {
    @Option(names = "-s", description = "one total per path")
    boolean summary;

    @Option(names = "-h", description = "sizes in KiB, MiB, ...")
    boolean human;

    @Parameters(paramLabel = "PATH", arity = "0..*", defaultValue = "/")
    List<String> paths;

    record Usage(String path, long length, long files, long directories) {}

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      List<Usage> rows = new ArrayList<>();
      for (String path : paths) {
        each(s, path, () -> {
          FileStatus f = ns.getStatus(path);
          if (summary || !f.isDirectory()) {
            rows.add(usage(ns, f));
          } else {
            forEachEntry(ns, f.path(), page -> {
              for (FileStatus e : page) {
                rows.add(usage(ns, e));
              }
            });
          }
        });
      }
      if (s.json()) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Usage u : rows) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("path", u.path());
          m.put("length", u.length());
          m.put("files", u.files());
          m.put("directories", u.directories());
          out.add(m);
        }
        s.printJson(out);
        return;
      }
      Table t = new Table("rl");
      rows.forEach(u -> t.row(Sizes.of(u.length(), human), u.path()));
      t.print(s.out());
    }

    private static Usage usage(Namespace ns, FileStatus f) throws NamespaceException,
        CliException {
      if (!f.isDirectory()) {
        return new Usage(f.path(), f.length(), 1, 0);
      }
      long[] sum = {0, 0, 1};
      walk(ns, f.path(), sum);
      return new Usage(f.path(), sum[0], sum[1], sum[2]);
    }

    private static void walk(Namespace ns, String dir, long[] sum) throws NamespaceException,
        CliException {
      forEachEntry(ns, dir, page -> {
        for (FileStatus e : page) {
          if (e.isDirectory()) {
            sum[2]++;
            walk(ns, e.path(), sum);
          } else {
            sum[0] += e.length();
            sum[1]++;
          }
        }
      });
    }
  }
}
