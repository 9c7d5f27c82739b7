package io.parityfs.meta.registry;

/**
 * A target taken out of service, {@code /parityfs/retired/<targetId>}, persistent: written by
 * {@code TargetRegistry.retire} (an admin's {@code node drain} or {@code node remove}, or the
 * cluster manager's dead-after rule) and kept across the node's restarts, until an admin
 * reinstates the target. It stays after the target's own record is removed, so a node that
 * returns with a removed target is known for what it is.
 *
 * @param schema {@link RegistryCodec#SCHEMA}
 * @param targetId the target
 * @param nodeId the node that served it when it was retired
 * @param standing {@code DRAINING} or {@code BAD} ({@code io.parityfs.meta.targets.Standing})
 * @param reason why, for people (at most {@link OfflineRecord#MAX_REASON} characters)
 * @param markedMillis when it was written (the writer's clock)
 */
public record RetiredRecord(int schema, String targetId, String nodeId, String standing,
    String reason, long markedMillis) {
  public RetiredRecord {
    if (reason == null) {
      reason = "";
    } else if (reason.length() > OfflineRecord.MAX_REASON) {
      throw new IllegalArgumentException("reason (" + reason.length() + " characters) must be"
          + " at most " + OfflineRecord.MAX_REASON);
    }
    nodeId = nodeId == null ? "" : nodeId;
  }
}
