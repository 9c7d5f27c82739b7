package io.parityfs.meta.registry;

/**
 * A target declared offline, {@code /parityfs/offline/<targetId>}, persistent: written by the
 * cluster manager ({@code TargetRegistry.markOffline}) when a target's node stayed away past its
 * timeout, so every metadata server treats the target as offline whatever it last saw. It ends
 * when the target's node registers again (an online record created after this record's last
 * write, by ZooKeeper transaction order) or when it is cleared.
 *
 * @param schema {@link RegistryCodec#SCHEMA}
 * @param targetId the target
 * @param reason why, for people (at most 1,024 characters)
 * @param markedMillis when it was written (the writer's clock)
 */
public record OfflineRecord(int schema, String targetId, String reason, long markedMillis) {
  /** The longest {@code reason}, in characters. */
  public static final int MAX_REASON = 1024;

  public OfflineRecord {
    if (reason == null) {
      reason = "";
    } else if (reason.length() > MAX_REASON) {
      throw new IllegalArgumentException("reason (" + reason.length() + " characters) must be"
          + " at most " + MAX_REASON);
    }
  }
}
