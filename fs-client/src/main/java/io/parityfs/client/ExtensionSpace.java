package io.parityfs.client;

import io.parityfs.meta.Across;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a file's targets can hold an extension of it (a truncate up, a write past the end)
 * whose zeros are stored, not holes (a file whose hole record is full, {@link
 * io.parityfs.meta.Holes#MAX_RANGES}): with the copies ({@code mirror:N}) or the parity
 * ({@code ec:K+M}) of its protection across nodes. The bytes are spread evenly over the layout's
 * targets; a target's share is split over the file systems its drives are on (in proportion to
 * its drives there, as {@link io.parityfs.meta.targets.SpaceTotal} counts them), and targets on
 * one file system (a local cluster's nodes, two targets of one disk) add their shares there:
 * they compete for one free space. Before, the check took each target's free space alone and
 * left out the protection across nodes, so a 100 GiB truncate passed on three targets sharing
 * 46 GiB and filled the disk. Free space is as the nodes last reported it (chunk bytes, after
 * their own protection).
 */
final class ExtensionSpace {
  private ExtensionSpace() {}

  /** Stored bytes per data byte of {@code across}: N for mirror:N, (K+M)/K for ec:K+M. */
  static double overhead(Across across) {
    if (across.isNone()) {
      return 1;
    }
    return across.isErasureCoded() ? (double) across.width() / across.data() : across.width();
  }

  /**
   * Null when {@code bytes} more data bytes of a file of {@code layout} fit on {@code targets}
   * (its targets' registry records; a target without one counts as full), else why not: how
   * much would be stored on which file system (or target) and how much is free there.
   */
  static String refusal(Layout layout, List<TargetInfo> targets, long bytes) {
    int n = layout.targets().size();
    if (n == 0) {
      return null;
    }
    Map<String, TargetInfo> known = new HashMap<>();
    for (TargetInfo t : targets) {
      known.put(t.id(), t);
    }
    double stored = bytes * overhead(layout.across());
    // each target's share, and one chunk (and its copies or parity) of slack for the rounding
    double share = stored / n + layout.chunkSize() * Math.ceil(overhead(layout.across()));
    Map<String, double[]> fileSystems = new LinkedHashMap<>(); // id -> {demand, free}
    for (String id : layout.targets()) {
      TargetInfo t = known.get(id);
      if (t == null) {
        return "needs about " + (long) share + " bytes on target " + id + ", which is not in"
            + " the registry";
      }
      long drives = t.fileSystems().values().stream().mapToLong(d -> Math.max(0, d)).sum();
      long free = Math.max(0, t.freeBytes());
      if (drives == 0) {
        if (share > free) {
          return stores(stored, layout) + ", about " + (long) share + " on target " + id
              + ", which has " + free + " bytes free";
        }
        continue;
      }
      for (Map.Entry<String, Integer> fs : t.fileSystems().entrySet()) {
        double part = (double) Math.max(0, fs.getValue()) / drives;
        double[] s = fileSystems.computeIfAbsent(fs.getKey(), k -> new double[2]);
        s[0] += share * part;
        s[1] = Math.max(s[1], free * part);
      }
    }
    for (Map.Entry<String, double[]> fs : fileSystems.entrySet()) {
      double[] s = fs.getValue();
      if (s[0] > s[1]) {
        return stores(stored, layout) + ", about " + (long) s[0] + " on file system "
            + fs.getKey() + " (shared by its targets of this file), which has " + (long) s[1]
            + " bytes free";
      }
    }
    return null;
  }

  private static String stores(double stored, Layout layout) {
    return "stores " + (long) stored + " bytes of zeros (not holes: its hole record is full"
        + (layout.across().isNone() ? "" : "; with " + layout.across() + " across nodes") + ")";
  }
}
