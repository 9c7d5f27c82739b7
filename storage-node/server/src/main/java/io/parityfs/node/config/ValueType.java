package io.parityfs.node.config;

import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.codec.select.CodecBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of a {@link NodeConfigKeys.Key}'s value: how its text is read and written. Reading
 * fails with an {@link IllegalArgumentException} whose message names the value and the form it
 * must take ("value (lots) must be a size like 65536, 64K or 64MiB"); the parser prefixes the
 * key. After a failure the parser goes on with {@link #fallback()}, a harmless value, so that
 * every problem of a file is reported at once.
 *
 * @param <T> the value's Java type
 * @param form how the value is written, for people (docs and messages)
 * @param parser reads the (trimmed) text
 * @param formatter writes a value back in the form {@code parser} reads
 * @param fallback the value to go on with after a problem (may be null)
 */
public record ValueType<T>(String form, Function<String, T> parser,
    Function<T, String> formatter, T fallback) {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)?");
  /** The longest duration any key takes: 100 years (well within a Duration's nanoseconds). */
  static final Duration MAX_DURATION = Duration.ofDays(36_500);
  private static final String[] SIZE_UNITS = {"", "K", "M", "G", "T"};

  public ValueType {
    Objects.requireNonNull(form, "form");
    Objects.requireNonNull(parser, "parser");
    Objects.requireNonNull(formatter, "formatter");
  }

  /** Reads {@code text}. @throws IllegalArgumentException naming the value */
  public T parse(String text) {
    return parser.apply(text.trim());
  }

  /** Writes {@code value} in the form {@link #parse} reads. */
  public String format(T value) {
    return formatter.apply(value);
  }

  /** Any text (possibly empty). */
  public static final ValueType<String> TEXT = new ValueType<>("text", s -> s, s -> s, "");

  /** Comma-separated words; blanks are dropped. */
  public static final ValueType<List<String>> LIST = new ValueType<>("a comma-separated list",
      ValueType::list, l -> String.join(",", l), List.of());

  /** A file path (relative ones are resolved against the file's folder by the parser). */
  public static final ValueType<Path> PATH = new ValueType<>("a path", s -> {
    if (s.isEmpty()) {
      throw new IllegalArgumentException("must be a path");
    }
    return Path.of(s);
  }, Path::toString, Path.of("."));

  /** {@code true} or {@code false}, any case. */
  public static final ValueType<Boolean> BOOL = new ValueType<>("true or false", s -> {
    String v = s.toLowerCase(Locale.ROOT);
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException("value (" + s + ") must be true or false");
    }
    return v.equals("true");
  }, b -> Boolean.toString(b), false);

  /** Bytes: a number with an optional K, M, G or T (powers of 1024), e.g. 64K, 64MiB, 65536. */
  public static final ValueType<Long> SIZE_BYTES = new ValueType<>("a size like 64K",
      ValueType::size, ValueType::sizeText, -1L);

  /** MB/s (10^6 bytes per second), 0 for unlimited; the value is in bytes per second. */
  public static final ValueType<Long> RATE = new ValueType<>("MB/s, 0: unlimited", s -> {
    try {
      double mb = Double.parseDouble(s);
      if (mb < 0 || Double.isNaN(mb) || mb > 1e9) {
        throw new NumberFormatException();
      }
      return (long) (mb * 1_000_000);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("value (" + s
          + ") must be a rate in MB/s, >= 0 (0: unlimited)");
    }
  }, bytes -> bytes % 1_000_000 == 0 ? Long.toString(bytes / 1_000_000)
      : Double.toString(bytes / 1e6), 0L);

  /** A parity backend: auto, cpu or gpu. */
  public static final ValueType<CodecBackend> CODEC = new ValueType<>("auto, cpu or gpu",
      CodecBackend::parse, CodecBackend::toString, CodecBackend.AUTO);

  /** {@code raid5:K+1}, {@code raid6:K+2}, {@code rs:K+M} or {@code mirror:N}. */
  public static final ValueType<Protection> PROTECTION = new ValueType<>(
      "raid5:K+1, raid6:K+2, rs:K+M or mirror:N", Protection::parse, Protection::toString, null);

  /** A whole number in {@code min..max}. */
  public static ValueType<Integer> integer(int min, int max) {
    return new ValueType<>("an integer in " + min + ".." + max, s -> {
      long n;
      try {
        n = Long.parseLong(s);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("value (" + s + ") must be an integer in " + min
            + ".." + max);
      }
      if (n < min || n > max) {
        throw new IllegalArgumentException("value (" + s + ") must be in " + min + ".." + max);
      }
      return (int) n;
    }, n -> Integer.toString(n), min);
  }

  /**
   * A duration: a number with ms, s, m, h or d (seconds when bare), at most 100 years; zero only
   * when {@code zeroAllowed}.
   */
  public static ValueType<Duration> duration(boolean zeroAllowed) {
    return new ValueType<>("a duration like 30s" + (zeroAllowed ? " (0: off)" : ""),
        s -> duration(s, zeroAllowed), ValueType::durationText, Duration.ofSeconds(1));
  }

  /** Text that {@code valid} accepts; otherwise "value (x) must be {@code rule}". */
  public static ValueType<String> text(Predicate<String> valid, String rule, String fallback) {
    return new ValueType<>(rule, s -> {
      if (!valid.test(s)) {
        throw new IllegalArgumentException("value (" + s + ") must be " + rule);
      }
      return s;
    }, s -> s, fallback);
  }

  private static List<String> list(String text) {
    List<String> out = new ArrayList<>();
    for (String s : text.split(",")) {
      if (!s.isBlank()) {
        out.add(s.trim());
      }
    }
    return List.copyOf(out);
  }

  private static long size(String v) {
    Matcher m = SIZE.matcher(v);
    if (!m.matches()) {
      throw new IllegalArgumentException("value (" + v
          + ") must be a size like 65536, 64K or 64MiB");
    }
    int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      case "t" -> 40;
      default -> 0;
    };
    try {
      long n = Long.parseLong(m.group(1));
      if (n > (Long.MAX_VALUE >> shift)) {
        throw new NumberFormatException();
      }
      return n << shift;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("value (" + v + ") is too large");
    }
  }

  /** The largest unit that divides {@code bytes} exactly: 8388608 is "8M". */
  static String sizeText(long bytes) {
    int unit = 0;
    long n = bytes;
    while (n != 0 && unit < SIZE_UNITS.length - 1 && (n & 1023) == 0) {
      n >>= 10;
      unit++;
    }
    return n + SIZE_UNITS[unit];
  }

  private static Duration duration(String v, boolean zeroAllowed) {
    Matcher m = DURATION.matcher(v.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("value (" + v
          + ") must be a duration like 500ms, 30s, 10m, 12h or 7d");
    }
    String unit = m.group(2) == null ? "s" : m.group(2);
    Duration d;
    try {
      long n = Long.parseLong(m.group(1));
      d = switch (unit) {
        case "ms" -> Duration.ofMillis(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        case "d" -> Duration.ofDays(n);
        default -> Duration.ofSeconds(n);
      };
    } catch (NumberFormatException | ArithmeticException e) {
      d = null; // more digits than a long holds, or more seconds than a Duration does
    }
    if (d == null || d.compareTo(MAX_DURATION) > 0) {
      // a bound that every use (toMillis, toNanos of a scheduler) can hold
      throw new IllegalArgumentException("value (" + v + ") is too large: at most "
          + MAX_DURATION.toDays() + "d");
    }
    if (d.isZero() && !zeroAllowed) {
      throw new IllegalArgumentException("value (" + v + ") must be positive");
    }
    return d;
  }

  /** The largest unit that divides {@code d} exactly: 3600 s is "1h", 0 is "0". */
  static String durationText(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0";
    }
    long[] per = {86_400_000L, 3_600_000L, 60_000L, 1000L};
    String[] unit = {"d", "h", "m", "s"};
    for (int i = 0; i < per.length; i++) {
      if (ms % per[i] == 0) {
        return ms / per[i] + unit[i];
      }
    }
    return ms + "ms";
  }
}
