package io.parityfs.cli;

import picocli.CommandLine.Option;

/**
 * {@code --watch} and {@code --interval}, shared (a picocli mixin) by the commands that start or
 * show a rebuild or a scrub and can then follow it: replace-drive, rebuild, scrub.
 */
final class WatchOptions {
  @Option(names = "--watch", description = "then follow the work until it ends (Ctrl-C stops"
      + " watching, not the work)")
  boolean watch;

  @Option(names = "--interval", paramLabel = "<seconds>", description = "poll period of"
      + " --watch (default 1 on a terminal, 5 otherwise)")
  Double interval;

  /** The poll period: {@code --interval}, checked, else 1 s on a terminal and 5 s otherwise. */
  double period(Session s) {
    if (interval != null) {
      if (interval <= 0 || interval > 3600) {
        throw new IllegalArgumentException("--interval (" + interval + ") must be in (0, 3600]"
            + " seconds");
      }
      return interval;
    }
    return s.terminal() ? 1 : 5;
  }
}
