package io.parityfs.meta.targets;

import java.util.HashMap;
import java.util.Map;

/**
 * The capacity and free space of a set of targets (a pool, the cluster), counting each file
 * system once: what {@code parityfs df}, Hadoop's {@code getStatus} and the mount's {@code
 * statfs} report.
 *
 * <p>Each target's estimates are its node's (chunk bytes, after its protection). Several
 * targets may sit on one file system: the nodes of a local cluster on one machine, two targets
 * of one node on one disk. Summing them would count that disk once per target. So a target that
 * names its file systems ({@link TargetInfo#fileSystems()}) has its estimates split over them in
 * proportion to its data drives (failed ones included) on each; each file system adds the
 * largest share any of its targets has of it (the space is shared: one of them can use it all, not all of them at
 * once). A target that names none (its node is older, or a drive's file system has no id) adds
 * its estimates in full, as before. Targets of distinct file systems thus add up, and N targets
 * on one disk count it once.
 *
 * @param capacityBytes chunk bytes the targets can hold
 * @param freeBytes chunk bytes that still fit (at most {@code capacityBytes})
 */
public record SpaceTotal(long capacityBytes, long freeBytes) {
  public static final SpaceTotal ZERO = new SpaceTotal(0, 0);

  /** The total of {@code targets}; negative estimates count as 0. */
  public static SpaceTotal of(Iterable<TargetInfo> targets) {
    long capacity = 0;
    long free = 0;
    Map<String, long[]> shared = new HashMap<>(); // file system id -> {capacity, free} share
    for (TargetInfo t : targets) {
      long cap = Math.max(0, t.capacityBytes());
      long fr = Math.max(0, t.freeBytes());
      Map<String, Integer> fs = t.fileSystems();
      long drives = 0;
      for (int n : fs.values()) {
        drives += Math.max(0, n);
      }
      if (drives == 0) {
        capacity = saturatedAdd(capacity, cap);
        free = saturatedAdd(free, fr);
        continue;
      }
      for (Map.Entry<String, Integer> e : fs.entrySet()) {
        long[] s = shared.computeIfAbsent(e.getKey(), k -> new long[2]);
        int n = Math.max(0, e.getValue());
        s[0] = Math.max(s[0], share(cap, n, drives));
        s[1] = Math.max(s[1], share(fr, n, drives));
      }
    }
    for (long[] s : shared.values()) {
      capacity = saturatedAdd(capacity, s[0]);
      free = saturatedAdd(free, s[1]);
    }
    return new SpaceTotal(capacity, Math.min(free, capacity));
  }

  /** {@code bytes * n / of}, rounded down, without overflow ({@code 0 <= n <= of}). */
  private static long share(long bytes, long n, long of) {
    return bytes / of * n + bytes % of * n / of;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }
}
