package io.parityfs.cli;

import io.parityfs.meta.Across;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.targets.TargetPlacement;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.meta.targets.TargetRegistry;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Layouts, in the manner of {@code lfs setstripe} / {@code lfs getstripe}: a directory's default
 * layout (new children inherit it) or an empty file's layout.
 */
final class StripeCommands {
  private StripeCommands() {}

  /** Prints a layout; a file's targets with their node address when {@code registry} is given. */
  static void printLayout(PrintWriter out, FileStatus f, String heading, TargetRegistry registry) {
    Layout l = f.layout();
    if (l == null) {
      out.println(heading + "-");
      return;
    }
    out.println(heading + "chunk " + Sizes.human(l.chunkSize()) + " (" + l.chunkSize()
        + "), stripe count " + l.stripeCount() + ", " + l.protection() + ", pool " + l.pool()
        + ", across nodes " + l.across());
    if (registry == null) {
      out.println(" ".repeat(heading.length()) + "targets " + (l.targets().isEmpty()
          ? "(chosen per file)" : String.join(" ", l.targets())));
    }
  }

  /**
   * {@code setstripe [--chunk-size S] [--stripe-count N] [--protection P] [--across A]
   * [--pool P] PATH}.
   */
  @Command(name = "setstripe", description = {"Set the layout of a directory (the default of"
      + " new entries) or of an empty file; a missing PATH is created as an empty file with it.",
      "Options not given keep the current layout's values. Refused: a target or pool the"
          + " cluster does not have, a stripe count above the targets the pool has, a"
          + " --protection (or --pool) whose pool has no target of that scheme, a policy across"
          + " nodes that needs more nodes than the pool's targets are on."})
  static final class SetStripe extends CliCommand {
    @Option(names = {"--chunk-size", "-S"}, paramLabel = "<size>",
        description = "bytes per chunk, a multiple of 4K: 256K, 8M, 1G")
    String chunkSize;

    @Option(names = {"--stripe-count", "-c"}, paramLabel = "<n>",
        description = "targets a file is striped over, 1..1024")
    Integer stripeCount;

    @Option(names = {"--protection", "-p"}, paramLabel = "<scheme>",
        description = "the targets' scheme: raid6:4+2, raid5:K+1, rs:K+M, mirror:N, none; one"
            + " that the pool's targets have")
    String protection;

    @Option(names = "--pool", paramLabel = "<name>", description = "pool of targets to draw from")
    String pool;

    @Option(names = {"--across", "-a"}, paramLabel = "<policy>", description = "protection"
        + " across nodes: ec:K+M (K data and M parity chunks per group, each on its own node),"
        + " mirror:N (N copies on N nodes) or none; the stripe count is raised to K+M or N"
        + " when it is below")
    String across;

    @Option(names = "--targets", split = ",", paramLabel = "<id>",
        description = "pin these target ids (the rest are placed)")
    List<String> targets;

    @Parameters(paramLabel = "PATH")
    String path;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      each(s, path, () -> {
        FileStatus f = ns.statusOrNull(path);
        Layout base = f != null && f.layout() != null ? f.layout() : Layout.DEFAULT;
        if (f == null) {
          // the parent's default is what a new file would get: start from it
          int slash = path.lastIndexOf('/');
          FileStatus parent = ns.statusOrNull(
              slash <= 0 ? "/" : path.substring(0, slash));
          if (parent != null && parent.layout() != null) {
            base = parent.layout();
          }
        }
        Across policy = across == null ? base.across() : Across.parse(across);
        int stripes = stripeCount != null ? stripeCount
            : Math.max(base.stripeCount(), policy.width());
        Layout l = new Layout(
            chunkSize == null ? base.chunkSize() : Sizes.parse(chunkSize), stripes,
            targets == null ? List.of() : targets,
            protection == null ? base.protection() : protection, policy,
            pool == null ? base.pool() : pool);
        TargetPlacement placement = new TargetPlacement(s.client().registry(),
            s.client().config().placement());
        if (protection != null || pool != null) {
          // the protection and pool asked for (one of them may be inherited) must go together:
          // a scheme no target of the pool offers is refused, nothing changed
          placement.checkProtection(l);
        }
        if (f == null) {
          // what setLayout checks and places in the namespace, before the create
          placement.check(l, path);
          Layout placed = l.targets().size() < l.stripeCount() ? placement.place(l, path) : l;
          ns.create(path, CreateOptions.file().withLease(false).withLayout(placed));
        } else {
          ns.setLayout(path, l); // checked against the registry there, an empty file placed
        }
      });
    }
  }

  /** What a policy across nodes survives and costs, for getstripe: "" for none. */
  static String acrossNote(Across a) {
    if (a.isNone()) {
      return " (each chunk on one node)";
    }
    return String.format(Locale.ROOT, " (survives %d node%s lost; %.2fx the data across nodes)",
        a.nodesTolerated(), a.nodesTolerated() == 1 ? "" : "s", a.mediaFactor());
  }

  /** {@code getstripe PATH...}. */
  @Command(name = "getstripe", description = "Show the layout of files and directories; a"
      + " file's targets with their nodes.")
  static final class GetStripe extends CliCommand {
    @Parameters(paramLabel = "PATH", arity = "1..*")
    List<String> paths;

    @Override
    void run(Session s) throws CliException {
      Namespace ns = s.client().namespace();
      TargetRegistry registry = s.client().registry();
      for (String path : paths) {
        each(s, path, () -> {
          FileStatus f = ns.getStatus(path);
          Layout l = f.layout();
          if (s.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", f.path());
            m.put("type", f.type().name());
            if (l != null) {
              m.putAll(Json.layout(l));
            }
            s.printJson(m);
            return;
          }
          PrintWriter out = s.out();
          out.println(Printable.of(f.path()) + (f.isDirectory() ? " (directory default)" : ""));
          if (l == null) {
            out.println("  (no layout)");
            return;
          }
          out.println("  chunk_size:   " + l.chunkSize() + " (" + Sizes.human(l.chunkSize())
              + ")");
          out.println("  stripe_count: " + l.stripeCount());
          out.println("  protection:   " + l.protection());
          out.println("  pool:         " + l.pool());
          out.println("  across:       " + l.across() + acrossNote(l.across()));
          if (l.targets().isEmpty()) {
            out.println("  targets:      (chosen per file from the pool)");
          } else {
            out.println("  targets:");
            Table t = new Table("rlll");
            for (int i = 0; i < l.targets().size(); i++) {
              String id = l.targets().get(i);
              TargetInfo info = registry.target(id).orElse(null);
              t.row("  " + i, id, info == null ? "(unknown)" : info.address(),
                  info == null ? "" : info.reachability() + "/" + info.consistency());
            }
            t.print(out);
          }
          out.flush();
        });
      }
    }
  }
}
