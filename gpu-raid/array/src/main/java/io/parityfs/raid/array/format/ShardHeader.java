package io.parityfs.raid.array.format;

import java.time.Instant;

/**
 * The header of one shard file ({@link ShardFormat}): which object version and shard it holds,
 * how the object is protected and laid out, and how long it is. The cell count and data length
 * are implied by the rest ({@link ObjectLayout}) and stored anyway, so that a reader checks them
 * against each other; the constructor refuses values that disagree. Build one with {@link #of}.
 * The header also carries the version's {@link VersionTag}, so that a manifest rebuilt from the
 * headers keeps it. Immutable.
 *
 * @param objectId the object
 * @param objectVersion the object's version, >= 0
 * @param shardIndex 0..k-1 data, k..k+m-1 parity; for a mirror: the copy
 * @param protection the object's protection
 * @param cellSize bytes per cell, a power of two, 4 KiB..16 MiB
 * @param cellCount cells in this shard: the object's stripe count
 * @param objectLength the object's logical length in bytes
 * @param dataLength bytes of this shard before its zero padding
 * @param created when the shard was written, millisecond precision
 * @param tag the version's tag, as in its manifest; {@link VersionTag#NONE} for none; not null
 */
public record ShardHeader(
    long objectId,
    long objectVersion,
    int shardIndex,
    Protection protection,
    int cellSize,
    int cellCount,
    long objectLength,
    long dataLength,
    Instant created,
    VersionTag tag) {

  public ShardHeader {
    if (objectVersion < 0) {
      throw new IllegalArgumentException("object version (" + objectVersion + ") must be >= 0");
    }
    if (protection == null) {
      throw new IllegalArgumentException("protection must not be null");
    }
    ArrayConfig.requireCellSize(cellSize);
    if (created == null) {
      throw new IllegalArgumentException("created must not be null");
    }
    ObjectLayout layout = new ObjectLayout(protection, cellSize, objectLength);
    if (shardIndex < 0 || shardIndex >= layout.shards()) {
      throw new IllegalArgumentException(
          "shard index (" + shardIndex + ") must be in 0.." + (layout.shards() - 1) + " for "
              + protection);
    }
    if (cellCount != layout.stripes()) {
      throw new IllegalArgumentException(
          "cell count (" + cellCount + ") must be " + layout.stripes() + " for a "
              + objectLength + "-byte object with " + protection + " and " + cellSize
              + "-byte cells");
    }
    if (dataLength != layout.shardDataLength(shardIndex)) {
      throw new IllegalArgumentException(
          "data length (" + dataLength + ") of shard " + shardIndex + " must be "
              + layout.shardDataLength(shardIndex) + " for a " + objectLength + "-byte object with "
              + protection + " and " + cellSize + "-byte cells");
    }
    created = Instant.ofEpochMilli(created.toEpochMilli());
    if (tag == null) {
      throw new IllegalArgumentException("tag must not be null (VersionTag.NONE for none)");
    }
  }

  /** A header without a tag ({@link VersionTag#NONE}). */
  public ShardHeader(long objectId, long objectVersion, int shardIndex, Protection protection,
      int cellSize, int cellCount, long objectLength, long dataLength, Instant created) {
    this(objectId, objectVersion, shardIndex, protection, cellSize, cellCount, objectLength,
        dataLength, created, VersionTag.NONE);
  }

  /**
   * The header of shard {@code shardIndex} of an untagged object version laid out as {@code
   * layout}.
   */
  public static ShardHeader of(
      long objectId, long objectVersion, int shardIndex, ObjectLayout layout, Instant created) {
    return of(objectId, objectVersion, shardIndex, layout, created, VersionTag.NONE);
  }

  /**
   * The header of shard {@code shardIndex} of an object version laid out as {@code layout} and
   * tagged {@code tag}.
   */
  public static ShardHeader of(long objectId, long objectVersion, int shardIndex,
      ObjectLayout layout, Instant created, VersionTag tag) {
    if (shardIndex < 0 || shardIndex >= layout.shards()) {
      throw new IllegalArgumentException(
          "shard index (" + shardIndex + ") must be in 0.." + (layout.shards() - 1) + " for "
              + layout.protection());
    }
    return new ShardHeader(objectId, objectVersion, shardIndex, layout.protection(),
        layout.cellSize(), layout.stripes(), layout.length(), layout.shardDataLength(shardIndex),
        created, tag);
  }

  /** The object's layout. */
  public ObjectLayout layout() {
    return new ObjectLayout(protection, cellSize, objectLength);
  }

  /** Length of the whole shard file: header, cells and CRC table. */
  public long fileLength() {
    return ShardFormat.fileLength(cellSize, cellCount);
  }
}
