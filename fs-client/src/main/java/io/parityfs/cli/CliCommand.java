package io.parityfs.cli;

import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Spec;

/**
 * A subcommand: opens a {@link Session}, runs, and turns failures into the one-line error and the
 * exit code. A command over several arguments reports each failure and goes on with the next
 * ({@link #each}); it exits with the first failure's code.
 */
abstract class CliCommand implements Callable<Integer> {
  @Spec
  CommandLine.Model.CommandSpec spec;

  private ExitStatus first = ExitStatus.OK;

  /** What one argument's work does. */
  interface Work {
    void run() throws CliException, IOException;
  }

  @Override
  public final Integer call() {
    // the top command holds the global options, however deep this command is (bench checkpoint)
    ParityFsCommand root = (ParityFsCommand) spec.root().userObject();
    try (Session s = root.open(spec.commandLine())) {
      try {
        root.applyCoreSite();
        run(s);
      } catch (CliException e) {
        report(s, e);
      } catch (IOException | IllegalArgumentException e) {
        report(s, CliException.of(null, e));
      }
    }
    return first.code();
  }

  abstract void run(Session s) throws CliException, IOException;

  /** Runs {@code work} for {@code subject}; a failure is reported and the command goes on. */
  final void each(Session s, String subject, Work work) {
    try {
      work.run();
    } catch (CliException e) {
      report(s, CliException.of(subject, e));
    } catch (IOException | IllegalArgumentException e) {
      report(s, CliException.of(subject, e));
    }
  }

  final void report(Session s, CliException e) {
    s.out().flush();
    s.err().println(Printable.of("parityfs: " + Main.typedName(spec) + ": "
        + (e.subject() == null ? "" : e.subject() + ": ") + e.getMessage()));
    s.err().flush();
    if (first == ExitStatus.OK) {
      first = e.status();
    }
  }
}
