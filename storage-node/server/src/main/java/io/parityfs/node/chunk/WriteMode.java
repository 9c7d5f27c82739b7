package io.parityfs.node.chunk;

/** How {@link ChunkStore#openWrite} treats the chunk's existing content. */
public enum WriteMode {
  /** A new chunk, from offset 0: {@link ChunkStatus#EXISTS} if the chunk exists. */
  CREATE,
  /** New content from offset 0, whether or not the chunk exists (create or truncate). */
  REPLACE,
  /**
   * Replace bytes from an offset in 0..length of an existing chunk ({@link ChunkStatus#NOT_FOUND}
   * otherwise); bytes after the written range are kept, and the chunk grows if the range ends
   * past its end.
   */
  OVERWRITE,
  /**
   * Add to the end of an existing chunk. Offset -1: wherever the end is; an offset >= 0 must equal
   * the chunk's current length ({@link ChunkStatus#INVALID} otherwise), so a retried append cannot
   * land twice.
   */
  APPEND
}
