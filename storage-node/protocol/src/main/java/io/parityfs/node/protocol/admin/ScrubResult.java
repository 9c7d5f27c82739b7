package io.parityfs.node.protocol.admin;

import java.util.List;
import java.util.Objects;

/**
 * What the last scrub of a target found and did, as a finished scrub's {@link ArrayTask} carries
 * it (its {@code result}). The counts are the node's scrub report's; the object ids are the
 * first {@link #MAX_IDS} of the unrecoverable objects, as 16 hex digits, so a scrub that lost
 * more lists fewer ids than it counts.
 *
 * <pre>
 * {"started":"2026-12-06T22:40:01.250Z","ended":"2026-12-06T22:40:03.001Z","cancelled":false,
 *  "objectsChecked":23,"stripesChecked":92,"cellsChecked":552,"crcErrors":4,
 *  "parityMismatches":0,"missingShards":0,"repaired":1,"unavailableShards":0,"driveErrors":0,
 *  "unrecoverableObjects":1,"unrecoverableIds":["0123456789abcdef"]}
 * </pre>
 *
 * @param started when the scrub began, ISO-8601 (UTC)
 * @param ended when it ended or was cancelled, ISO-8601 (UTC)
 * @param cancelled true when it stopped before reaching every object
 * @param objectsChecked objects whose latest version it checked
 * @param stripesChecked stripes checked
 * @param cellsChecked cells read and checked against their CRC32C
 * @param crcErrors cells that failed their CRC32C
 * @param parityMismatches stripes whose parity (mirror: copies) disagreed with their data
 * @param missingShards shard files absent or unreadable on live drives
 * @param repaired what it rewrote: bad cells, wrong parity, re-created shards
 * @param unavailableShards shards on failed or absent drives (a rebuild's business)
 * @param driveErrors drive failures met
 * @param unrecoverableObjects objects with a stripe it could not reconstruct: reads of them fail
 * @param unrecoverableIds the first {@link #MAX_IDS} of those, 16 hex digits each
 */
public record ScrubResult(String started, String ended, boolean cancelled, long objectsChecked,
    long stripesChecked, long cellsChecked, long crcErrors, long parityMismatches,
    long missingShards, long repaired, long unavailableShards, long driveErrors,
    long unrecoverableObjects, List<String> unrecoverableIds) {
  /** The most object ids a result lists. */
  public static final int MAX_IDS = 100;

  public ScrubResult {
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(ended, "ended");
    unrecoverableIds = List.copyOf(Objects.requireNonNull(unrecoverableIds, "unrecoverableIds"));
  }

  /**
   * One phrase for the command line: {@code checked 23 objects, repaired 1, unrecoverable 1
   * (objects: 0123456789abcdef)}, the ids left out when there are none, ", …" when some are not
   * listed; {@code checked 7 objects (cancelled), ...} for a scrub stopped early.
   */
  public String summary() {
    StringBuilder b = new StringBuilder("checked ").append(objectsChecked)
        .append(cancelled ? " objects (cancelled), repaired " : " objects, repaired ").append(repaired).append(", unrecoverable ")
        .append(unrecoverableObjects);
    if (!unrecoverableIds.isEmpty()) {
      b.append(" (objects: ").append(String.join(", ", unrecoverableIds))
          .append(unrecoverableObjects > unrecoverableIds.size() ? ", …)" : ")");
    }
    return b.toString();
  }
}
