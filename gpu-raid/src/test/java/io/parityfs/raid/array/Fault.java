package io.parityfs.raid.array;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One fault rule for {@link FaultyDrive}: what happens ({@link Kind}), on which operations, on
 * which files (a regex over the file name; {@code .} for directory operations), on which matching
 * call and with what probability. Rules are built fluently; each with-method returns a new rule.
 * A rule injected into a drive counts its matching calls and the faults it fired there.
 */
final class Fault {
  /** What the rule does when it fires. */
  enum Kind {
    /** The call fails with an {@link ArrayException} DRIVE_IO, doing nothing. */
    ERROR,
    /** WRITE: one bit of the data written is flipped; READ: one bit of the data read. */
    CORRUPT,
    /** The call sleeps for the rule's delay first, then proceeds. */
    DELAY
  }

  /** The operations faults can target. */
  enum Op {
    CREATE, OPEN, WRITE, READ, SYNC, RENAME, SYNC_DIR, DELETE, LIST, SIZE, SPACE
  }

  final Kind kind;
  final Set<Op> ops;
  final Pattern names;
  final long nth;
  final double probability;
  final Duration delay;

  private Fault(Kind kind, Set<Op> ops, Pattern names, long nth, double probability,
      Duration delay) {
    this.kind = kind;
    this.ops = ops;
    this.names = names;
    this.nth = nth;
    this.probability = probability;
    this.delay = delay;
  }

  /** Fails every matching call of {@code first} and {@code rest}. */
  static Fault error(Op first, Op... rest) {
    return new Fault(Kind.ERROR, EnumSet.of(first, rest), null, 0, 1.0, Duration.ZERO);
  }

  /** Flips one bit of the data of every matching WRITE and/or READ. */
  static Fault corrupt(Op first, Op... rest) {
    Set<Op> ops = EnumSet.of(first, rest);
    if (!EnumSet.of(Op.WRITE, Op.READ).containsAll(ops)) {
      throw new IllegalArgumentException("corruption ops (" + ops + ") must be WRITE or READ");
    }
    return new Fault(Kind.CORRUPT, ops, null, 0, 1.0, Duration.ZERO);
  }

  /** Delays every matching call by {@code delay} (bounded: at most one second). */
  static Fault delay(Duration delay, Op first, Op... rest) {
    if (delay.isNegative() || delay.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("delay (" + delay + ") must be within 0..1s");
    }
    return new Fault(Kind.DELAY, EnumSet.of(first, rest), null, 0, 1.0, delay);
  }

  /** Only calls on files whose whole name matches {@code regex}. */
  Fault matching(String regex) {
    return new Fault(kind, ops, Pattern.compile(regex), nth, probability, delay);
  }

  /** Only the {@code n}th matching call (1-based), once. */
  Fault onCall(long n) {
    if (n < 1) {
      throw new IllegalArgumentException("call number (" + n + ") must be >= 1");
    }
    return new Fault(kind, ops, names, n, probability, delay);
  }

  /** Fires on each eligible call with probability {@code p}, drawn from the drive's seed. */
  Fault withProbability(double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("probability (" + p + ") must be within 0..1");
    }
    return new Fault(kind, ops, names, nth, p, delay);
  }

  boolean matches(Op op, String name) {
    return ops.contains(op) && (names == null || names.matcher(name).matches());
  }

  @Override
  public String toString() {
    return kind + " " + ops + (names == null ? "" : " ~" + names) + (nth > 0 ? " call " + nth : "")
        + (probability < 1 ? " p=" + probability : "");
  }
}
