package io.parityfs.node.net;

import io.parityfs.node.chunk.ChunkStatus;
import io.parityfs.node.chunk.ChunkStoreException;
import io.parityfs.node.protocol.Status;
import io.parityfs.raid.array.ArrayException;
import java.io.IOException;

/** The wire status of a failure on the node. */
final class WireStatus {
  private WireStatus() {}

  static Status of(ChunkStatus s) {
    return switch (s) {
      case NOT_FOUND -> Status.NOT_FOUND;
      case EXISTS -> Status.ALREADY_EXISTS;
      case CONFLICT -> Status.CONFLICT;
      case NO_SPACE -> Status.NO_SPACE;
      case NOT_ENOUGH_DRIVES -> Status.NOT_ENOUGH_DRIVES;
      case OBJECT_LOST -> Status.OBJECT_LOST;
      case DRIVE_IO -> Status.DRIVE_IO;
      case INVALID -> Status.INVALID_ARGUMENT;
      case STALE -> Status.STALE_GENERATION;
    };
  }

  /**
   * Chunk failures by their {@link ChunkStatus}; array failures of admin operations (a drive that
   * is not blank, foreign or stale) ILLEGAL_STATE; caller mistakes INVALID_ARGUMENT; a call that
   * does not apply now ILLEGAL_STATE; other I/O DRIVE_IO; anything else INTERNAL.
   */
  static Status of(Throwable t) {
    if (t instanceof ChunkStoreException c) {
      return of(c.status());
    }
    if (t instanceof ArrayException a) {
      return switch (a.error()) {
        case OBJECT_NOT_FOUND -> Status.NOT_FOUND;
        case NO_SPACE -> Status.NO_SPACE;
        case NOT_ENOUGH_DRIVES -> Status.NOT_ENOUGH_DRIVES;
        case OBJECT_LOST, CORRUPT_SHARD, CORRUPT_CELL, CORRUPT_MANIFEST -> Status.OBJECT_LOST;
        case DRIVE_IO, IO_ERROR -> Status.DRIVE_IO;
        default -> Status.ILLEGAL_STATE;
      };
    }
    if (t instanceof IllegalArgumentException) {
      return Status.INVALID_ARGUMENT;
    }
    if (t instanceof IllegalStateException) {
      return Status.ILLEGAL_STATE;
    }
    if (t instanceof IOException) {
      return Status.DRIVE_IO;
    }
    return Status.INTERNAL;
  }

  /** The message of an error response for {@code t}. */
  static String message(Throwable t) {
    String m = t.getMessage();
    return m == null ? t.getClass().getSimpleName() : m;
  }
}
