package io.parityfs.raid.array.repair;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of a {@link Rebuilder}: where it is, how much it has done and has left, and, once it
 * ended, its summary. Immutable; {@link Rebuilder#progress()} builds a new one on each call.
 *
 * <p>Counting. The rebuild first plans: every live object with a shard on the slot is either
 * already there ({@link #objectsSkipped}: a rebuild resumed, or a write since the drive joined) or
 * to be rebuilt ({@link #objectsTotal}). Each planned object ends as rebuilt, lost (more shards
 * unavailable than the protection tolerates: listed in {@link #lostObjects}) or superseded (a
 * newer version was committed meanwhile; that write already put its shard on the new drive).
 * {@link #bytesTotal} is the cell bytes of the planned shards (cells × cell size); an object
 * dropped part way (lost, superseded) takes its unwritten remainder off the total, so a finished
 * rebuild has {@code bytesDone == bytesTotal} and {@code objectsDone() == objectsTotal}.
 *
 * @param state where the rebuild is
 * @param slot the slot being rebuilt
 * @param objectsTotal objects planned to rebuild (0 while planning)
 * @param objectsRebuilt objects whose shard was written, with its manifest, on the new drive
 * @param objectsSkipped objects whose shard was already on the new drive (not in the total)
 * @param objectsSuperseded planned objects dropped because a newer version was committed
 * @param objectsLost planned objects that cannot be restored
 * @param lostObjects the ids of the lost objects, in the order met
 * @param bytesTotal cell bytes to write
 * @param bytesDone cell bytes written (or given up) so far
 * @param cellsRepaired corrupt cells of surviving shards met and rewritten on the way
 * @param elapsed time since the rebuild started
 * @param failure why the rebuild failed (state FAILED), else null
 */
public record RebuildProgress(
    State state,
    int slot,
    long objectsTotal,
    long objectsRebuilt,
    long objectsSkipped,
    long objectsSuperseded,
    long objectsLost,
    List<Long> lostObjects,
    long bytesTotal,
    long bytesDone,
    long cellsRepaired,
    Duration elapsed,
    String failure) {

  /** The life of a rebuild: NEW, PLANNING, RUNNING, then one of DONE, STOPPED, FAILED. */
  public enum State {
    /** Not started. */
    NEW,
    /** Listing the objects and checking which shards the new drive already has. */
    PLANNING,
    /** Rebuilding shards. */
    RUNNING,
    /** Every planned object was handled; the slot can be finished if none was lost. */
    DONE,
    /** Stopped by {@link Rebuilder#stop()}; a new rebuild resumes where this one stopped. */
    STOPPED,
    /** Ended by an error (the new drive failed, for one): see {@link #failure()}. */
    FAILED;

    /** Whether the rebuild has ended. */
    public boolean ended() {
      return this == DONE || this == STOPPED || this == FAILED;
    }
  }

  public RebuildProgress {
    lostObjects = List.copyOf(lostObjects);
  }

  /** Planned objects handled so far: rebuilt, superseded or lost. */
  public long objectsDone() {
    return objectsRebuilt + objectsSuperseded + objectsLost;
  }

  /** Average bytes/s since the start (0 before anything is done). */
  public double bytesPerSecond() {
    double s = elapsed.toNanos() / 1e9;
    return s <= 0 ? 0 : bytesDone / s;
  }

  /** Time left at the average rate so far; empty before a rate is known. */
  public Optional<Duration> eta() {
    if (state.ended()) {
      return Optional.of(Duration.ZERO);
    }
    double rate = bytesPerSecond();
    if (state != State.RUNNING || rate <= 0) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofNanos((long) ((bytesTotal - bytesDone) / rate * 1e9)));
  }

  /** Whether the rebuild finished and restored every planned object: the slot can go ONLINE. */
  public boolean complete() {
    return state == State.DONE && objectsLost == 0;
  }

  @Override
  public String toString() {
    return String.format("rebuild of slot %d %s: %d/%d objects (%d rebuilt, %d skipped, %d"
            + " superseded, %d lost), %d/%d bytes, %.0f B/s, eta %s%s", slot, state,
        objectsDone(), objectsTotal, objectsRebuilt, objectsSkipped, objectsSuperseded,
        objectsLost, bytesDone, bytesTotal, bytesPerSecond(),
        eta().map(Duration::toString).orElse("unknown"),
        failure == null ? "" : ": " + failure);
  }
}
