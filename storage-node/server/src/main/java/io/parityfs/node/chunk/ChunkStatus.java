package io.parityfs.node.chunk;

import io.parityfs.node.protocol.WriteMode;
import io.parityfs.raid.array.ArrayException;
import java.io.IOException;

/**
 * Why a chunk operation failed: the small set of outcomes the network layer translates to wire
 * status codes ({@link ChunkStoreException#status()}).
 */
public enum ChunkStatus {
  /** The chunk has no committed version (never written, or deleted). */
  NOT_FOUND,
  /** {@link WriteMode#CREATE} of a chunk that exists. */
  EXISTS,
  /**
   * {@link WriteMode#APPEND} at an offset other than the chunk's length, or a streamed read whose
   * version was replaced while it ran (nothing mixed was returned; read again).
   */
  CONFLICT,
  /** A drive of the chunk's placement is full; nothing was changed. */
  NO_SPACE,
  /** More drives of the chunk's placement are unavailable than the protection tolerates. */
  NOT_ENOUGH_DRIVES,
  /** The chunk's bytes cannot be restored: more shards lost than the protection tolerates. */
  OBJECT_LOST,
  /** A drive or file system error (the array fails the drive; a retry may succeed). */
  DRIVE_IO,
  /** A bad request: an offset past the end, a chunk beyond the maximum size, a bad id. */
  INVALID,
  /** A write or delete of an older writer generation than the file's fence (see FenceTable). */
  STALE;

  /**
   * The status for any failure of a chunk operation: a {@link ChunkStoreException}'s own, an
   * {@link IllegalArgumentException} (a caller's mistake) {@link #INVALID}, any other I/O error
   * {@link #DRIVE_IO}. For the network layer, which must answer every request with a status.
   */
  public static ChunkStatus of(Throwable t) {
    if (t instanceof ChunkStoreException e) {
      return e.status();
    }
    if (t instanceof ArrayException e) {
      return ChunkStoreException.statusOf(e.error());
    }
    if (t instanceof IllegalArgumentException) {
      return INVALID;
    }
    if (t instanceof IOException) {
      return DRIVE_IO;
    }
    return DRIVE_IO;
  }
}
