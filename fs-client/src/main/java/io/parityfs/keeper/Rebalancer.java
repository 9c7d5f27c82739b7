package io.parityfs.keeper;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.meta.targets.TargetPlacement;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Rebalance (docs/across-nodes.md §5): spreads existing files onto targets added since they were
 * written, so capacity and bandwidth grow with the cluster. The load of a target is the bytes
 * of the closed files' members its layouts place on it (from the layouts and lengths, so it
 * counts this file system's data only, whatever else shares the drives). Within each pool, while
 * a placeable target holds more than {@code (1 + threshold)} times the pool's mean, a file on
 * it (the largest first) has its members there copied to the least loaded target that may take
 * that position ({@link TargetPlacement#candidates}: in service, not full, keeping the policy's
 * windows on distinct failure domains) and its layout switched ({@link Reprotector#rebalance}:
 * a drain's copy, so protection never drops) — only when that target stays at or below the
 * mean. A move takes the mover lock of the target it moves off, without waiting: while a drain,
 * re-protection or another rebalance holds it, the file is left for a later run. Resumable: run
 * again, it starts from the layouts as they are. Throttled by the mover's rate. Not
 * thread-safe.
 */
public final class Rebalancer {
  /**
   * One move, planned or done.
   *
   * @param bytes the bytes of the file's members on {@code from}
   */
  public record Move(String path, String from, String to, long bytes) {}

  /** What the pass tells its caller about each move, as it goes. */
  public interface Listener {
    /**
     * @param outcome what moving did; null in a dry run, or when it failed with {@code error}
     */
    void moved(Move move, Reprotector.Outcome outcome, IOException error);
  }

  /**
   * Totals of a pass.
   *
   * @param targets placeable targets balanced
   * @param spreadBefore (most − least loaded) / mean over them before the pass, by pool the
   *     largest; 0 when they hold nothing
   * @param spreadAfter the same after the moves (planned, in a dry run)
   * @param moves moves done (planned)
   * @param bytes bytes those moves copy
   * @param skipped moves that were not done: the file was open, written meanwhile, another
   *     pass held the mover lock of the target to move off ({@link MovePass#tryLock}), or the
   *     move failed
   */
  public record Summary(int targets, double spreadBefore, double spreadAfter, long moves,
      long bytes, long skipped) {}

  private final ParityClient client;
  private final Reprotector mover;
  private final TargetPlacement placement;
  private final double threshold;

  /**
   * @param bytesPerSecond the most the moves write per second (0: unthrottled)
   * @param threshold how far above its pool's mean a target may stay, as a fraction (0.1: 10 %)
   */
  public Rebalancer(ParityClient client, long bytesPerSecond, double threshold) {
    if (!(threshold >= 0 && threshold <= 10)) {
      throw new IllegalArgumentException("threshold (" + threshold + ") must be in [0, 10]");
    }
    this.client = client;
    this.mover = new Reprotector(client, bytesPerSecond);
    this.placement = new TargetPlacement(client.registry(), client.config().placement());
    this.threshold = threshold;
  }

  /**
   * Balances the files under {@code roots}, stopping between moves once {@code going} turns
   * false; {@code dryRun}: plans only.
   */
  public Summary run(List<String> roots, boolean dryRun, Listener listener,
      BooleanSupplier going) throws IOException {
    Map<String, TargetInfo> placeable = new LinkedHashMap<>();
    for (TargetInfo t : client.registry().targets()) {
      if (t.placeable()) {
        placeable.put(t.id(), t);
      }
    }
    List<FileStatus> files = new ArrayList<>();
    Map<String, Long> load = new HashMap<>();
    placeable.keySet().forEach(id -> load.put(id, 0L));
    Namespace ns = client.namespace();
    for (String root : roots) {
      FileWalk.<IOException>files(ns, ns.getStatus(root), f -> {
        if (!f.isOpenForWrite() && f.length() > 0) {
          files.add(f);
          bytesOn(f).forEach((t, b) -> load.merge(t, b, Long::sum));
        }
      });
    }
    files.sort(Comparator.comparingLong(FileStatus::length).reversed());
    double before = spread(placeable, load);
    long moves = 0;
    long bytes = 0;
    long skipped = 0;
    // the files' layouts as moved so far (planned ones, in a dry run); files left out of this
    // pass (open, written meanwhile, failed) drop out of it
    Map<String, Layout> layouts = new LinkedHashMap<>();
    files.forEach(f -> layouts.put(f.path(), f.layout()));
    boolean progress = true;
    // passes over the files until none moves: the result is a fixed point, so running the
    // rebalance again at once finds nothing to do
    while (progress && going.getAsBoolean()) {
      progress = false;
      for (FileStatus f : files) {
        if (!going.getAsBoolean()) {
          break;
        }
        Layout layout = layouts.get(f.path());
        if (layout == null) {
          continue;
        }
        Map<String, Long> on = bytesOn(f.withLayout(layout));
        for (String from : List.copyOf(layout.targets())) {
          TargetInfo src = placeable.get(from);
          long b = on.getOrDefault(from, 0L);
          if (src == null || b == 0 || load.get(from) <= upper(placeable, load, src.pool())) {
            continue;
          }
          String to = leastLoaded(layout, from, f.path(), load, b,
              mean(placeable, load, src.pool()));
          if (to == null) {
            continue;
          }
          Move m = new Move(f.path(), from, to, b);
          if (dryRun) {
            listener.moved(m, null, null);
            List<String> t = new ArrayList<>(layout.targets());
            t.set(t.indexOf(from), to);
            layout = layout.withTargets(t);
          } else {
            Reprotector.Outcome o = null;
            IOException error = null;
            MovePass.Held held = MovePass.tryLock(client, from);
            if (held == null) {
              error = new IOException(f.path() + ": not moved off " + from + ": another pass"
                  + " (a drain, re-protection or rebalance) holds its mover lock; left for a"
                  + " later run");
            } else {
              try (held) {
                o = mover.rebalance(f.path(), from, to);
              } catch (IOException e) {
                error = e;
              }
            }
            listener.moved(m, o, error);
            if (o == null || o.skipped() != null || o.moved() == 0) {
              skipped++;
              layout = null; // the file changed or cannot move: left for the next run
              break;
            }
            layout = client.namespace().getStatus(f.path()).layout();
          }
          layouts.put(f.path(), layout);
          progress = true;
          moves++;
          bytes += b;
          load.merge(from, -b, Long::sum);
          load.merge(to, b, Long::sum);
        }
        if (layout == null) {
          layouts.remove(f.path());
        }
      }
    }
    return new Summary(placeable.size(), before, spread(placeable, load), moves, bytes,
        skipped);
  }

  /**
   * The least loaded target that may take {@code from}'s position and stays at or below the
   * pool's {@code mean} after taking {@code b} bytes (so members move onto targets that lack
   * them, not round the loaded ones); null when none.
   */
  private String leastLoaded(Layout layout, String from, String path, Map<String, Long> load,
      long b, double mean) {
    List<String> candidates;
    try {
      candidates = placement.candidates(layout, layout.targets().indexOf(from), path);
    } catch (NamespaceException e) {
      return null;
    }
    String best = null;
    for (String c : candidates) {
      Long l = load.get(c);
      if (l != null && (best == null || l < load.get(best))) {
        best = c;
      }
    }
    return best != null && load.get(best) + b <= mean ? best : null;
  }

  private double upper(Map<String, TargetInfo> placeable, Map<String, Long> load, String pool) {
    return mean(placeable, load, pool) * (1 + threshold);
  }

  private static double mean(Map<String, TargetInfo> placeable, Map<String, Long> load,
      String pool) {
    long sum = 0;
    int n = 0;
    for (TargetInfo t : placeable.values()) {
      if (t.pool().equals(pool)) {
        sum += load.get(t.id());
        n++;
      }
    }
    return n == 0 ? 0 : (double) sum / n;
  }

  /** The largest (most − least) / mean of a pool. */
  private static double spread(Map<String, TargetInfo> placeable, Map<String, Long> load) {
    double worst = 0;
    for (String pool : placeable.values().stream().map(TargetInfo::pool).distinct().toList()) {
      double mean = mean(placeable, load, pool);
      long max = Long.MIN_VALUE;
      long min = Long.MAX_VALUE;
      for (TargetInfo t : placeable.values()) {
        if (t.pool().equals(pool)) {
          max = Math.max(max, load.get(t.id()));
          min = Math.min(min, load.get(t.id()));
        }
      }
      worst = mean == 0 ? worst : Math.max(worst, (max - min) / mean);
    }
    return worst;
  }

  /** The bytes of {@code f}'s stored chunks on each of its targets. */
  static Map<String, Long> bytesOn(FileStatus f) {
    Layout l = f.layout();
    ChunkMap map = ChunkMap.of(l);
    Map<String, Long> out = new HashMap<>();
    for (ChunkMap.Placed p : map.stored(f.length(), f.holes())) {
      // a parity chunk is as long as its group's first data chunk
      long chunk = map.isParity(p.index())
          ? map.groupOf(p.index()) * map.groupSize() : p.index();
      long n = Math.min(l.chunkSize(), f.length() - chunk * l.chunkSize());
      out.merge(l.targets().get(p.position()), n, Long::sum);
    }
    return out;
  }
}
