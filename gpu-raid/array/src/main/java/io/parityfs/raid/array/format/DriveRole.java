package io.parityfs.raid.array.format;

/** What a drive does in its array, as recorded in its label. */
public enum DriveRole {
  /** Holds shards (or copies) of objects. */
  DATA,
  /** A hot spare: holds nothing until it replaces a failed data drive. */
  SPARE
}
