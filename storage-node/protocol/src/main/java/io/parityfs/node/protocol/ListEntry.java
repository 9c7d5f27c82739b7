package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * One chunk in a LIST reply: 36 bytes on the wire (fileId u64, chunkIndex u32, length u64,
 * version u64, modified ms u64).
 */
public record ListEntry(ChunkId chunk, long length, long version, long modifiedMillis) {
  public static final int WIRE_SIZE = 36;

  public ListEntry {
    Objects.requireNonNull(chunk, "chunk");
    if (length < 0) {
      throw new IllegalArgumentException("length (" + length + ") must be >= 0");
    }
  }
}
