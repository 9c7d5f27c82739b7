package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.format.DrivePlacement;
import java.util.Comparator;
import java.util.function.ToLongFunction;

/**
 * Pure functions from drive states to health: the {@link ArrayState} of an array, and per object
 * how many shards it has lost, whether it can be read, and which objects a rebuild must save
 * first.
 *
 * <p>Slot states come as a {@code DriveState[]} indexed by slot number, the numbering of {@link
 * DrivePlacement}. {@link DriveState#SPARE} entries are standby drives holding no shards and never
 * count. A data slot is <em>unavailable</em> when it is {@link DriveState#FAILED}, {@link
 * DriveState#MISSING} or {@link DriveState#REBUILDING}: a drive being rebuilt counts as lost
 * until its rebuild completes and it is marked {@link DriveState#ONLINE}, because this class does
 * not know which of its objects are already restored.
 *
 * <p>The tolerance is how many lost shards an object survives: {@code m} for a code ({@link
 * io.parityfs.raid.codec.CodecGeometry#m()}), {@code copies - 1} for a mirror.
 *
 * <p>Stateless and thread-safe.
 */
public final class ArrayHealth {
  private ArrayHealth() {}

  /**
   * The state of an array whose slots are in {@code slots}.
   *
   * <table>
   *   <caption>unavailable data slots (u) to array state</caption>
   *   <tr><th>u</th><th>rebuild running</th><th>state</th></tr>
   *   <tr><td>0</td><td>either</td><td>OPTIMAL</td></tr>
   *   <tr><td>1..tolerance</td><td>no</td><td>DEGRADED</td></tr>
   *   <tr><td>1..tolerance</td><td>yes</td><td>REBUILDING</td></tr>
   *   <tr><td>&gt; tolerance</td><td>either</td><td>FAILED</td></tr>
   * </table>
   *
   * FAILED means some object may have lost more than it can repair; with declustered placement
   * and many objects, some almost surely has. The array is still worth assembling: the objects
   * whose drive sets avoid enough of the lost slots remain readable ({@link #readable}).
   *
   * @throws IllegalArgumentException when {@code tolerance < 0}, a state is null, or there is no
   *     data slot (empty, or only spares)
   */
  public static ArrayState arrayState(DriveState[] slots, int tolerance, boolean rebuildRunning) {
    checkTolerance(tolerance);
    int data = 0;
    int unavailable = 0;
    for (int s = 0; s < slots.length; s++) {
      DriveState d = slots[s];
      if (d == null) {
        throw new IllegalArgumentException("slot " + s + " has no state");
      }
      if (d != DriveState.SPARE) {
        data++;
        if (isUnavailable(d)) {
          unavailable++;
        }
      }
    }
    if (data == 0) {
      throw new IllegalArgumentException(
          "no data slot among " + slots.length + " slots (only spares)");
    }
    if (unavailable == 0) {
      return ArrayState.OPTIMAL;
    }
    if (unavailable > tolerance) {
      return ArrayState.FAILED;
    }
    return rebuildRunning ? ArrayState.REBUILDING : ArrayState.DEGRADED;
  }

  /**
   * The unavailable slots as a mask, bit {@code s} for slot {@code s}.
   *
   * @throws IllegalArgumentException when there are more than 64 slots or a state is null
   */
  public static long unavailableMask(DriveState[] slots) {
    if (slots.length > DrivePlacement.MAX_SLOTS) {
      throw new IllegalArgumentException(
          "slots (" + slots.length + ") must be <= " + DrivePlacement.MAX_SLOTS);
    }
    long mask = 0;
    for (int s = 0; s < slots.length; s++) {
      if (slots[s] == null) {
        throw new IllegalArgumentException("slot " + s + " has no state");
      }
      if (isUnavailable(slots[s])) {
        mask |= 1L << s;
      }
    }
    return mask;
  }

  /** Whether a slot in state {@code d} holds no usable shards: FAILED, MISSING or REBUILDING. */
  public static boolean isUnavailable(DriveState d) {
    return d == DriveState.FAILED || d == DriveState.MISSING || d == DriveState.REBUILDING;
  }

  /** Shards lost by an object on {@code driveSet} (a {@link DrivePlacement#placementMask} value). */
  public static int lostShards(long driveSet, long unavailable) {
    return Long.bitCount(driveSet & unavailable);
  }

  /** Shards an object on {@code driveSet} still has. */
  public static int survivingShards(long driveSet, long unavailable) {
    return Long.bitCount(driveSet & ~unavailable);
  }

  /** Whether an object on {@code driveSet} can be read: it lost no more than {@code tolerance}. */
  public static boolean readable(long driveSet, long unavailable, int tolerance) {
    checkTolerance(tolerance);
    return lostShards(driveSet, unavailable) <= tolerance;
  }

  /**
   * Orders objects most endangered first: fewest surviving shards first. Within one geometry
   * that is least remaining margin ({@code tolerance - lost}) first, so a rebuild that follows
   * it restores the objects one more failure would lose before the others. Objects with as many
   * survivors compare equal (a stable sort keeps their order). Unreadable objects sort first;
   * the rebuild reports them rather than restores them.
   *
   * @param driveSetOf the drive-set mask of an object (a {@link DrivePlacement#placementMask} value)
   */
  public static <T> Comparator<T> mostEndangeredFirst(
      ToLongFunction<? super T> driveSetOf, long unavailable) {
    return Comparator.comparingInt(o -> survivingShards(driveSetOf.applyAsLong(o), unavailable));
  }

  private static void checkTolerance(int tolerance) {
    if (tolerance < 0) {
      throw new IllegalArgumentException("tolerance (" + tolerance + ") must be >= 0");
    }
  }
}
