package io.parityfs.raid.codec;

import io.parityfs.raid.gf.GfMatrix;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * A small lock-free cache of {@link ReconstructionPlan}s keyed by (available shards, targets).
 * A hit allocates nothing; a miss computes the plan (a k x k inversion) and replaces whatever
 * occupied its slot, so memory stays bounded however many erasure patterns a long-running node
 * sees. Plans are immutable, so a racing reader sees either the old or the new one, both valid.
 */
public final class ReconstructionPlanCache {
  private static final int SLOTS = 256;

  private final CodecGeometry geometry;
  private final Function<GfMatrix, Object> compiler;
  private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);

  private record Entry(long availableMask, long targetMask, ReconstructionPlan plan) {}

  public ReconstructionPlanCache(CodecGeometry geometry, Function<GfMatrix, Object> compiler) {
    this.geometry = geometry;
    this.compiler = compiler;
  }

  /** The plan to restore {@code targetMask} from {@code availableMask}. */
  public ReconstructionPlan get(long availableMask, long targetMask) {
    long h = (availableMask * 0x9E3779B97F4A7C15L) ^ (targetMask * 0xC2B2AE3D27D4EB4FL);
    int slot = (int) (h ^ (h >>> 29) ^ (h >>> 47)) & (SLOTS - 1);
    Entry e = slots.get(slot);
    if (e != null && e.availableMask == availableMask && e.targetMask == targetMask) {
      return e.plan;
    }
    ReconstructionPlan plan =
        ReconstructionPlan.compute(geometry, availableMask, targetMask, compiler);
    slots.set(slot, new Entry(availableMask, targetMask, plan));
    return plan;
  }
}
