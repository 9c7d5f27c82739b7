package io.parityfs.keeper;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.registry.MoveProgress;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.meta.targets.Retirements;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;

/**
 * One pass of moving every closed file off a set of targets (docs/across-nodes.md §5):
 * re-protection of lost targets ({@link Reprotector#reprotect}) or a drain of live ones ({@link
 * Reprotector#drain}). The files under the roots whose layouts use a target are found by a walk,
 * the most endangered first (fewest members to spare), and moved one by one; each target's
 * progress record ({@link MoveProgress}) is rewritten at most every {@link #PROGRESS_MILLIS}
 * and at the end, for {@code parityfs reprotect --watch}. A pass is resumable: run again, it
 * finds only what is left. Not thread-safe (one pass at a time per instance).
 */
public final class MovePass {
  /** Where the mover locks of the targets live. */
  public static final String LOCKS = ZkPaths.ROOT + "/movers";
  /** The least time between two writes of the progress records. */
  static final long PROGRESS_MILLIS = 2000;
  /** Who moves, in the progress records: user, host and process. */
  private static final String MOVER = System.getProperty("user.name", "unknown") + "@"
      + host() + "/" + ProcessHandle.current().pid();

  /** What the pass tells its caller about each file, as it goes. */
  public interface Listener {
    /**
     * @param index 1-based position of the file in the pass
     * @param of the files in the pass
     * @param outcome what moving it did; null when it failed with {@code error}
     * @param soFar the totals so far
     */
    void moved(int index, int of, FileStatus file, Reprotector.Outcome outcome,
        IOException error, Summary soFar);
  }

  /**
   * Totals of a pass.
   *
   * @param files files found using the targets
   * @param moved targets replaced in layouts
   * @param members members written
   * @param bytes bytes written
   * @param leftForLater files left for a later pass (open, written meanwhile, no replacement)
   * @param failed files that cannot be moved (no policy across nodes for re-protection) or
   *     whose move failed with an error
   * @param settled files that no longer use the targets (moved by this pass or before it)
   * @param noReplacement of those left for later, the files no target could take members of
   *     (placement refused: too few failure domains, pools or space); {@code why} says why for
   *     the first of them
   * @param why the placement's refusal for the first file without a replacement, else null
   */
  public record Summary(long files, long moved, long members, long bytes, long leftForLater,
      long failed, long settled, long noReplacement, String why) {
    /** Whether no file of the pass uses the targets any more. */
    public boolean complete() {
      return settled == files;
    }
  }

  private final ParityClient client;
  private final Reprotector mover;
  private final Set<String> targets;
  private final boolean drain;
  private final List<FileStatus> pinned = new ArrayList<>();
  private Duration lockWait = Duration.ZERO;
  private Consumer<String> lockNotice = m -> { };

  /**
   * @param targets the targets to move off
   * @param drain copy from the live targets (drain) rather than rebuild (re-protection)
   * @param bytesPerSecond the most the pass writes per second (0: unthrottled)
   */
  public MovePass(ParityClient client, Set<String> targets, boolean drain, long bytesPerSecond) {
    this.client = client;
    this.mover = new Reprotector(client, bytesPerSecond);
    this.targets = Set.copyOf(targets);
    this.drain = drain;
  }

  /**
   * The closed and open files under {@code roots} whose layouts use one of the targets; the
   * directories whose default layouts name one are kept for {@link #pinned}.
   */
  public List<FileStatus> find(List<String> roots) throws IOException {
    List<FileStatus> todo = new ArrayList<>();
    pinned.clear();
    Namespace ns = client.namespace();
    for (String root : roots) {
      FileWalk.files(ns, ns.getStatus(root), new FileWalk.Visit<IOException>() {
        @Override
        public void file(FileStatus f) {
          if (Reprotector.uses(f, targets)) {
            todo.add(f);
          }
        }

        @Override
        public void directory(FileStatus d) {
          if (d.layout() != null && Reprotector.uses(d, targets)) {
            pinned.add(d);
          }
        }
      });
    }
    todo.sort(Comparator.comparingInt(f -> Reprotector.margin(f, targets)));
    return todo;
  }

