package io.parityfs.node.chunk;

/**
 * One chunk of a file: the file's id and the chunk's index in it. A chunk is stored as one array
 * object whose id packs both: {@code fileId << 24 | chunkIndex} ({@link #objectId()}), so the
 * chunks of one file are a contiguous range of object ids and sort by index.
 *
 * <pre>
 *  63                                    24 23                     0
 * +----------------------------------------+------------------------+
 * |            fileId (40 bits)            |  chunkIndex (24 bits)  |
 * +----------------------------------------+------------------------+
 * e.g. fileId 0x12_3456_789a, chunk 5  ->  object id 0x123456789a000005
 * </pre>
 *
 * <p>Object ids compare as unsigned numbers (a file id at or above 2^39 sets the sign bit), which
 * is the order of (fileId, chunkIndex). The constructor refuses ids out of range ({@link
 * IllegalArgumentException} naming the value).
 *
 * @param fileId the file, 0 .. 2^40 - 1
 * @param chunkIndex the chunk's index in the file, 0 .. 2^24 - 1
 */
public record ChunkId(long fileId, int chunkIndex) implements Comparable<ChunkId> {
  /** Bits of the object id that hold the chunk index. */
  public static final int INDEX_BITS = 24;
  /** Largest file id, 2^40 - 1. */
  public static final long MAX_FILE_ID = (1L << 40) - 1;
  /** Largest chunk index, 2^24 - 1. */
  public static final int MAX_CHUNK_INDEX = (1 << INDEX_BITS) - 1;

  public ChunkId {
    requireFileId(fileId);
    if (chunkIndex < 0 || chunkIndex > MAX_CHUNK_INDEX) {
      throw new IllegalArgumentException(
          "chunkIndex (" + chunkIndex + ") must be in 0.." + MAX_CHUNK_INDEX);
    }
  }

  /** The chunk stored as array object {@code objectId} (any 64-bit value is a valid chunk). */
  public static ChunkId ofObjectId(long objectId) {
    return new ChunkId(objectId >>> INDEX_BITS, (int) (objectId & MAX_CHUNK_INDEX));
  }

  /** The array object id: {@code fileId << 24 | chunkIndex}. */
  public long objectId() {
    return fileId << INDEX_BITS | chunkIndex;
  }

  /** The first object id of file {@code fileId} (chunk 0). */
  static long firstObjectId(long fileId) {
    return requireFileId(fileId) << INDEX_BITS;
  }

  static long requireFileId(long fileId) {
    if (fileId < 0 || fileId > MAX_FILE_ID) {
      throw new IllegalArgumentException("fileId (" + fileId + ") must be in 0.." + MAX_FILE_ID);
    }
    return fileId;
  }

  @Override
  public int compareTo(ChunkId o) {
    return Long.compareUnsigned(objectId(), o.objectId());
  }

  /** {@code <fileId hex>:<chunkIndex>}, e.g. {@code 123456789a:5}. */
  @Override
  public String toString() {
    return Long.toHexString(fileId) + ":" + chunkIndex;
  }
}
