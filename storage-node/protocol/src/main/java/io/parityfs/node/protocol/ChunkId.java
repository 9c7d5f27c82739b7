package io.parityfs.node.protocol;

/**
 * A chunk of a file: the file's id and the chunk's index in it. The ranges are chosen so that the
 * node maps a chunk to one 64-bit array object id, {@link #objectId()}; an id outside them is
 * refused (by the decoder with INVALID_ARGUMENT, by this constructor with an
 * {@link IllegalArgumentException}), so no id can name anything outside the store.
 *
 * @param fileId 0 ≤ fileId &lt; 2^40
 * @param chunkIndex 0 ≤ chunkIndex &lt; 2^24
 */
public record ChunkId(long fileId, int chunkIndex) {
  public static final int FILE_ID_BITS = 40;
  public static final int CHUNK_INDEX_BITS = 24;
  public static final long MAX_FILE_ID = (1L << FILE_ID_BITS) - 1;
  public static final int MAX_CHUNK_INDEX = (1 << CHUNK_INDEX_BITS) - 1;

  public ChunkId {
    if (!validFileId(fileId)) {
      throw new IllegalArgumentException("fileId (" + fileId + ") must be in [0, 2^40)");
    }
    if (!validChunkIndex(chunkIndex)) {
      throw new IllegalArgumentException("chunkIndex (" + chunkIndex + ") must be in [0, 2^24)");
    }
  }

  public static boolean validFileId(long fileId) {
    return fileId >= 0 && fileId <= MAX_FILE_ID;
  }

  public static boolean validChunkIndex(long chunkIndex) {
    return chunkIndex >= 0 && chunkIndex <= MAX_CHUNK_INDEX;
  }

  /** {@code fileId << 24 | chunkIndex}: the id of the array object holding this chunk. */
  public long objectId() {
    return fileId << CHUNK_INDEX_BITS | chunkIndex;
  }

  /** The chunk whose {@link #objectId()} is {@code objectId}. */
  public static ChunkId ofObjectId(long objectId) {
    return new ChunkId(objectId >>> CHUNK_INDEX_BITS, (int) (objectId & MAX_CHUNK_INDEX));
  }

  @Override
  public String toString() {
    return fileId + ":" + chunkIndex;
  }
}
