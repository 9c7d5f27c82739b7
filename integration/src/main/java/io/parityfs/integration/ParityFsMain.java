package io.parityfs.integration;

import io.parityfs.cli.ExitStatus;
import io.parityfs.cli.Main;
import io.parityfs.cli.RawArguments;
import java.io.PrintStream;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;

/**
 * {@code bin/parityfs}: the command line of {@link Main} (namespace, data and admin commands) with
 * this module's {@code local} (a cluster on this machine) and {@code demo} (the quickstart).
 */
public final class ParityFsMain {
  private ParityFsMain() {}

  public static void main(String[] args) {
    String invalid = RawArguments.invalid(args);
    if (invalid != null) {
      System.err.println("parityfs: " + invalid);
      System.exit(ExitStatus.USAGE.code());
    }
    quietLogging();
    System.exit(commandLine().execute(args));
  }

  /**
   * The command's own messages are its output; the libraries' logs (ZooKeeper's client above all)
   * are silenced unless a logging configuration is given ({@code
   * -Djava.util.logging.config.file}, e.g. through PARITYFS_JAVA_OPTS) or PARITYFS_DEBUG is set.
   */
  static void quietLogging() {
    if (System.getProperty("java.util.logging.config.file") == null
        && System.getenv("PARITYFS_DEBUG") == null) {
      Logger.getLogger("").setLevel(Level.OFF);
    }
  }

  static CommandLine commandLine() {
    return commandLine(System.out, System.err, System.console() != null);
  }

  static CommandLine commandLine(PrintStream out, PrintStream err, boolean terminal) {
    CommandLine cl = Main.commandLine(System.in, out, err, terminal);
    cl.addSubcommand("local", new LocalCommand());
    cl.addSubcommand("demo", new DemoCommand());
    Main.withHelpOptions(cl);
    // picocli hands streams and handlers to the subcommands present when they are set: again
    cl.setOut(cl.getOut());
    cl.setErr(cl.getErr());
    cl.setParameterExceptionHandler(cl.getParameterExceptionHandler());
    cl.setExecutionExceptionHandler(cl.getExecutionExceptionHandler());
    return cl;
  }
}
