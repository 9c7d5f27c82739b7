package io.parityfs.raid.array.drive;

import io.parityfs.raid.array.format.ArrayException;
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
public final class Fault {
  /** What the rule does when it fires. */
  enum Kind {
    /** The call fails with an {@link ArrayException} DRIVE_IO, doing nothing. */
    ERROR,
    /** WRITE: one bit of the data written is flipped; READ: one bit of the data read. */
    CORRUPT,
    /** The call sleeps for the rule's delay first, then proceeds. */
    DELAY,
    /** The call signals its {@link Gate} reached, waits until the gate is opened, then proceeds. */
    HOLD,
    /**
     * The call fails with a {@link java.nio.file.NoSuchFileException}, doing nothing: as if
     * another process removed the file (an expected condition, not a drive failure).
     */
    MISSING,
    /** The call fails with an {@link ArrayException} NO_SPACE, doing nothing (a full drive). */
    FULL
  }

  /**
   * Where a {@link Kind#HOLD} rule stops its call: {@link #awaitReached} waits until a call is
   * held, {@link #open} lets every held (and later) call go on. One gate per rule.
   */
  public static final class Gate {
    private final java.util.concurrent.CountDownLatch reached =
        new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.CountDownLatch opened =
        new java.util.concurrent.CountDownLatch(1);

    /** Waits (up to 30 s, then fails) until a call is held at the gate. */
    public void awaitReached() throws InterruptedException {
      if (!reached.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
        throw new AssertionError("no call reached the gate in 30 s");
      }
    }

    /** Waits up to {@code timeout} for a call to be held; whether one was. */
    public boolean awaitReached(Duration timeout) throws InterruptedException {
      return reached.await(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Whether a call has been held at the gate. */
    boolean reached() {
      return reached.getCount() == 0;
    }

    /** Lets the held calls go on. */
    public void open() {
      opened.countDown();
    }

    void hold() throws java.io.InterruptedIOException {
      reached.countDown();
      try {
        if (!opened.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
          throw new AssertionError("gate not opened in 60 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("held call interrupted");
      }
    }
  }

  /** The operations faults can target. */
  public enum Op {
    CREATE, OPEN, WRITE, READ, SYNC, RENAME, SYNC_DIR, DELETE, LIST, SIZE, SPACE
  }

  final Kind kind;
  final Set<Op> ops;
  final Pattern names;
  final long nth;
  final double probability;
  final Duration delay;
  final Gate gate;

  private Fault(Kind kind, Set<Op> ops, Pattern names, long nth, double probability,
      Duration delay) {
    this(kind, ops, names, nth, probability, delay, null);
  }

  private Fault(Kind kind, Set<Op> ops, Pattern names, long nth, double probability,
      Duration delay, Gate gate) {
    this.kind = kind;
    this.ops = ops;
    this.names = names;
    this.nth = nth;
    this.probability = probability;
    this.delay = delay;
    this.gate = gate;
  }

  /** Holds every matching call at {@code gate} until the test opens it. */
  public static Fault hold(Gate gate, Op first, Op... rest) {
    return new Fault(Kind.HOLD, EnumSet.of(first, rest), null, 0, 1.0, Duration.ZERO, gate);
  }

  /** Fails every matching call with NO_SPACE (the drive is full; not a drive failure). */
  public static Fault full(Op first, Op... rest) {
    return new Fault(Kind.FULL, EnumSet.of(first, rest), null, 0, 1.0, Duration.ZERO);
  }

  /** Fails every matching call with NoSuchFileException (not a drive failure). */
  public static Fault missing(Op first, Op... rest) {
    return new Fault(Kind.MISSING, EnumSet.of(first, rest), null, 0, 1.0, Duration.ZERO);
  }

  /** Fails every matching call of {@code first} and {@code rest}. */
  public static Fault error(Op first, Op... rest) {
    return new Fault(Kind.ERROR, EnumSet.of(first, rest), null, 0, 1.0, Duration.ZERO);
  }

  /** Flips one bit of the data of every matching WRITE and/or READ. */
  public static Fault corrupt(Op first, Op... rest) {
    Set<Op> ops = EnumSet.of(first, rest);
    if (!EnumSet.of(Op.WRITE, Op.READ).containsAll(ops)) {
      throw new IllegalArgumentException("corruption ops (" + ops + ") must be WRITE or READ");
    }
    return new Fault(Kind.CORRUPT, ops, null, 0, 1.0, Duration.ZERO);
  }

  /** Delays every matching call by {@code delay} (bounded: at most one second). */
  public static Fault delay(Duration delay, Op first, Op... rest) {
    if (delay.isNegative() || delay.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("delay (" + delay + ") must be within 0..1s");
    }
    return new Fault(Kind.DELAY, EnumSet.of(first, rest), null, 0, 1.0, delay);
  }

  /** Only calls on files whose whole name matches {@code regex}. */
  public Fault matching(String regex) {
    return new Fault(kind, ops, Pattern.compile(regex), nth, probability, delay, gate);
  }

  /** Only the {@code n}th matching call (1-based), once. */
  public Fault onCall(long n) {
    if (n < 1) {
      throw new IllegalArgumentException("call number (" + n + ") must be >= 1");
    }
    return new Fault(kind, ops, names, n, probability, delay, gate);
  }

  /** Fires on each eligible call with probability {@code p}, drawn from the drive's seed. */
  public Fault withProbability(double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("probability (" + p + ") must be within 0..1");
    }
    return new Fault(kind, ops, names, nth, p, delay, gate);
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
