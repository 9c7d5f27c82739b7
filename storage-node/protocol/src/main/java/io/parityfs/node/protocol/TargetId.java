package io.parityfs.node.protocol;

import java.util.Objects;
import java.util.UUID;

/**
 * A storage target on a node: the id of one of its RAID arrays. On the wire, 16 bytes (the UUID's
 * most significant long, then the least). {@link #ALL} (the nil UUID) means "every target" where an
 * operation allows it (SYNC, ARRAY_STATUS, PROGRESS) and is refused elsewhere.
 */
public record TargetId(UUID uuid) {
  public static final TargetId ALL = new TargetId(new UUID(0, 0));

  public TargetId {
    Objects.requireNonNull(uuid, "uuid");
  }

  public static TargetId of(String uuid) {
    return new TargetId(UUID.fromString(uuid));
  }

  public boolean isAll() {
    return uuid.getMostSignificantBits() == 0 && uuid.getLeastSignificantBits() == 0;
  }

  @Override
  public String toString() {
    return isAll() ? "all" : uuid.toString();
  }
}
