package io.parityfs.keeper;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.Repairs;
import io.parityfs.meta.targets.TargetPlacement;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Re-protection (docs/across-nodes.md §5): moves a file's members off targets declared lost, so
 * it is whole again without them. For each lost target in the file's layout a replacement is
 * drawn by the placement rule (same pool, online, keeping every window of the policy's width on
 * distinct failure domains); every member at that position is rebuilt onto it from the group's
 * other members ({@link Repairer#rebuild}); then the layout is switched in one versioned write
 * ({@code Namespace#moveMembers}), so readers and writers see the old layout or the new, never a
 * mix. Only closed files are moved; a file written meanwhile keeps its layout and is left for the
 * next pass (the members written to the replacement are deleted). Optionally throttled.
 *
 * <p>{@link #drain} is the same move off targets that are still live (decommission): each member
 * is copied from its target as it is, with its tag (rebuilt only where the file's repair record
 * names it), the old members stay readable until the switch, so protection never drops; files
 * without a policy across nodes are copied too. One instance may move several files at once
 * (from several threads); its throttle covers them all.
 */
public final class Reprotector {
  /**
   * Groups of one file rebuilt at once, by default. Each is one REBUILD_MEMBER on the
   * replacement's node (which runs a few at once and queues the rest) reading K members from
   * the other targets, so the window keeps every surviving target and the replacement busy;
   * at 8 MiB chunks and K = 4 it holds about 16 × 40 MiB on the nodes at most.
   */
  static final int DEFAULT_IN_FLIGHT = 16;
  private final ParityClient client;
  private final Repairer rebuilder;
  private final TargetPlacement placement;
  private final long bytesPerSecond;
  private final int inFlight;
  private final long started = System.nanoTime();
  private long written;

  /**
   * @param bytesPerSecond the most this re-protection writes per second (0: unthrottled)
   */
  public Reprotector(ParityClient client, long bytesPerSecond) {
    this(client, bytesPerSecond, DEFAULT_IN_FLIGHT);
  }

  /**
   * @param bytesPerSecond the most this re-protection writes per second (0: unthrottled)
   * @param inFlight the most groups of one file rebuilt at once (&gt;= 1)
   */
  public Reprotector(ParityClient client, long bytesPerSecond, int inFlight) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("bytesPerSecond (" + bytesPerSecond + ") must be >= 0");
    }
    if (inFlight < 1) {
      throw new IllegalArgumentException("inFlight (" + inFlight + ") must be >= 1");
    }
    this.inFlight = inFlight;
    this.client = client;
    this.rebuilder = new Repairer(client);
    this.placement = new TargetPlacement(client.registry(), client.config().placement());
    this.bytesPerSecond = bytesPerSecond;
  }

  /**
   * What re-protecting one file did.
   *
   * @param path the file
   * @param moved lost targets replaced in its layout
   * @param members members rebuilt onto the replacements
   * @param bytes bytes written
   * @param skipped why (part of) it was not moved: open for writing, written meanwhile, no
   *     policy across nodes, no replacement; null when whole
   */
  public record Outcome(String path, int moved, long members, long bytes, String skipped) {
    /** How {@link #skipped} starts when no target could take the file's members. */
    static final String NO_REPLACEMENT = "no replacement for target ";

    /** Whether it was left because no target can take its members (placement refused). */
    public boolean noReplacement() {
      return skipped != null && skipped.startsWith(NO_REPLACEMENT);
    }
  }

  /**
   * How many members of {@code f}'s groups survive beyond the fewest a group is read from, with
   * {@code lost} gone: the files with the least come first (the most endangered).
   */
  public static int margin(FileStatus f, Set<String> lost) {
    Layout l = f.layout();
    int gone = 0;
    for (String t : l.targets()) {
      gone += lost.contains(t) ? 1 : 0;
    }
    int spare = l.across().isErasureCoded() ? l.across().parity() : l.across().data() - 1;
    return spare - Math.min(gone, l.across().width());
  }

  /** Whether {@code f}'s layout names a target of {@code lost}. */
  public static boolean uses(FileStatus f, Set<String> lost) {
    for (String t : f.layout().targets()) {
      if (lost.contains(t)) {
        return true;
      }
    }
    return false;
  }

  /** Moves {@code path}'s members off the targets of {@code lost}, rebuilding them. */
  public Outcome reprotect(String path, Set<String> lost) throws IOException {
    return move(path, lost, false, null);
  }

  /**
   * Moves {@code path}'s members off the live targets of {@code draining} (decommission),
   * copying each member from its target as it is, with its tag ({@link Repairer#copy}), unless
   * the file's repair record names it or the copy fails (then it is rebuilt): the old members
   * stay until the layout switch, so protection never drops.
   */
  public Outcome drain(String path, Set<String> draining) throws IOException {
    return move(path, draining, true, null);
  }

  /**
   * Moves {@code path}'s members on live target {@code from} to target {@code to} as {@link
   * #drain} copies them (rebalance): {@code to} must be one of the placement's candidates for
   * that position ({@link TargetPlacement#candidates}).
   */
  public Outcome rebalance(String path, String from, String to) throws IOException {
    return move(path, Set.of(from), true, to);
  }

  private Outcome move(String path, Set<String> lost, boolean copy, String destination)
      throws IOException {
    FileStatus f = client.namespace().getStatus(path);
    if (f.isDirectory() || f.isSymlink() || !uses(f, lost)) {
      return new Outcome(f.path(), 0, 0, 0, null);
    }
    if (f.layout().across().isNone() && !copy) {
      return new Outcome(f.path(), 0, 0, 0, "no protection across nodes: its chunks on the"
          + " lost targets cannot be rebuilt");
    }
    if (f.isOpenForWrite()) {
      return new Outcome(f.path(), 0, 0, 0, "open for writing by " + f.writer()
          + ": moved once it is closed");
    }
    if (copy) {
      FileStatus sealed = sealed(f);
      if (sealed == null) {
        return new Outcome(f.path(), 0, 0, 0, "a group in copies or torn could not be sealed"
            + " now (a target down): moved once it is");
      }
      f = sealed;
    }
    int moved = 0;
    long members = 0;
    long bytes = 0;
    for (String from : List.copyOf(f.layout().targets())) {
      if (!lost.contains(from)) {
        continue;
      }
      String to;
      try {
        to = destination != null ? checked(f.layout(), from, destination, f.path())
            : replacement(f.layout(), from, f.path());
      } catch (NamespaceException e) {
        return new Outcome(f.path(), moved, members, bytes, Outcome.NO_REPLACEMENT + from
            + ": " + e.getMessage());
      }
      ChunkMap map = ChunkMap.of(f.layout());
      long units = map.groups(f.length());
      // re-protection reads nothing from the lost target (its members count as stale); a
      // drain copies from the live one what its record does not name
      FileStatus reading = copy ? f : f.withRepairs(f.repairs().with(units == 0 ? Repairs.NONE
          : new Repairs(List.of(new Repairs.Range(from, 0, units - 1)))));
      // inFlight groups rebuilt at once, the most endangered first: their member reads,
      // decodes and writes overlap on every surviving target and the replacement
      long[] order = copy ? null : endangeredFirst(reading, map, units);
      java.util.ArrayDeque<CompletableFuture<Long>> inFlight = new java.util.ArrayDeque<>();
      for (long i = 0; i < units || !inFlight.isEmpty(); ) {
        if (i < units && inFlight.size() < this.inFlight) {
          long group = order == null ? i : order[(int) i];
          i++;
          if (f.holes().contains(group)) {
            continue; // never stored: no member to move
          }
          String lostTarget = from;
          String onto = to;
          inFlight.add(CompletableFuture.supplyAsync(() -> {
            try {
              long n = copy ? rebuilder.copy(reading, map, group, lostTarget, onto) : -1;
              return n >= 0 ? n : rebuilder.rebuild(reading, map, group, lostTarget, onto);
            } catch (IOException e) {
              throw new CompletionException(e);
            }
          }, client.memberIo().fanOut()));
          continue;
        }
        long n;
        try {
          n = inFlight.poll().join();
        } catch (CompletionException e) {
          inFlight.forEach(x -> x.cancel(false));
          if (e.getCause() instanceof IOException io) {
            throw io;
          }
          throw e;
        }
        if (n > 0) {
          members++;
          bytes += n;
          throttle(n);
        }
      }
      try {
        f = client.namespace().moveMembers(f.path(), f.id(), f.version(), f.generation(), from,
            to);
        moved++;
        if (copy) {
          // the live target's old members: no layout names them now (readers that still
          // held the old layout follow the switch, io.parityfs.client.PfsInputStream#moved)
          forget(f, map, f.layout().targets().indexOf(to), from, units);
        }
      } catch (NamespaceException e) {
        switch (e.status()) {
          case CONFLICT, LEASE_CONFLICT -> {
            if (!namedNow(f, to)) {
              // what this move wrote on the replacement; not when another mover switched the
              // file onto the same target meanwhile: those members are its
              forget(f, map, f.layout().targets().indexOf(from), to, units);
            }
            return new Outcome(f.path(), moved, members, bytes, "written meanwhile: left for"
                + " the next pass (" + e.getMessage() + ")");
          }
          default -> throw e;
        }
      }
    }
    return new Outcome(f.path(), moved, members, bytes, null);
  }

  /**
   * {@code f} with its groups in copies and its torn groups sealed ({@link Repairer#handOff}),
   * before a drain or a rebalance copies its members (docs/across-nodes.md, "Moves"): a copy on
   * a parity target is not a member, so a group moved as it is would keep its committed bytes
   * on its own member alone. Null when one is left unsealed (a target down). Re-protection does
   * not come here: its lost target cannot take a seal, and it rebuilds members as they are.
   */
  private FileStatus sealed(FileStatus f) throws IOException {
    if (!f.layout().across().isErasureCoded()) {
      return f;
    }
    Repairer.Seal s = rebuilder.seal(f, 0);
    return s.done() ? s.file() : null;
  }

  /**
   * The groups of {@code f} in the order to rebuild them: those with the fewest usable members
   * first (the most members in its repair record, which holds the lost target's too), then by
   * number; null (in order) when every group has as many.
   */
  public static long[] endangeredFirst(FileStatus f, ChunkMap map, long units) {
    if (units > Integer.MAX_VALUE - 8) {
      return null;
    }
    Layout l = f.layout();
    boolean ec = l.across().isErasureCoded();
    int width = ec ? map.members() : map.copies();
    int[] gone = new int[(int) units];
    boolean differ = false;
    for (long g = 0; g < units; g++) {
      for (int j = 0; j < width; j++) {
        String t = l.targets().get(ec ? map.memberPosition(g, j) : map.copyPosition(g, j));
        gone[(int) g] += f.repairs().stale(t, g) ? 1 : 0;
      }
      differ |= gone[(int) g] != gone[0];
    }
    if (!differ) {
      return null;
    }
    return java.util.stream.LongStream.range(0, units).boxed()
        .sorted(java.util.Comparator.<Long>comparingInt(g -> -gone[(int) (long) g])
            .thenComparing(g -> g))
        .mapToLong(Long::longValue).toArray();
  }

  /** A target for {@code from}'s position of {@code layout} ({@link TargetPlacement#replacement}). */
  private String replacement(Layout layout, String from, String path) throws NamespaceException {
    String to = placement.replacement(layout, layout.targets().indexOf(from), path);
    if (!client.memberIo().healthy(to)) {
      throw new NamespaceException(io.parityfs.meta.NamespaceStatus.UNAVAILABLE, path, "target "
          + to + ", drawn as the replacement, does not answer");
    }
    return to;
  }

  /** Whether {@code f}'s layout as it is now names {@code target} (true when unknown). */
  private boolean namedNow(FileStatus f, String target) {
    try {
      FileStatus now = client.namespace().getStatus(f.path());
      return now.id() == f.id() && now.layout().targets().contains(target);
    } catch (IOException e) {
      return true; // cannot tell: leave an orphan rather than delete a member in use
    }
  }

  /** {@code to}, when it may take {@code from}'s position of {@code layout} and answers. */
  private String checked(Layout layout, String from, String to, String path)
      throws NamespaceException {
    if (!placement.candidates(layout, layout.targets().indexOf(from), path).contains(to)) {
      throw new NamespaceException(io.parityfs.meta.NamespaceStatus.UNAVAILABLE, path, "target "
          + to + " may not take " + from + "'s position (in the layout, not placeable, full,"
          + " or on a failure domain its neighbours use)");
    }
    if (!client.memberIo().healthy(to)) {
      throw new NamespaceException(io.parityfs.meta.NamespaceStatus.UNAVAILABLE, path, "target "
          + to + " does not answer");
    }
    return to;
  }

  /**
   * Deletes the members at {@code position} on {@code to} (best effort): what a move that was
   * not committed wrote there, or the members a copy left on the target it moved off.
   */
  private void forget(FileStatus f, ChunkMap map, int position, String to, long units) {
    for (long g = 0; g < units; g++) {
      if (f.holes().contains(g)) {
        continue;
      }
      for (ChunkMap.Placed p : map.membersAt(g, position)) { // data past the end too
        try {
          client.memberIo().delete(to, f.id(), p.index(), f.generation());
        } catch (IOException | RuntimeException e) {
          return; // an orphan is left on the replacement; the file is whole without it
        }
      }
    }
  }

  private synchronized void throttle(long n) {
    written += n;
    if (bytesPerSecond == 0) {
      return;
    }
    long due = started + (long) (written * 1e9 / bytesPerSecond);
    long wait = due - System.nanoTime();
    if (wait > 0) {
      try {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

}
