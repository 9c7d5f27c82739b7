package io.parityfs.raid.array.format;

/**
 * Why an array operation failed: the code an {@link ArrayException} carries, meant to travel as a
 * status to the admin tools. Caller mistakes (a bad configuration, duplicate paths) are not here:
 * they are {@link IllegalArgumentException}s.
 */
public enum ArrayError {
  /** The drive directory holds no label file (or does not exist): not a drive of any array. */
  NO_LABEL,
  /** The label is truncated, has a wrong magic, a CRC mismatch or impossible field values. */
  CORRUPT_LABEL,
  /** The label was written by a newer format version than this software reads. */
  UNSUPPORTED_VERSION,
  /** Creation refused: the drive already carries a label or holds files (use force to reuse). */
  NOT_EMPTY,
  /** The drive belongs to another array than the one being assembled. */
  FOREIGN_DRIVE,
  /** The drive belongs to this array but carries an older generation: it missed a membership change. */
  STALE_DRIVE,
  /** Two drives claim the same slot at the current generation: the array refuses to guess. */
  DUPLICATE_SLOT,
  /** Candidates hold drives of several arrays and no array id was given. */
  AMBIGUOUS_ARRAY,
  /** No drive of the requested array (or no labelled drive at all) is among the candidates. */
  ARRAY_NOT_FOUND,
  /** Drives of one array at one generation disagree on the array's configuration. */
  INCONSISTENT_LABELS,
  /** A drive's label could not be read or written (permissions, I/O error). */
  IO_ERROR,
  /**
   * A drive is in use by another open array: its lock file ({@code DriveLocks}) is held by
   * another process, or by another array open in this one.
   */
  DRIVE_IN_USE,
  /**
   * A shard file's header is truncated, has a wrong magic, a CRC mismatch or impossible or
   * inconsistent field values.
   */
  CORRUPT_SHARD,
  /**
   * One cell of a shard file fails its CRC32C (the cell or its table entry is damaged): the cell
   * is reconstructed from the other shards and rewritten. The message names the file, the cell
   * and both checksums; the drive is not failed for it.
   */
  CORRUPT_CELL,
  /**
   * An object manifest is truncated, has a wrong magic, a CRC mismatch, or impossible or
   * inconsistent field values. The message names the file and the fault.
   */
  CORRUPT_MANIFEST,
  /**
   * An operation on a drive's files failed in the device or its file system (EIO, the device
   * vanished): the array marks the drive FAILED. A full drive is {@link #NO_SPACE} instead. See {@code Drive.isDriveFailure}.
   */
  DRIVE_IO,
  /** No committed version of the object exists (never written, or deleted). */
  OBJECT_NOT_FOUND,
  /**
   * More shards of an object version are unavailable (failed drive, missing or corrupt file,
   * corrupt cell) than its protection tolerates: the bytes cannot be restored, and none are
   * returned. The message names the object, version, stripe and each unavailable shard's reason.
   */
  OBJECT_LOST,
  /**
   * A read of a given version ({@code ObjectStore.read(long, long, long, ByteBuffer)})
   * found that version no longer committed: a newer version replaced it or the object was
   * deleted. Nothing was returned; the caller starts over on the current version.
   */
  VERSION_GONE,
  /**
   * A drive has no room for a shard (the file system reported no space left, or a write was
   * refused up front because a drive's free space is below what the shard needs). The write fails
   * and the old version stays; the drive is not failed for it.
   */
  NO_SPACE,
  /**
   * More drives of an object's placement are failed or missing (or failed during the write) than
   * its protection tolerates, so a new version cannot be written.
   */
  NOT_ENOUGH_DRIVES,
  /**
   * Bytes given to a write with their sender's CRC32C do not match it: they were damaged on the
   * way (in flight, or in memory before they reached the array). The write is aborted and
   * nothing becomes visible; the sender may send them again. No drive is at fault.
   */
  CORRUPT_INPUT
}
