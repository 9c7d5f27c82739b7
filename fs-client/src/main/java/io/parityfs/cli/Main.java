package io.parityfs.cli;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;

/**
 * {@code parityfs}: the command line's entry point ({@code bin/parityfs} runs it). Exits with an
 * {@link ExitStatus} code.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    String invalid = RawArguments.invalid(args);
    if (invalid != null) {
      System.err.println("parityfs: " + invalid);
      System.exit(ExitStatus.USAGE.code());
    }
    int rc = run(args, System.in, System.out, System.err, System.console() != null);
    System.out.flush();
    System.exit(rc);
  }

  /** Runs one command line; what it prints goes to {@code out} and {@code err}. */
  static int run(String[] args, InputStream in, PrintStream out, PrintStream err,
      boolean terminal) {
    return commandLine(in, out, err, terminal).execute(args);
  }

  /**
   * The {@code parityfs} command line with its streams, exit codes and error handlers; other
   * modules add their subcommands to it (the integration module's {@code local} and {@code demo}).
   */
  public static CommandLine commandLine(InputStream in, OutputStream out, PrintStream err,
      boolean terminal) {
    CommandLine cl = new CommandLine(new ParityFsCommand(in, out, terminal));
    withHelpOptions(cl);
    cl.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
    cl.setErr(new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
    Map<String, String> codes = new LinkedHashMap<>();
    for (ExitStatus s : ExitStatus.values()) {
      codes.put(Integer.toString(s.code()), s.meaning());
    }
    cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n")
        .exitCodeList(codes);
    cl.setParameterExceptionHandler(Main::usageError);
    cl.setExecutionExceptionHandler((e, c, parsed) -> {
      c.getErr().println("parityfs: " + c.getCommandName() + ": INTERNAL: " + e);
      if (System.getenv("PARITYFS_DEBUG") != null) {
        e.printStackTrace(c.getErr());
      }
      c.getErr().flush();
      return ExitStatus.FAILED.code();
    });
    return cl;
  }

  /** The command as typed after "parityfs": "ls", "bench checkpoint", or "" for the top. */
  static String typedName(CommandLine.Model.CommandSpec spec) {
    return spec.qualifiedName(" ").substring(spec.root().name().length()).trim();
  }

  /**
   * Reports a command's failure as every command does ({@code parityfs: <command>: <message>}
   * on its error stream) and returns the exit code of {@code status}: for commands outside
   * this package ({@code local}, {@code demo}) that are not {@link CliCommand}s.
   */
  public static int fail(CommandLine.Model.CommandSpec spec, ExitStatus status, String message) {
    spec.commandLine().getOut().flush();
    PrintWriter err = spec.commandLine().getErr();
    err.println(Printable.of("parityfs: " + typedName(spec) + ": " + message));
    err.flush();
    return status.code();
  }

  /**
   * {@code --help} (and {@code -h}, {@code -V}, {@code --version} where {@code -h} is free: ls,
   * du and df use it for human-readable sizes) on every command, as the error lines suggest.
   */
  public static void withHelpOptions(CommandLine cl) {
    CommandLine.Model.CommandSpec spec = cl.getCommandSpec();
    if (spec.findOption("-h") == null) {
      spec.mixinStandardHelpOptions(true);
    } else if (spec.findOption("--help") == null) {
      spec.addOption(CommandLine.Model.OptionSpec.builder("--help").usageHelp(true)
          .description("Show this help message and exit.").build());
    }
    cl.getSubcommands().values().forEach(Main::withHelpOptions);
  }

  private static int usageError(CommandLine.ParameterException e, String[] args) {
    CommandLine c = e.getCommandLine();
    PrintWriter err = c.getErr();
    String sub = typedName(c.getCommandSpec());
    err.println("parityfs: " + (sub.isEmpty() ? "" : sub + ": ") + e.getMessage());
    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
    err.println("Try 'parityfs " + (sub.isEmpty() ? "" : sub + " ") + "--help'.");
    err.flush();
    return ExitStatus.USAGE.code();
  }
}
