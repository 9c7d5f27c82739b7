package io.parityfs.node.chunk;

import io.parityfs.node.protocol.ChunkId;
import io.parityfs.raid.array.ArrayError;
import io.parityfs.raid.array.ArrayException;
import java.io.IOException;

/** A chunk operation failed; {@link #status()} says why (the future wire status). */
public final class ChunkStoreException extends IOException {
  private static final long serialVersionUID = 1L;

  private final ChunkStatus status;

  public ChunkStoreException(ChunkStatus status, String message) {
    super(status + ": " + message);
    this.status = status;
  }

  public ChunkStoreException(ChunkStatus status, String message, Throwable cause) {
    super(status + ": " + message, cause);
    this.status = status;
  }

  public ChunkStatus status() {
    return status;
  }

  /** The chunk status for an array error. */
  static ChunkStatus statusOf(ArrayError error) {
    return switch (error) {
      case OBJECT_NOT_FOUND -> ChunkStatus.NOT_FOUND;
      case NO_SPACE -> ChunkStatus.NO_SPACE;
      case NOT_ENOUGH_DRIVES -> ChunkStatus.NOT_ENOUGH_DRIVES;
      case VERSION_GONE -> ChunkStatus.CONFLICT;
      // A corrupt shard or manifest that the array could not read around is data it cannot give.
      case OBJECT_LOST, CORRUPT_SHARD, CORRUPT_CELL, CORRUPT_MANIFEST -> ChunkStatus.OBJECT_LOST;
      default -> ChunkStatus.DRIVE_IO;
    };
  }

  /** Wraps an array failure of an operation on {@code id}. */
  static ChunkStoreException of(ChunkId id, ArrayException e) {
    return new ChunkStoreException(statusOf(e.error()), "chunk " + id + ": " + e.getMessage(), e);
  }
}
