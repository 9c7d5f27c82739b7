package io.parityfs.raid.codec;

import io.parityfs.raid.gf.GfMatrix;
import java.util.function.Function;

/**
 * How to restore a set of shards: which k survivors to read and the matrix that turns them into
 * the targets. Row r of {@link #matrix()} produces shard {@code targets()[r]} from the survivors
 * in the order of {@code survivors()}.
 *
 * <p>Derivation: with generator G ((k+m) x k) and survivors S, the data is
 * D = inv(G[S]) x shards[S]; a lost data shard t is row t of inv(G[S]), a lost parity shard t is
 * G[t] x inv(G[S]). Every k x k submatrix of G is invertible for all three schemes (see
 * {@link CodecGeometry}), so any k survivors work; the plan takes the lowest-numbered ones.
 *
 * <p>Immutable; a backend may attach its own compiled form through {@link #compiled()}.
 */
public final class ReconstructionPlan {
  private final long survivorMask;
  private final long targetMask;
  private final int[] survivors;
  private final int[] targets;
  private final GfMatrix matrix;
  private final Object compiled;

  private ReconstructionPlan(
      long survivorMask, long targetMask, int[] survivors, int[] targets, GfMatrix matrix,
      Object compiled) {
    this.survivorMask = survivorMask;
    this.targetMask = targetMask;
    this.survivors = survivors;
    this.targets = targets;
    this.matrix = matrix;
    this.compiled = compiled;
  }

  /**
   * Computes the plan for restoring {@code targetMask} from the shards in {@code availableMask}
   * (which must hold at least k shards and none of the targets).
   *
   * @param compiler turns the plan's matrix into the backend's ready-to-run form
   */
  public static ReconstructionPlan compute(
      CodecGeometry g, long availableMask, long targetMask,
      Function<GfMatrix, Object> compiler) {
    int k = g.k();
    if ((availableMask & targetMask) != 0 || Long.bitCount(availableMask) < k) {
      throw new IllegalArgumentException(
          "cannot restore " + Long.toBinaryString(targetMask) + " from "
              + Long.toBinaryString(availableMask) + " for " + g);
    }
    int[] survivors = new int[k];
    long survivorMask = 0;
    long rest = availableMask;
    for (int i = 0; i < k; i++) {
      survivors[i] = Long.numberOfTrailingZeros(rest);
      survivorMask |= 1L << survivors[i];
      rest &= rest - 1;
    }
    int[] targets = new int[Long.bitCount(targetMask)];
    rest = targetMask;
    for (int i = 0; i < targets.length; i++) {
      targets[i] = Long.numberOfTrailingZeros(rest);
      rest &= rest - 1;
    }
    GfMatrix gen = g.generatorMatrix();
    GfMatrix decode = gen.selectRows(survivors).inverse();
    GfMatrix m = gen.selectRows(targets).times(decode);
    return new ReconstructionPlan(
        survivorMask, targetMask, survivors, targets, m, compiler.apply(m));
  }

  /** The k survivors actually read (a subset of the available shards). */
  public long survivorMask() {
    return survivorMask;
  }

  public long targetMask() {
    return targetMask;
  }

  /** Shard numbers of the survivors, ascending; callers must not modify. */
  public int[] survivors() {
    return survivors;
  }

  /** Shard numbers of the targets, ascending; callers must not modify. */
  public int[] targets() {
    return targets;
  }

  public GfMatrix matrix() {
    return matrix;
  }

  /** The backend's compiled form of {@link #matrix()}. */
  public Object compiled() {
    return compiled;
  }
}
