package io.parityfs.meta.chunks;

import java.io.IOException;
import java.util.List;

/**
 * The cluster manager's access to the chunks on the storage targets (the storage node implements
 * it over its protocol client; tests use an in-memory one). Target ids are the ids in layouts.
 *
 * <p>Any {@link IOException} means "this target cannot be reached or answer now": the manager
 * keeps what it was doing for a later round. Implementations must be thread-safe.
 */
public interface ChunkService {
  /** {@code fileId} that lists every file's chunks. */
  long ALL_FILES = -1;
  /** {@link ChunkPage#nextCursor()} of the last page. */
  long END = -1;

  /** Every target of the cluster whose chunks orphan collection should check. */
  List<String> targets() throws IOException;

  /**
   * One page of a target's chunks, in (fileId, index) order.
   *
   * @param fileId one file's chunks, or {@link #ALL_FILES}
   * @param cursor 0 for the first page, then the previous page's {@code nextCursor}
   * @param limit at most this many chunks
   */
  ChunkPage list(String targetId, long fileId, long cursor, int limit) throws IOException;

  /**
   * Deletes one chunk. Idempotent.
   *
   * @return whether it existed
   */
  boolean delete(String targetId, long fileId, int index) throws IOException;

  /**
   * Deletes one chunk as writer {@code generation} of its file: the target raises the file's
   * fence to it first (refusing older writers from then on), also when the chunk does not
   * exist, and refuses the delete (an IOException) when it has seen a newer generation.
   * Services over the wire must implement it; the default, for in-memory services of tests
   * that know no fences, deletes without one.
   *
   * @return whether it existed
   */
  default boolean delete(String targetId, long fileId, int index, long generation)
      throws IOException {
    return delete(targetId, fileId, index);
  }
}
