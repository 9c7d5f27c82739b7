package io.parityfs.raid.array.format;

import io.parityfs.raid.codec.CodecGeometry;
import java.util.Locale;

/**
 * How an array protects each object: parity shards computed by a codec ({@link Parity}: RAID-5,
 * RAID-6 or Reed-Solomon k+m), or whole copies on distinct drives ({@link Mirror}, for data
 * written in small pieces, where a parity update would cost a read-modify-write).
 *
 * <p>The text form is the codec geometry ("raid5:4+1", "raid6:4+2", "rs:10+4") or "mirror:N".
 * Values are immutable.
 */
public sealed interface Protection permits Protection.Parity, Protection.Mirror {

  /** Parity protection with a codec geometry. */
  static Protection parity(CodecGeometry geometry) {
    return new Parity(geometry);
  }

  /** Mirrored protection with {@code copies} (2..4) copies of every object. */
  static Protection mirror(int copies) {
    return new Mirror(copies);
  }

  /**
   * Parses "raid5:K+1", "raid6:K+2", "rs:K+M" or "mirror:N" (the form {@link #toString()}
   * prints).
   *
   * @throws IllegalArgumentException naming the text when it is not a protection
   */
  static Protection parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.startsWith("mirror:")) {
      try {
        return new Mirror(Integer.parseInt(t.substring("mirror:".length()).trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "protection '" + text + "' has a non-numeric copy count", e);
      }
    }
    return new Parity(CodecGeometry.parse(text));
  }

  /** How many distinct drives one object spans: k + m, or the copy count. */
  int width();

  /** How many of those drives may be lost with every object still readable: m, or copies - 1. */
  int tolerates();

  /** Parity shards from a {@link CodecGeometry}: an object spans k + m drives, survives m losses. */
  record Parity(CodecGeometry geometry) implements Protection {
    public Parity {
      if (geometry == null) {
        throw new IllegalArgumentException("geometry must not be null");
      }
    }

    @Override
    public int width() {
      return geometry.shards();
    }

    @Override
    public int tolerates() {
      return geometry.m();
    }

    @Override
    public String toString() {
      return geometry.toString();
    }
  }

  /** Whole copies on {@code copies} distinct drives; survives {@code copies - 1} losses. */
  record Mirror(int copies) implements Protection {
    /** Fewest copies: two. */
    public static final int MIN_COPIES = 2;
    /** Most copies: four (more buys little and costs a drive per object each). */
    public static final int MAX_COPIES = 4;

    public Mirror {
      if (copies < MIN_COPIES || copies > MAX_COPIES) {
        throw new IllegalArgumentException(
            "mirror copies (" + copies + ") must be in " + MIN_COPIES + ".." + MAX_COPIES);
      }
    }

    @Override
    public int width() {
      return copies;
    }

    @Override
    public int tolerates() {
      return copies - 1;
    }

    @Override
    public String toString() {
      return "mirror:" + copies;
    }
  }
}
