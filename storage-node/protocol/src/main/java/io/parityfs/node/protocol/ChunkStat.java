package io.parityfs.node.protocol;

/**
 * What the node knows of a chunk: 32 bytes on the wire (four signed 64-bit fields in this order).
 *
 * @param length bytes
 * @param version bumped by every write; a new chunk has version 1
 * @param createdMillis ms since the epoch
 * @param modifiedMillis ms since the epoch, of the latest version
 */
public record ChunkStat(long length, long version, long createdMillis, long modifiedMillis) {
  public static final int WIRE_SIZE = 32;

  public ChunkStat {
    if (length < 0) {
      throw new IllegalArgumentException("length (" + length + ") must be >= 0");
    }
  }
}
