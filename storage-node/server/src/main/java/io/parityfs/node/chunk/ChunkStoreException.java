package io.parityfs.node.chunk;

import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.Status;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import java.io.IOException;

/**
 * A chunk operation failed; {@link #status()} is the wire status the node answers the request
 * with. {@link #statusOf(ArrayError)} is the node's one table from the array's errors to wire
 * statuses.
 */
public final class ChunkStoreException extends IOException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  public ChunkStoreException(Status status, String message) {
    super(status + ": " + message);
    this.status = status;
  }

  public ChunkStoreException(Status status, String message, Throwable cause) {
    super(status + ": " + message, cause);
    this.status = status;
  }

  public Status status() {
    return status;
  }

  /**
   * The wire status of an array error, for chunk and admin operations alike (the network layer
   * answers an admin operation's {@link ArrayException} with it too). Exhaustive, without a
   * default: a new {@link ArrayError} does not compile until it is given a status here.
   *
   * <ul>
   *   <li>VERSION_GONE is CONFLICT: it reaches the wire only from a streamed READ whose pinned
   *       version was replaced (see {@code ReadStream}); CONFLICT is what the protocol and the
   *       node client document for it (nothing mixed was returned; read again). An earlier copy
   *       of this table in the network layer gave it ILLEGAL_STATE by default, a status no
   *       client treats as "read again".
   *   <li>The label and assembly errors (NO_LABEL … DRIVE_IN_USE, and UNSUPPORTED_VERSION of a
   *       label, shard or manifest written by newer software) are ILLEGAL_STATE: they reach the
   *       wire from REPLACE_DRIVE with a drive that is not blank, is foreign or in use (the CLI
   *       exits CONFLICT, "does not apply in the array's state"), and from a read of data in a
   *       format this node does not read. None is a failed device: DRIVE_IO would tell the
   *       operator and the client that a drive failed (the chunk path's former default).
   *   <li>DRIVE_IO and IO_ERROR (a label's I/O) are DRIVE_IO; the corruptions the array could
   *       not read around are OBJECT_LOST, data the node cannot give.
   * </ul>
   */
  public static Status statusOf(ArrayError error) {
    return switch (error) {
      case OBJECT_NOT_FOUND -> Status.NOT_FOUND;
      case NO_SPACE -> Status.NO_SPACE;
      case NOT_ENOUGH_DRIVES -> Status.NOT_ENOUGH_DRIVES;
      case VERSION_GONE -> Status.CONFLICT;
      // A corrupt shard or manifest that the array could not read around is data it cannot give.
      case OBJECT_LOST, CORRUPT_SHARD, CORRUPT_CELL, CORRUPT_MANIFEST -> Status.OBJECT_LOST;
      case DRIVE_IO, IO_ERROR -> Status.DRIVE_IO;
      // Bytes damaged before they reached the array (in flight, in memory): sent again, they pass.
      case CORRUPT_INPUT -> Status.CRC_MISMATCH;
      case NO_LABEL, CORRUPT_LABEL, UNSUPPORTED_VERSION, NOT_EMPTY, FOREIGN_DRIVE, STALE_DRIVE,
          DUPLICATE_SLOT, AMBIGUOUS_ARRAY, ARRAY_NOT_FOUND, INCONSISTENT_LABELS, DRIVE_IN_USE ->
          Status.ILLEGAL_STATE;
    };
  }

  /** Wraps an array failure of an operation on {@code id}. */
  static ChunkStoreException of(ChunkId id, ArrayException e) {
    return new ChunkStoreException(statusOf(e.error()), "chunk " + id + ": " + e.getMessage(), e);
  }
}