  /**
   * Makes {@link #run} wait up to {@code wait} for a target's mover lock that another pass holds
   * (a killed pass's lock lasts until its ZooKeeper session expires), telling {@code notice}
   * once what it waits for; by default it does not wait.
   */
  public MovePass waitingForLocks(Duration wait, Consumer<String> notice) {
    this.lockWait = wait;
    this.lockNotice = notice;
    return this;
  }

  /**
   * The directories found by the last {@link #find} whose default layouts name one of the
   * targets: new files there are refused until an admin sets other targets (the pass does not
   * choose for them).
   */
  public List<FileStatus> pinned() {
    return List.copyOf(pinned);
  }

  /**
   * Moves {@code files} (from {@link #find}), stopping early when {@code going} turns false.
   */
  public Summary run(List<FileStatus> files, Listener listener, BooleanSupplier going)
      throws NamespaceException {
    List<InterProcessSemaphoreMutex> held = lock();
    try {
      return runLocked(files, listener, going);
    } finally {
      release(held);
    }
  }

  private static void release(List<InterProcessSemaphoreMutex> held) {
    for (InterProcessSemaphoreMutex m : held) {
      try {
        m.release();
      } catch (Exception e) {
        // the lock's node is ephemeral: it goes with this client's session anyway
      }
    }
  }

  /**
   * Takes the mover lock of every target of the pass (a Curator semaphore mutex under {@link
   * #LOCKS}, named by the target, held by one pass at a time in the whole cluster: two movers of
   * the same file could pick the same replacement, and one's clean-up would delete the other's
   * members).
   *
   * @throws NamespaceException CONFLICT naming the target another pass is moving files off
   */
  private List<InterProcessSemaphoreMutex> lock() throws NamespaceException {
    List<InterProcessSemaphoreMutex> held = new ArrayList<>();
    for (String t : new TreeSet<>(targets)) {
      InterProcessSemaphoreMutex m = new InterProcessSemaphoreMutex(client.curator(),
          LOCKS + "/" + t);
      boolean got = acquire(m, Duration.ZERO);
      if (!got && lockWait.toMillis() > 0) {
        lockNotice.accept("another pass holds the mover lock of target " + t + ": waiting up to "
            + lockWait.toSeconds() + " s for it (a killed pass's lock goes when its ZooKeeper"
            + " session expires)");
        got = acquire(m, lockWait);
      }
      if (!got) {
        release(held);
        throw new NamespaceException(NamespaceStatus.CONFLICT, t, "another"
            + " pass is moving files off target " + t + " (parityfs reprotect --watch --target "
            + t + " follows it)");
      }
      held.add(m);
    }
    return held;
  }

  /** A target's mover lock, held until closed ({@link #tryLock}). */
  public interface Held extends AutoCloseable {
    /** Releases the lock (best effort: its node goes with the client's session anyway). */
    @Override
    void close();
  }

  /**
   * The mover lock of {@code target} if no pass holds it now, else null. The keeper's catch-up
   * of a returned target and the rebalancer's moves off a target take it without waiting and
   * leave what it guards for a later round: a drain, re-protection or removal moving files off
   * the target, and a catch-up or rebalance of the same files, never run at once
   * (docs/across-nodes.md, "Moves").
   */
  public static Held tryLock(ParityClient client, String target) {
    InterProcessSemaphoreMutex m = new InterProcessSemaphoreMutex(client.curator(),
        LOCKS + "/" + target);
    if (!acquire(m, Duration.ZERO)) {
      return null;
    }
    return () -> release(List.of(m));
  }

