package io.parityfs.raid.array.drive;

/** The state of one drive slot of an array. */
public enum DriveState {
  /** Present, labelled for this array at its current generation, serving reads and writes. */
  ONLINE,
  /** Marked failed after an I/O error or by an admin; holds no trusted data until rebuilt. */
  FAILED,
  /** Its label was not found at assembly (the drive vanished or was not attached). */
  MISSING,
  /** A replacement or hot spare being filled with the shards of the drive it replaces. */
  REBUILDING,
  /** A hot spare: labelled for this array, holding no shards, waiting to replace a failed drive. */
  SPARE
}
