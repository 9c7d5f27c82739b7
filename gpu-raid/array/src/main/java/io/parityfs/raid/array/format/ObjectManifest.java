package io.parityfs.raid.array.format;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * The manifest of one object version ({@link ManifestFormat}): which object and version, how
 * long, how it is protected and laid out, which array slot holds each of its shards, and the
 * caller's {@link VersionTag}. Once it is durable on enough drives of the placement the version
 * exists; shards no manifest names are garbage. Immutable; the constructor refuses impossible
 * values ({@link IllegalArgumentException} naming the value).
 *
 * @param objectId the object
 * @param version the object version, >= 0
 * @param objectLength the object's logical length in bytes
 * @param protection the object's protection
 * @param cellSize bytes per cell, a power of two, 4 KiB..16 MiB
 * @param slots the array slot of shard i at index i (k + m entries, or one per mirror copy);
 *     distinct, each in 0..63
 * @param created when the version was written, millisecond precision
 * @param tag the caller's tag on the version ({@link VersionTag}), {@link VersionTag#NONE} when
 *     it was written without one; not null
 */
public record ObjectManifest(
    long objectId,
    long version,
    long objectLength,
    Protection protection,
    int cellSize,
    List<Integer> slots,
    Instant created,
    VersionTag tag) {

  public ObjectManifest {
    if (version < 0) {
      throw new IllegalArgumentException("object version (" + version + ") must be >= 0");
    }
    if (protection == null) {
      throw new IllegalArgumentException("protection must not be null");
    }
    ArrayConfig.requireCellSize(cellSize);
    new ObjectLayout(protection, cellSize, objectLength); // checks the length
    if (slots == null || slots.size() != protection.width()) {
      throw new IllegalArgumentException(
          "slots (" + slots + ") must have " + protection.width() + " entries for " + protection);
    }
    slots = List.copyOf(slots);
    long seen = 0;
    for (int slot : slots) {
      if (slot < 0 || slot >= DrivePlacement.MAX_SLOTS) {
        throw new IllegalArgumentException(
            "slot (" + slot + ") in " + slots + " must be in 0.." + (DrivePlacement.MAX_SLOTS - 1));
      }
      if ((seen & (1L << slot)) != 0) {
        throw new IllegalArgumentException("slot " + slot + " appears twice in " + slots);
      }
      seen |= 1L << slot;
    }
    if (created == null) {
      throw new IllegalArgumentException("created must not be null");
    }
    created = Instant.ofEpochMilli(created.toEpochMilli());
    if (tag == null) {
      throw new IllegalArgumentException("tag must not be null (VersionTag.NONE for none)");
    }
  }

  /** A manifest without a tag ({@link VersionTag#NONE}). */
  public ObjectManifest(long objectId, long version, long objectLength, Protection protection,
      int cellSize, List<Integer> slots, Instant created) {
    this(objectId, version, objectLength, protection, cellSize, slots, created, VersionTag.NONE);
  }

  /**
   * The manifest of a version laid out as {@code layout} with its shards on {@code slots}, without
   * a tag ({@link VersionTag#NONE}).
   */
  public static ObjectManifest of(
      long objectId, long version, ObjectLayout layout, int[] slots, Instant created) {
    return of(objectId, version, layout, slots, created, VersionTag.NONE);
  }

  /**
   * The manifest of a version laid out as {@code layout} with its shards on {@code slots}, tagged
   * {@code tag}.
   */
  public static ObjectManifest of(long objectId, long version, ObjectLayout layout, int[] slots,
      Instant created, VersionTag tag) {
    return new ObjectManifest(objectId, version, layout.length(), layout.protection(),
        layout.cellSize(), Arrays.stream(slots).boxed().toList(), created, tag);
  }

  /** The object's layout. */
  public ObjectLayout layout() {
    return new ObjectLayout(protection, cellSize, objectLength);
  }

  /** The slot holding shard {@code shard}. */
  public int slotOf(int shard) {
    return slots.get(shard);
  }

  /** The slots as a bit mask, as {@link DrivePlacement#mask}. */
  public long slotMask() {
    long mask = 0;
    for (int slot : slots) {
      mask |= 1L << slot;
    }
    return mask;
  }
}
