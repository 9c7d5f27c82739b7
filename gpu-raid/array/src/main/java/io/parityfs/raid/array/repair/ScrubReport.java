package io.parityfs.raid.array.repair;

import io.parityfs.raid.array.object.ObjectStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What one scrub ({@link Scrubber#run}) found and did. Counts cover the latest committed version
 * of every object the scrub reached (all of them unless it was {@link #cancelled}). Immutable.
 *
 * @param started when the scrub began
 * @param duration how long it ran
 * @param cancelled true when it was stopped before reaching every object
 * @param objectsScanned objects whose latest version was checked (whole or, if cancelled, in part)
 * @param objectsSkipped objects with no committed version, or rewritten or deleted while the scrub
 *     was on them (garbage collection's business, or checked again next time)
 * @param stripes stripes checked
 * @param cellsChecked cells read and checked against their CRC32C
 * @param bytesRead cell bytes read
 * @param crcErrors cells that failed their CRC32C
 * @param crcErrorsRepaired of those, the cells rewritten with reconstructed bytes
 * @param parityMismatches stripes whose cells all passed their CRC but whose parity cells (mirror:
 *     copies) disagreed with the data cells (mirror: the first good copy)
 * @param parityMismatchesRepaired of those, the stripes whose wrong cells were all rewritten
 * @param missingShards shard files absent or unreadable as a whole (corrupt header, wrong length,
 *     disagreeing with the manifest) on live drives
 * @param shardsRecreated of those, the shards the scrub re-created from the survivors (as a
 *     rebuild does: reconstructed, written under a temp name, published with the manifest)
 * @param unavailableShards shards on slots that are failed or absent (before or during the scrub):
 *     also a rebuild's business
 * @param unrecoverableObjects objects with a stripe that has more unusable shards than the
 *     protection tolerates, or whose surviving cells disagree so that no reconstruction can be
 *     trusted; nothing was written for such a stripe
 * @param unrecoverableIds the first {@link Scrubber#MAX_LISTED_IDS} of those objects' ids
 * @param driveErrors drive failures (DRIVE_IO) met; each marked its slot failed in the store
 * @param failedSlots the store's failed slots when the scrub ended, as {@link
 *     ObjectStore#failedSlots}
 */
public record ScrubReport(
    Instant started,
    Duration duration,
    boolean cancelled,
    long objectsScanned,
    long objectsSkipped,
    long stripes,
    long cellsChecked,
    long bytesRead,
    long crcErrors,
    long crcErrorsRepaired,
    long parityMismatches,
    long parityMismatchesRepaired,
    long missingShards,
    long shardsRecreated,
    long unavailableShards,
    long unrecoverableObjects,
    List<Long> unrecoverableIds,
    long driveErrors,
    long failedSlots) {

  public ScrubReport {
    unrecoverableIds = List.copyOf(unrecoverableIds);
  }

  /** True when the scrub found nothing wrong (it may still have been cancelled). */
  public boolean clean() {
    return crcErrors == 0 && parityMismatches == 0 && missingShards == 0
        && unavailableShards == 0 && unrecoverableObjects == 0 && driveErrors == 0;
  }

  /** True when every problem found was repaired here (missing shards re-created included). */
  public boolean allRepaired() {
    return crcErrorsRepaired == crcErrors && parityMismatchesRepaired == parityMismatches
        && shardsRecreated == missingShards && unrecoverableObjects == 0;
  }

  /**
   * What the scrub rewrote: cells that failed their CRC, stripes whose wrong parity (mirror:
   * copies) it rewrote, and missing shards it re-created.
   */
  public long repaired() {
    return crcErrorsRepaired + parityMismatchesRepaired + shardsRecreated;
  }

  /**
   * This report less {@code objectId}, one of {@link #unrecoverableIds} (this report itself when
   * it does not list it): one unrecoverable object fewer, that id left out. For the standing
   * damage, once the object has been rewritten or deleted ({@link Scrubber#damage}).
   */
  ScrubReport without(long objectId) {
    if (!unrecoverableIds.contains(objectId)) {
      return this;
    }
    List<Long> ids = new ArrayList<>(unrecoverableIds);
    ids.remove(Long.valueOf(objectId));
    return new ScrubReport(started, duration, cancelled, objectsScanned, objectsSkipped, stripes,
        cellsChecked, bytesRead, crcErrors, crcErrorsRepaired, parityMismatches,
        parityMismatchesRepaired, missingShards, shardsRecreated, unavailableShards,
        Math.max(0, unrecoverableObjects - 1), ids, driveErrors, failedSlots);
  }

  /** When the scrub ended (or was cancelled). */
  public Instant ended() {
    return started.plus(duration);
  }

  /** One paragraph for logs and the command line. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("scrub ");
    b.append(cancelled ? "cancelled" : "finished").append(" after ")
        .append(seconds(duration)).append(" (started ").append(started).append("): ")
        .append(objectsScanned).append(" objects, ").append(stripes).append(" stripes, ")
        .append(cellsChecked).append(" cells, ").append(mib(bytesRead)).append(" read");
    if (objectsSkipped > 0) {
      b.append(", ").append(objectsSkipped).append(" objects skipped");
    }
    if (clean()) {
      return b.append("; no problems found.").toString();
    }
    b.append("; ").append(crcErrors).append(" CRC errors (").append(crcErrorsRepaired)
        .append(" repaired), ").append(parityMismatches).append(" parity mismatches (")
        .append(parityMismatchesRepaired).append(" repaired), ").append(missingShards)
        .append(" missing shards (").append(shardsRecreated).append(" re-created) and ").append(unavailableShards)
        .append(" shards on failed drives (need rebuild), ").append(unrecoverableObjects)
        .append(" unrecoverable objects");
    if (!unrecoverableIds.isEmpty()) {
      b.append(" [").append(unrecoverableIds.stream().map(id -> String.format("%016x", id))
          .collect(Collectors.joining(", ")));
      b.append(unrecoverableObjects > unrecoverableIds.size() ? ", …]" : "]");
    }
    b.append(", ").append(driveErrors).append(" drive errors");
    if (failedSlots != 0) {
      b.append("; failed slots ").append(slots(failedSlots));
    }
    return b.append('.').toString();
  }

  private static String seconds(Duration d) {
    return String.format("%.1f s", d.toMillis() / 1000.0);
  }

  private static String mib(long bytes) {
    return String.format("%.1f MiB", bytes / (double) (1 << 20));
  }

  private static String slots(long mask) {
    StringBuilder b = new StringBuilder("[");
    for (int s = 0; s < 64; s++) {
      if ((mask & (1L << s)) != 0) {
        b.append(b.length() > 1 ? ", " : "").append(s);
      }
    }
    return b.append(']').toString();
  }
}
