package io.parityfs.keeper;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.Standing;
import io.parityfs.meta.targets.TargetInfo;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keeper of protection across nodes (docs/across-nodes.md §5): what makes the node-loss
 * lifecycle automatic. Any number run ({@code parityfs keeper}, one beside the local cluster);
 * a Curator {@link LeaderLatch} at {@link #LATCH} elects the one that acts. Every {@code
 * interval} the leader runs a round:
 *
 * <ol>
 *   <li><b>lost members</b>: members a storage node's scrub found unrecoverable (its target's
 *       lost object ids in the registry) are added to their files' repair records, so that
 *       readers read around them and catch-up stores them again ({@link LostMembers});
 *   <li><b>catch-up</b>: every file of the repair index ({@link Namespace#filesToRepair}) whose
 *       record names a target that is online and in service again is repaired ({@link
 *       Repairer}): a node that comes back catches up on what it missed, by generation, without
 *       an admin;
 *   <li><b>re-protection</b>: while a target is declared bad (by {@code parityfs node remove},
 *       or by the cluster manager after {@code cluster.manager.deadAfter} offline), the files
 *       that use it are rebuilt elsewhere, most endangered first, throttled ({@link MovePass});
 *   <li><b>drain</b>: while a target is draining and online, the files that use it are copied
 *       off it: a drain whose CLI was interrupted finishes without it;
 *   <li><b>check</b>: every {@link #checkEvery} (if set), the state of every group of every file
 *       across nodes ({@link GroupCheck}, what {@code parityfs fsck} prints), kept in {@link
 *       Status#groups} for the metrics: a group left torn or unprotected is never unseen.
 * </ol>
 *
 * A set of bad or draining targets whose pass found nothing left is not walked again until
 * the set changes (nothing new is placed on them). Every step is resumable and safe to run
 * beside another mover: a file written meanwhile is left for the next round, a layout switch
 * is one versioned write. A round stops between files when leadership is lost or the keeper
 * closes. Thread-safe.
 */
public final class AcrossKeeper implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(AcrossKeeper.class);
  /** The election's znode, shared by every keeper of a cluster. */
  public static final String LATCH = ZkPaths.ROOT + "/keeper/latch";

  /**
   * What one round did.
   *
   * @param filesCaughtUp files whose repair records shrank
   * @param membersCaughtUp members stored again on returned targets
   * @param filesMoved files moved off bad or draining targets (or found moved)
   * @param bytesMoved bytes written by those moves
   * @param filesLeft files still using bad or draining targets after the round (open, written
   *     meanwhile, no replacement, no policy across nodes)
   * @param lostHandedOff members a node lost (a scrub found them unrecoverable) added to their
   *     files' repair records for catch-up
   * @param filesNotCaughtUp files whose catch-up failed (logged with the reason; the round went
   *     on with the others, and the next one tries them again)
   */
  public record Round(long filesCaughtUp, long membersCaughtUp, long filesMoved,
      long bytesMoved, long filesLeft, long lostHandedOff, long filesNotCaughtUp) {
    /** Whether the round did anything. */
    public boolean busy() {
      return filesCaughtUp + filesMoved + lostHandedOff > 0;
    }
  }

  /**
   * Totals since start, for {@code parityfs keeper}'s lines and metrics.
   *
   * @param leading whether this keeper is the one acting
   * @param rounds rounds run
   * @param failures rounds that failed
   * @param last the last round that completed, or null
   * @param total the sums of every completed round (its {@code filesLeft}: the last round's)
   * @param lastError the message of the last round if it failed, else null
   */
  public record Status(boolean leading, long rounds, long failures, Round last, Round total,
      String lastError, Map<GroupCheck.State, Long> groups) {
    public Status {
      groups = groups == null ? Map.of() : Map.copyOf(groups);
    }

    Status next(boolean nowLeading) {
      return new Status(nowLeading, rounds, failures, last, total, lastError, groups);
    }

    Status checked(Map<GroupCheck.State, Long> found) {
      return new Status(leading, rounds, failures, last, total, lastError, found);
    }

    Status done(Round r) {
      Round t = new Round(total.filesCaughtUp() + r.filesCaughtUp(), total.membersCaughtUp()
          + r.membersCaughtUp(), total.filesMoved() + r.filesMoved(), total.bytesMoved()
          + r.bytesMoved(), r.filesLeft(), total.lostHandedOff() + r.lostHandedOff(),
          r.filesNotCaughtUp());
      return new Status(true, rounds + 1, failures, r, t, null, groups);
    }

    Status failed(String error) {
      return new Status(true, rounds + 1, failures + 1, last, total, error, groups);
    }
  }

  private final ParityClient client;
  private final Duration interval;
  private final long bytesPerSecond;
  private final LeaderLatch latch;
  private final Object roundLock = new Object();
  private final AtomicReference<Status> status = new AtomicReference<>(
      new Status(false, 0, 0, null, new Round(0, 0, 0, 0, 0, 0, 0), null, Map.of()));
  private ScheduledExecutorService timer;
  private volatile boolean closed;
  /** The bad and draining targets whose last pass found nothing to move. */
  private Set<String> settled = Set.of();
  private final LostMembers lost;
  /** How often a round also checks every group (null: never). */
  private volatile Duration checkEvery;
  /** When the last check ended (System.nanoTime), null before one. */
  private Long lastCheck;

  /**
   * @param interval time between rounds
   * @param bytesPerSecond the most a round's moves write per second (0: unthrottled)
   */
  public AcrossKeeper(ParityClient client, Duration interval, long bytesPerSecond) {
    this.client = Objects.requireNonNull(client, "client");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval (" + interval + ") must be > 0");
    }
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("bytesPerSecond (" + bytesPerSecond + ") must be >= 0");
    }
    this.interval = interval;
    this.bytesPerSecond = bytesPerSecond;
    this.latch = new LeaderLatch(client.curator(), LATCH);
    this.lost = new LostMembers(client);
  }

  /** Joins the election and runs a round every interval while leading. */
  public synchronized void start() throws IOException {
    if (timer != null || closed) {
      throw new IllegalStateException("start once, before close");
    }
    try {
      latch.start();
    } catch (Exception e) {
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, LATCH, "joining the keeper"
          + " election: " + e.getMessage(), e);
    }
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "parityfs-keeper");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::tick, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    boolean leading = latch.hasLeadership();
    status.updateAndGet(s -> s.next(leading));
    if (!leading || closed) {
      return;
    }
    try {
      Round r = runOnce(() -> latch.hasLeadership() && !closed);
      status.updateAndGet(s -> s.done(r));
      if (r.busy() || r.filesLeft() > 0 || r.filesNotCaughtUp() > 0) {
        LOG.info("keeper round: {}", r);
      }
    } catch (IOException | RuntimeException e) {
      status.updateAndGet(s -> s.failed(String.valueOf(e.getMessage())));
      LOG.warn("keeper round failed (the next one retries): {}",
          e.toString());
    }
  }

  /**
   * Makes every round at least {@code every} after the last check also check every group of
   * every file across nodes ({@link GroupCheck}); null: never (the default).
   */
  public AcrossKeeper checkEvery(Duration every) {
    this.checkEvery = every;
    return this;
  }

  /** What this keeper has done so far. */
  public Status status() {
    return status.get();
  }

  /**
   * Runs one round now, leading or not (the timer's rounds and tests), stopping between files
   * once {@code going} turns false.
   */
  public Round runOnce(BooleanSupplier going) throws IOException {
    synchronized (roundLock) {
      long handedOff = lost.handOff(going);
      long[] caught = catchUp(going);
      seal(going);
      long moved = 0;
      long bytes = 0;
      long left = 0;
      Map<Standing, Set<String>> retired = retired();
      Set<String> all = new TreeSet<>();
      retired.values().forEach(all::addAll);
      if (!all.isEmpty() && !all.equals(settled) && going.getAsBoolean()) {
        for (Standing st : List.of(Standing.BAD, Standing.DRAINING)) {
          Set<String> targets = retired.get(st);
          if (targets.isEmpty()) {
            continue;
          }
          MovePass pass = new MovePass(client, targets, st == Standing.DRAINING,
              bytesPerSecond);
          List<FileStatus> files = pass.find(List.of("/"));
          if (files.isEmpty()) {
            continue;
          }
          MovePass.Summary sum;
          try {
            sum = pass.run(files, null, going);
          } catch (NamespaceException e) {
            if (e.status() != NamespaceStatus.CONFLICT) {
              throw e;
            }
            left += files.size(); // another pass (a CLI's) is moving them: its work
            continue;
          }
          moved += sum.settled();
          bytes += sum.bytes();
          left += files.size() - sum.settled();
        }
        settled = left == 0 && going.getAsBoolean() ? all : Set.of();
      }
      Duration every = checkEvery;
      if (every != null && going.getAsBoolean()
          && (lastCheck == null || System.nanoTime() - lastCheck >= every.toNanos())) {
        Map<GroupCheck.State, Long> found = check(going);
        if (found != null) {
          lastCheck = System.nanoTime();
          status.updateAndGet(st -> st.checked(found));
        }
      }
      return new Round(caught[0], caught[1], moved, bytes, left, handedOff, caught[2]);
    }
  }

  /**
   * Every group of every file across nodes by state; null when the walk was stopped. A group
   * not protected is logged (WARNING; torn and unrecoverable ones ERROR) with its file.
   */
  private Map<GroupCheck.State, Long> check(BooleanSupplier going) throws IOException {
    GroupCheck check = new GroupCheck(client);
    Map<GroupCheck.State, Long> out = new java.util.EnumMap<>(GroupCheck.State.class);
    for (GroupCheck.State st : GroupCheck.State.values()) {
      out.put(st, 0L);
    }
    boolean[] stopped = {false};
    Namespace ns = client.namespace();
    FileWalk.files(ns, ns.getStatus("/"), f -> {
      if (stopped[0] || !going.getAsBoolean()) {
        stopped[0] = true;
        return;
      }
      GroupCheck.Report r;
      try {
        r = check.check(f);
        if (r.findings().stream().anyMatch(x -> !x.unrecorded().isEmpty())) {
          // members missing behind the record's back, and groups left in copies (a recovered
          // writer's tail): handed to catch-up, as fsck --repair does, then counted again
          Repairer.HandOff h = new Repairer(client).handOff(f, r);
          if (h != null) {
            LOG.info("keeper check: {}: {} members handed to catch-up, {} stored again{}",
                f.path(), h.members(), h.outcome().repaired(), h.outcome().skipped() == null
                ? "" : "; " + h.outcome().skipped());
            r = check.check(ns.getStatus(f.path()));
          }
        }
      } catch (IOException e) {
        LOG.warn("keeper check: {}: {}", f.path(), e.toString());
        return;
      }
      r.counts().forEach((st, n) -> out.merge(st, n, Long::sum));
      for (GroupCheck.Finding g : r.findings()) {
        if (g.state().compareTo(GroupCheck.State.TORN) >= 0) {
          LOG.error("keeper check: {}: group {} {}: {}", f.path(), g.group(), g.state(),
              g.detail());
        } else {
          LOG.warn("keeper check: {}: group {} {}: {}", f.path(), g.group(), g.state(),
              g.detail());
        }
      }
    });
    return stopped[0] ? null : out;
  }

  /**
   * The bad targets (any reachability) and the draining ones that are online, by standing.
   */
  private Map<Standing, Set<String>> retired() {
    Map<Standing, Set<String>> out = new HashMap<>();
    out.put(Standing.BAD, new TreeSet<>());
    out.put(Standing.DRAINING, new TreeSet<>());
    for (TargetInfo t : client.registry().targets()) {
      if (t.standing() == Standing.BAD || t.standing() == Standing.DRAINING
          && t.reachability() == Reachability.ONLINE) {
        out.get(t.standing()).add(t.id());
      }
    }
    return out;
  }

  /**
   * Seals the groups lease recovery left in copies or torn, in the files it marked
   * ({@link Namespace#filesToSeal}, docs/across-nodes.md "Lease recovery"), as fsck --repair
   * seals them; a file's mark is cleared once none is left, or when the file is gone, moved or
   * taken by a new writer (whose own writes seal its groups; a later recovery marks it again).
   * A file that cannot be sealed now (a target down) keeps its mark for the next round; one
   * that fails is logged, and the others go on. Returns the files sealed.
   */
  long seal(BooleanSupplier going) throws IOException {
    long sealed = 0;
    Repairer repairer = new Repairer(client);
    for (Namespace.ToSeal m : client.namespace().filesToSeal()) {
      if (!going.getAsBoolean()) {
        break;
      }
      try {
        FileStatus f;
        try {
          f = client.namespace().getStatus(m.path());
        } catch (NamespaceException e) {
          if (e.status() != NamespaceStatus.NOT_FOUND) {
            throw e;
          }
          f = null;
        }
        if (f == null || f.id() != m.fileId() || f.isOpenForWrite()) {
          client.namespace().sealed(m.fileId()); // gone, moved (the check finds it), or taken
          continue;
        }
        Repairer.Seal s = repairer.seal(f, m.fromGroup());
        if (s.handOff() != null) {
          LOG.info("keeper: {}: sealed what lease recovery left: {}", f.path(),
              s.handOff().outcome());
        }
        if (s.done()) {
          client.namespace().sealed(m.fileId());
          sealed++;
        } else if (f.layout().targets().stream().allMatch(client.memberIo()::healthy)) {
          // not for want of a target: never retried every round; fsck and the check report it
          LOG.warn("keeper: {}: a group lease recovery left could not be sealed with every"
              + " target up; left to fsck: {}", f.path(), s.after().findings());
          client.namespace().sealed(m.fileId());
        }
      } catch (NamespaceException e) {
        if (e.status() == NamespaceStatus.UNAVAILABLE) {
          throw e; // the namespace itself: the round cannot go on
        }
        LOG.warn("keeper: sealing {} failed, the other files go on: {}", m.path(), e.toString());
      } catch (IOException | RuntimeException e) {
        LOG.warn("keeper: sealing {} failed, the other files go on: {}", m.path(), e.toString());
      }
    }
    return sealed;
  }

  /** Catch-up of the indexed files with a returned target: {files, members, files failed}. */
  private long[] catchUp(BooleanSupplier going) throws IOException {
    Map<String, TargetInfo> byId = new HashMap<>();
    client.registry().targets().forEach(t -> byId.put(t.id(), t));
    long files = 0;
    long members = 0;
    long failed = 0;
    Repairer repairer = new Repairer(client);
    // the mover locks of a file's returned targets, taken without waiting and held while the
    // file is caught up: a pass moving files off one of them (drain, re-protection, removal)
    // and the catch-up of the same files never run at once; a busy target's files wait a
    // round, and a pass that waits for a lock gets it between two files
    Set<String> busy = new HashSet<>();
    List<MovePass.Held> locks = new ArrayList<>();
    for (Namespace.ToRepair f : client.namespace().filesToRepair()) {
      if (!going.getAsBoolean()) {
        break;
      }
      List<String> back = f.targets().stream().filter(id -> {
        TargetInfo t = byId.get(id);
        return t != null && t.reachability() == Reachability.ONLINE
            && t.standing() != Standing.BAD && client.memberIo().healthy(t.id());
      }).toList();
      if (back.isEmpty() || !locked(back, locks, busy)) {
        continue;
      }
      try {
        FileStatus st = client.namespace().getStatus(f.path());
        if (st.id() != f.fileId()) {
          LOG.info("keeper: file {} is no longer at {} (a directory"
              + " above was renamed): run parityfs repair -r over its new place", f.fileId(),
              f.path());
          continue;
        }
        Repairer.Outcome o = repairer.repair(f.path());
        files += o.repaired() > 0 ? 1 : 0;
        members += o.repaired();
        if (o.skipped() != null) {
          LOG.warn("keeper: {}: {}", f.path(), o.skipped());
        }
      } catch (NamespaceException e) {
        if (e.status() != NamespaceStatus.NOT_FOUND) {
          throw e; // the namespace itself: the round cannot go on
        }
      } catch (IOException | RuntimeException e) {
        // one file that cannot be caught up (a torn group, a node refusing it) must never
        // stop the others' catch-up, nor re-protection: reported, retried next round
        failed++;
        LOG.warn("keeper: catch-up of {} failed, the other files go on: {}", f.path(),
            e.toString());
      } finally {
        release(locks);
      }
    }
    return new long[] {files, members, failed};
  }

  private static void release(List<MovePass.Held> locks) {
    locks.forEach(MovePass.Held::close);
    locks.clear();
  }

  /**
   * Whether {@code locks} now holds the mover lock of every target of {@code back}; a target
   * another pass holds is remembered as busy for the round (and what was taken is given back).
   */
  private boolean locked(List<String> back, List<MovePass.Held> locks, Set<String> busy) {
    for (String t : back) {
      MovePass.Held h = busy.contains(t) ? null : MovePass.tryLock(client, t);
      if (h == null) {
        if (busy.add(t)) {
          LOG.info("keeper: target {} is back, but another pass is moving files off it: its"
              + " catch-up waits for a later round", t);
        }
        release(locks);
        return false;
      }
      locks.add(h);
    }
    return true;
  }

  /** Leaves the election and stops the rounds (a running one stops before its next file). */
  @Override
  public synchronized void close() throws IOException {
    closed = true;
    if (timer != null) {
      timer.shutdownNow();
      try {
        timer.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      try {
        latch.close();
      } catch (IOException | IllegalStateException e) {
        LOG.debug("keeper latch close: {}", e.toString());
      }
    }
  }
}
