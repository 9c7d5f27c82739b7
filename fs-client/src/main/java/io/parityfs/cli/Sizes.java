package io.parityfs.cli;

import java.util.Locale;

/** Byte counts as people write them: {@code 8M}, {@code 256K}, {@code 1G} (powers of 1024). */
public final class Sizes {
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private Sizes() {}

  /**
   * Parses {@code 4096}, {@code 64K}, {@code 8M}, {@code 8MiB}, {@code 1G}, {@code 2T}.
   *
   * @throws IllegalArgumentException naming the value
   */
  public static long parse(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    if (t.endsWith("IB")) {
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("B")) {
      t = t.substring(0, t.length() - 1);
    }
    int shift = 0;
    if (!t.isEmpty()) {
      switch (t.charAt(t.length() - 1)) {
        case 'K' -> shift = 10;
        case 'M' -> shift = 20;
        case 'G' -> shift = 30;
        case 'T' -> shift = 40;
        default -> shift = -1;
      }
    }
    String digits = shift < 0 ? t : t.substring(0, t.length() - 1);
    try {
      long v = Long.parseLong(digits);
      long s = Math.max(0, shift);
      if (v < 0 || (s > 0 && v > (Long.MAX_VALUE >> s))) {
        throw new NumberFormatException();
      }
      return v << s;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("size (" + text
          + ") must be a number of bytes, optionally with K, M, G or T (powers of 1024)");
    }
  }

  /** {@code 512 B}, {@code 1.5 KiB}, {@code 8.0 MiB}. */
  public static String human(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < UNITS.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, UNITS[u]);
  }

  /** {@link #human} when {@code human}, else the exact number. */
  static String of(long bytes, boolean human) {
    return human ? human(bytes) : Long.toString(bytes);
  }

  /** {@code 850.0 MiB/s}. */
  static String rate(double bytesPerSecond) {
    return human(Math.round(bytesPerSecond)) + "/s";
  }

  /** {@code 1h02m03s}, {@code 2m03s}, {@code 7s}; "?" when unknown. */
  static String duration(Double seconds) {
    if (seconds == null || seconds.isNaN() || seconds < 0 || seconds.isInfinite()) {
      return "?";
    }
    long s = Math.round(seconds);
    if (s >= 3600) {
      return String.format(Locale.ROOT, "%dh%02dm%02ds", s / 3600, s / 60 % 60, s % 60);
    }
    if (s >= 60) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return s + "s";
  }
}
