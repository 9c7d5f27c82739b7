package io.parityfs.cli;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress of a long operation (a transfer, a rebuild, a scrub): bytes done / total, percentage,
 * rate and ETA. On a terminal one line redrawn in place with a bar; otherwise one plain line per
 * {@link #update} that the caller makes (it chooses the period).
 */
public final class ProgressLine {
  private static final int BAR = 30;

  private final PrintWriter out;
  private final boolean terminal;
  private int lastWidth;

  public ProgressLine(PrintWriter out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
  }

  /**
   * @param label what progresses, e.g. {@code rebuild slot 3}
   * @param state a word after the figures (RUNNING), or null
   * @param etaSeconds null when unknown
   */
  public void update(String label, long done, long total, double rate, Double etaSeconds,
      String state) {
    String figures = text(done, total, rate, etaSeconds) + (state == null ? "" : "  " + state);
    label = Printable.of(label); // a path: its control characters must not move the cursor
    if (terminal) {
      String line = label + "  " + bar(total <= 0 ? 0 : (double) done / total) + "  " + figures;
      int pad = Math.max(0, lastWidth - line.length());
      out.print("\r" + line + " ".repeat(pad));
      lastWidth = line.length();
    } else {
      out.println(label + ": " + figures);
    }
    out.flush();
  }

  /** Ends the live line (a newline on a terminal). */
  public void finish() {
    if (terminal && lastWidth > 0) {
      out.println();
      out.flush();
      lastWidth = 0;
    }
  }

  static String text(long done, long total, double rate, Double etaSeconds) {
    String pct = total > 0
        ? String.format(Locale.ROOT, "%5.1f%%", Math.min(100.0, 100.0 * done / total)) : "    -";
    return pct + "  " + Sizes.human(done) + " / " + Sizes.human(total) + "  " + Sizes.rate(rate)
        + "  ETA " + Sizes.duration(etaSeconds);
  }

  static String bar(double fraction) {
    int full = (int) Math.round(Math.max(0, Math.min(1, fraction)) * BAR);
    return "[" + "#".repeat(full) + ".".repeat(BAR - full) + "]";
  }
}