  private static boolean acquire(InterProcessSemaphoreMutex m, Duration wait) {
    try {
      return m.acquire(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      return false; // ZooKeeper unreachable: refused like a held lock
    }
  }

  private Summary runLocked(List<FileStatus> files, Listener listener, BooleanSupplier going)
      throws NamespaceException {
    long started = System.currentTimeMillis();
    long lastWrite = 0;
    long moved = 0;
    long members = 0;
    long bytes = 0;
    long left = 0;
    long failed = 0;
    long filesMoved = 0;
    long settled = 0;
    Summary sum = new Summary(files.size(), 0, 0, 0, 0, 0, 0, 0, null);
    long noReplacement = 0;
    String why = null;
    for (int i = 0; i < files.size() && going.getAsBoolean(); i++) {
      FileStatus f = files.get(i);
      Reprotector.Outcome o = null;
      IOException error = null;
      try {
        o = drain ? mover.drain(f.path(), targets) : mover.reprotect(f.path(), targets);
      } catch (IOException e) {
        error = e;
      }
      if (o == null) {
        failed++;
      } else {
        moved += o.moved();
        members += o.members();
        bytes += o.bytes();
        filesMoved += o.moved() > 0 && o.skipped() == null ? 1 : 0;
        settled += o.skipped() == null ? 1 : 0;
        if (o.skipped() != null) {
          boolean cannot = !drain && f.layout().across().isNone();
          failed += cannot ? 1 : 0;
          left += cannot ? 0 : 1;
          if (!cannot && o.noReplacement()) {
            noReplacement++;
            why = why == null ? o.skipped() : why;
          }
        }
      }
      sum = new Summary(files.size(), moved, members, bytes, left, failed, settled,
          noReplacement, why);
      if (listener != null) {
        listener.moved(i + 1, files.size(), f, o, error, sum);
      }
      long now = System.currentTimeMillis();
      if (now - lastWrite >= PROGRESS_MILLIS) {
        record(started, now, filesMoved, files.size() - filesMoved, members, bytes, false);
        lastWrite = now;
      }
    }
    boolean finished = going.getAsBoolean();
    long notMoved = finished ? left + failed : files.size() - filesMoved;
    record(started, System.currentTimeMillis(), filesMoved, notMoved, members, bytes, finished);
    return sum;
  }

  /**
   * Deletes what {@code target} holds of files that no longer use it (a bad target whose node
   * came back, before it is put back in service): the files under {@code /} whose layouts name
   * it are found first, and every chunk of another file is deleted. Nothing new is placed on a
   * bad target, so no file starts using it meanwhile. Returns the chunks deleted.
   *
   * @throws IllegalArgumentException unless {@code target} is one of this pass's targets
   */
  public long wipeUnused(String target) throws IOException {
    if (!targets.contains(target)) {
      throw new IllegalArgumentException(target + " is not a target of this pass: " + targets);
    }
    Set<Long> users = new java.util.HashSet<>();
    for (FileStatus f : find(List.of("/"))) {
      if (f.layout().targets().contains(target)) {
        users.add(f.id());
      }
    }
    long deleted = 0;
    long cursor = 0;
    do {
      io.parityfs.meta.chunks.ChunkPage page = client.memberIo().list(target,
          io.parityfs.meta.chunks.ChunkService.ALL_FILES, cursor, 1000);
      for (io.parityfs.meta.chunks.StoredChunk c : page.chunks()) {
        if (!users.contains(c.fileId()) && client.memberIo().delete(target, c.fileId(),
            c.index())) {
          deleted++;
        }
      }
      cursor = page.nextCursor();
    } while (cursor != io.parityfs.meta.chunks.ChunkService.END);
    return deleted;
  }

  private void record(long started, long now, long filesMoved, long filesLeft, long members,
      long bytes, boolean done) throws NamespaceException {
    Retirements r = new Retirements(client.registry());
    for (String t : targets) {
      r.recordProgress(new MoveProgress(RegistryCodec.SCHEMA, t, MOVER,
          drain ? "drain" : "reprotect", filesMoved, filesLeft, members, bytes, started, now,
          done));
    }
  }

  private static String host() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
