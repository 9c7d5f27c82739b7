package io.parityfs.raid.array.drive;

import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Drive} that wraps another and, under test control, injects faults: errors, silent
 * corruption and latency by {@link Fault} rules, the device vanishing ({@link #disappear}), and a
 * crash at a chosen mutating step ({@link #crashAtStep}). Deterministic: every random choice (a
 * probability draw, the bit to flip) comes from one {@link Random} seeded at construction, so the
 * same sequence of calls gives the same faults.
 *
 * <p><b>Crash model.</b> The drive keeps a model of what the file system has made durable: the
 * content of each file (its inode, which follows renames) as of its last {@link DriveFile#sync},
 * and the directory (names to inodes) as of the last {@link #syncDirectory}; files present when
 * the wrapper was built count as durable. Each create, open for write ({@link #openForWrite}),
 * write, sync, rename, delete and directory sync is one step, counted from 1. At the crash step the operation is not performed, the drive
 * directory is rewritten to the durable state, and {@link SimulatedCrash} is thrown; every later
 * call throws it too (the process is dead; re-open the directory with a fresh drive). Two models:
 *
 * <ul>
 *   <li>{@link CrashModel#LOSE_UNSYNCED}: every unsynced change is lost: names as of the last
 *       directory sync, contents as of each file's last sync.
 *   <li>{@link CrashModel#KEEP_NAMESPACE}: the directory operations all reached the disk (as a
 *       journal may commit them early) but unsynced data did not: current names, contents as of
 *       each file's last sync. This is the case that empties a file renamed before it was synced.
 * </ul>
 *
 * <p>What the model guarantees: a sequence that is crash-safe on a POSIX file system leaves an
 * acceptable state under both models, and a missing file sync or directory sync shows up as lost
 * or empty data under at least one of them. What it does not model: torn or reordered sectors
 * within one write, partially persisted writes (an unsynced write is lost whole), the mixtures of
 * the two models (some directory operations persisted, others not), or data corrupted by the crash.
 * It keeps durable contents in memory: for small test files only.
 */
public final class FaultyDrive implements Drive {
  /** Which unsynced changes a crash loses; see the class comment. */
  public enum CrashModel {
    LOSE_UNSYNCED,
    KEEP_NAMESPACE
  }

  /** A rule injected into this drive, with its counters. */
  public static final class Injected {
    final Fault fault;
    private long calls;
    private long fired;

    private Injected(Fault fault) {
      this.fault = fault;
    }

    /** Matching calls seen so far. */
    public synchronized long calls() {
      return calls;
    }

    /** Faults fired so far. */
    public synchronized long fired() {
      return fired;
    }
  }

  /** A file's identity: what its durable content is, whatever its name now. */
  private static final class Inode {
    byte[] durable = new byte[0];
  }

  /** What a call must suffer beyond an error: a bit to flip (or -1) and a delay. */
  private static final class Verdict {
    long corruptDraw = -1;
    long delayNanos;
    Fault.Gate gate;
  }

  private final Drive inner;
  private final Random random;
  private final List<Injected> rules = new ArrayList<>();
  private volatile long usableSpaceLimit = Long.MAX_VALUE;
  private final Map<String, Inode> names = new HashMap<>();
  private Map<String, Inode> durableNames;
  private boolean vanished;
  private boolean crashed;
  private long steps;
  private long crashAt;
  private CrashModel crashModel = CrashModel.LOSE_UNSYNCED;

  /** Wraps {@code inner}, taking the files already there as durable. */
  public FaultyDrive(Drive inner, long seed) throws IOException {
    this.inner = inner;
    this.random = new Random(seed);
    for (String name : inner.list("")) {
      Inode inode = new Inode();
      inode.durable = readAll(inner, name);
      names.put(name, inode);
    }
    durableNames = new HashMap<>(names);
  }

  /** Adds a fault rule; returns its counters. */
  public synchronized Injected inject(Fault fault) {
    Injected i = new Injected(fault);
    rules.add(i);
    return i;
  }

  /** Removes every fault rule (the crash point and a disappearance stay). */
  public synchronized void clearFaults() {
    rules.clear();
  }

  /** From now on every call, on the drive or its open files, fails as if the device vanished. */
  public synchronized void disappear() {
    vanished = true;
  }

  /** Crashes at mutating step {@code n} (1-based: the nth step is not performed). */
  public synchronized void crashAtStep(long n, CrashModel model) {
    if (n < 1) {
      throw new IllegalArgumentException("crash step (" + n + ") must be >= 1");
    }
    crashAt = n;
    crashModel = model;
  }

  /** Crashes now, between steps: the directory is rewritten to its durable state under model. */
  public synchronized void crashNow(CrashModel model) throws IOException {
    crash(model);
  }

  /** The mutating steps performed (or attempted) so far. */
  public synchronized long steps() {
    return steps;
  }

  @Override
  public Path root() {
    return inner.root();
  }

  @Override
  public IoMode ioMode() {
    return inner.ioMode();
  }

  @Override
  public int alignment() {
    return inner.alignment();
  }

  @Override
  public DriveFile create(String name) throws IOException {
    suffer(before(Op.CREATE, name, true));
    DriveFile f = inner.create(name);
    synchronized (this) {
      return new FaultyFile(f, names.computeIfAbsent(name, n -> new Inode()));
    }
  }

  @Override
  public DriveFile open(String name) throws IOException {
    suffer(before(Op.OPEN, name, false));
    DriveFile f = inner.open(name);
    synchronized (this) {
      return new FaultyFile(f, names.computeIfAbsent(name, n -> new Inode()));
    }
  }

  /**
   * A mutating path: one crash step, and {@link Op#OPEN} faults apply. The file keeps its inode,
   * so writes through it stay unsynced until {@link DriveFile#sync}: a crash before that restores
   * the file's last synced content.
   */
  @Override
  public DriveFile openForWrite(String name) throws IOException {
    suffer(before(Op.OPEN, name, true));
    DriveFile f = inner.openForWrite(name);
    synchronized (this) {
      return new FaultyFile(f, names.computeIfAbsent(name, n -> new Inode()));
    }
  }

  @Override
  public void rename(String from, String to) throws IOException {
    suffer(before(Op.RENAME, from, true));
    inner.rename(from, to);
    synchronized (this) {
      Inode i = names.remove(from);
      names.put(to, i == null ? new Inode() : i);
    }
  }

  @Override
  public void syncDirectory() throws IOException {
    suffer(before(Op.SYNC_DIR, ".", true));
    inner.syncDirectory();
    synchronized (this) {
      durableNames = new HashMap<>(names);
    }
  }

  @Override
  public boolean delete(String name) throws IOException {
    suffer(before(Op.DELETE, name, true));
    boolean deleted = inner.delete(name);
    synchronized (this) {
      names.remove(name);
    }
    return deleted;
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    suffer(before(Op.LIST, prefix, false));
    return inner.list(prefix);
  }

  @Override
  public long size(String name) throws IOException {
    suffer(before(Op.SIZE, name, false));
    return inner.size(name);
  }

  @Override
  public long totalSpace() throws IOException {
    suffer(before(Op.SPACE, ".", false));
    return inner.totalSpace();
  }

  @Override
  public long usableSpace() throws IOException {
    suffer(before(Op.SPACE, ".", false));
    long limit = usableSpaceLimit;
    return Math.min(limit, inner.usableSpace());
  }

  /** From now on report at most {@code bytes} of usable space (a drive filling up). */
  public void limitUsableSpace(long bytes) {
    usableSpaceLimit = bytes;
  }

  @Override
  public void close() throws IOException {
    inner.close();
  }

  /** Decides the fate of one call; throws for errors, crashes and a vanished device. */
  private synchronized Verdict before(Op op, String name, boolean mutating) throws IOException {
    if (crashed) {
      throw new SimulatedCrash("drive " + inner.root() + " crashed earlier; " + op + " " + name);
    }
    if (vanished) {
      throw new ArrayException(
          ArrayError.DRIVE_IO,
          inner.root().resolve(name),
          "drive " + inner.root() + ": " + op + " " + name + " failed: device vanished (injected)");
    }
    if (mutating && ++steps == crashAt) {
      crash(crashModel);
      throw new SimulatedCrash(
          "drive " + inner.root() + " crashed at step " + steps + ": " + op + " " + name);
    }
    Verdict v = new Verdict();
    for (Injected rule : rules) {
      Fault f = rule.fault;
      if (!f.matches(op, name)) {
        continue;
      }
      rule.calls++;
      boolean fires =
          (f.nth == 0 || rule.calls == f.nth)
              && (f.probability >= 1 || random.nextDouble() < f.probability);
      if (!fires) {
        continue;
      }
      rule.fired++;
      switch (f.kind) {
        case ERROR:
          throw new ArrayException(
              ArrayError.DRIVE_IO,
              inner.root().resolve(name),
              "drive " + inner.root() + ": " + op + " " + name + " failed: injected I/O error");
        case CORRUPT:
          v.corruptDraw = random.nextLong() & Long.MAX_VALUE;
          break;
        case DELAY:
          v.delayNanos += f.delay.toNanos();
          break;
        case HOLD:
          v.gate = f.gate;
          break;
        case FULL:
          throw new ArrayException(
              ArrayError.NO_SPACE,
              inner.root().resolve(name),
              "drive " + inner.root() + " is full: " + op + " " + name + " failed (injected)");
        case MISSING:
          throw new java.nio.file.NoSuchFileException(
              inner.root().resolve(name).toString(), null, "removed (injected)");
        default:
          throw new AssertionError(f.kind);
      }
    }
    return v;
  }

  /** Sleeps outside the lock, so delayed calls do not hold up others. */
  private static void suffer(Verdict v) throws IOException {
    if (v.gate != null) {
      v.gate.hold();
    }
    if (v.delayNanos > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(v.delayNanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("injected delay interrupted");
      }
    }
  }

  /** Flips the bit chosen by {@code draw} among bytes [from, to) of buf. */
  private static void flip(ByteBuffer buf, int from, int to, long draw) {
    if (draw < 0 || to <= from) {
      return;
    }
    long bit = draw % ((long) (to - from) * 8);
    int index = from + (int) (bit / 8);
    buf.put(index, (byte) (buf.get(index) ^ (1 << (bit % 8))));
  }

  private void crash(CrashModel model) throws IOException {
    crashed = true;
    Map<String, Inode> target = model == CrashModel.LOSE_UNSYNCED ? durableNames : names;
    for (String name : inner.list("")) {
      if (!target.containsKey(name)) {
        inner.delete(name);
      }
    }
    for (Map.Entry<String, Inode> e : target.entrySet()) {
      try (DriveFile f = inner.create(e.getKey())) {
        f.write(ByteBuffer.wrap(e.getValue().durable), 0);
        f.sync();
      }
    }
    inner.syncDirectory();
  }

  private static byte[] readAll(Drive drive, String name) throws IOException {
    try (DriveFile f = drive.open(name)) {
      return readAll(f);
    }
  }

  private static byte[] readAll(DriveFile f) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(f.size()));
    f.readFully(b, 0);
    return b.array();
  }

  /** An open file of this drive: its faults are the drive's, its inode the durable model's. */
  private final class FaultyFile implements DriveFile {
    private final DriveFile file;
    private final Inode inode;

    FaultyFile(DriveFile file, Inode inode) {
      this.file = file;
      this.inode = inode;
    }

    @Override
    public String name() {
      return file.name();
    }

    @Override
    public void write(ByteBuffer src, long position) throws IOException {
      Verdict v = before(Op.WRITE, name(), true);
      suffer(v);
      if (v.corruptDraw < 0) {
        file.write(src, position);
        return;
      }
      // Corrupt a copy: the caller's buffer is not ours to change.
      ByteBuffer copy = ByteBuffer.allocate(src.remaining()).put(src.duplicate()).flip();
      flip(copy, 0, copy.limit(), v.corruptDraw);
      file.write(copy, position);
      src.position(src.limit());
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      Verdict v = before(Op.READ, name(), false);
      suffer(v);
      int start = dst.position();
      int n = file.read(dst, position);
      flip(dst, start, start + n, v.corruptDraw);
      return n;
    }

    @Override
    public void sync() throws IOException {
      suffer(before(Op.SYNC, name(), true));
      file.sync();
      byte[] content = readAll(file);
      synchronized (FaultyDrive.this) {
        inode.durable = content;
      }
    }

    @Override
    public long size() throws IOException {
      suffer(before(Op.SIZE, name(), false));
      return file.size();
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }
}
