package io.parityfs.cli;

import io.parityfs.keeper.Rebalancer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rebalance [--rate B] [--threshold PCT] [--dry-run] [PATH...]}: spreads existing files
 * onto targets added since ({@link Rebalancer}, docs/across-nodes.md §5).
 */
@Command(name = "rebalance", description = {"Spread existing files onto newly added targets:"
    + " while a target holds more than THRESHOLD % above its pool's mean, files on it (the"
    + " largest first) have their members there copied to the least loaded target that keeps"
    + " their protection, and their layouts switched atomically. Protection never drops.",
    "Resumable: run it again. A line per move, then the spread (most - least loaded, over the"
        + " mean) before and after. Files open or written meanwhile are left (exit 6)."})
final class RebalanceCommand extends CliCommand {
  @Option(names = "--rate", paramLabel = "BYTES", description = "write at most this many bytes"
      + " a second (K, M, G suffixes; default unthrottled)")
  String rate;

  @Option(names = "--threshold", paramLabel = "PCT", description = "how far above the mean a"
      + " target may stay, in percent (default 10)")
  double threshold = 10;

  @Option(names = "--dry-run", description = "print the moves it would make, make none")
  boolean dryRun;

  @Parameters(paramLabel = "PATH", arity = "0..*", description = "the files to consider"
      + " (default /)")
  List<String> paths = new ArrayList<>();

  @Override
  void run(Session s) throws CliException, IOException {
    if (!(threshold >= 0 && threshold <= 1000)) {
      throw new CliException(ExitStatus.USAGE, null, "--threshold (" + threshold + ") must be"
          + " in [0, 1000] percent");
    }
    Rebalancer r = new Rebalancer(s.client(), rate == null ? 0 : Sizes.parse(rate),
        threshold / 100);
    long begin = System.nanoTime();
    long[] done = {0, 0};
    Rebalancer.Summary sum = r.run(paths.isEmpty() ? List.of("/") : paths, dryRun,
        (m, o, error) -> {
          if (s.json()) {
            return;
          }
          if (error != null) {
            report(s, CliException.of(m.path(), error));
            return;
          }
          if (o != null && o.skipped() != null) {
            s.err().println(Printable.of("parityfs: rebalance: " + m.path() + ": "
                + o.skipped()));
            s.err().flush();
            return;
          }
          done[0]++;
          done[1] += m.bytes();
          double secs = Math.max(1e-9, (System.nanoTime() - begin) / 1e9);
          s.out().println("[" + done[0] + "] " + Printable.of(m.path()) + ": " + m.from()
              + " -> " + m.to() + ", " + Sizes.human(m.bytes()) + (dryRun ? " (dry run)"
                  : " copied, layout switched; " + Sizes.human(done[1]) + " so far at "
                      + Sizes.rate(done[1] / secs)));
          s.out().flush();
        }, () -> true);
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("targets", sum.targets());
      m.put("spreadBefore", sum.spreadBefore());
      m.put("spreadAfter", sum.spreadAfter());
      m.put("moves", sum.moves());
      m.put("bytes", sum.bytes());
      m.put("skipped", sum.skipped());
      m.put("dryRun", dryRun);
      s.printJson(m);
    } else {
      s.out().printf(Locale.ROOT, "rebalance%s: %d targets, spread %.0f%% -> %.0f%%: %d moves"
          + " (%s), %d skipped%n", dryRun ? " (dry run)" : "", sum.targets(),
          100 * sum.spreadBefore(), 100 * sum.spreadAfter(), sum.moves(),
          Sizes.human(sum.bytes()), sum.skipped());
    }
    s.out().flush();
    if (sum.skipped() > 0) {
      report(s, new CliException(ExitStatus.UNAVAILABLE, null, sum.skipped() + " moves were"
          + " left: run it again once their files are closed"));
    }
  }
}
