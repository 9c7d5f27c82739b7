package io.parityfs.node.net;

import io.parityfs.node.chunk.ChunkStoreException;
import io.parityfs.node.protocol.Status;
import io.parityfs.raid.array.format.ArrayException;
import java.io.IOException;

/** The wire status of a failure on the node: what every request is answered with. */
final class WireStatus {
  private WireStatus() {}

  /**
   * A chunk failure's own status; an array failure (of an admin operation: a drive that is not
   * blank, foreign or stale) by the node's one table, {@link ChunkStoreException#statusOf};
   * caller mistakes INVALID_ARGUMENT; a call that does not apply now ILLEGAL_STATE; other I/O
   * DRIVE_IO; anything else INTERNAL.
   */
  static Status of(Throwable t) {
    if (t instanceof ChunkStoreException c) {
      return c.status();
    }
    if (t instanceof ArrayException a) {
      return ChunkStoreException.statusOf(a.error());
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
