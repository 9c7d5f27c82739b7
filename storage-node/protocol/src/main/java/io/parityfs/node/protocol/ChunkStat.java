package io.parityfs.node.protocol;

/**
 * What the node knows of a chunk. On the wire: 32 bytes (length, version, created, modified, four
 * signed 64-bit fields in this order) for a version stored without a group tag, 48 bytes (the
 * same, then the tag's generation and sequence) for one stored with a tag; the header's length
 * says which.
 *
 * @param length bytes
 * @param version bumped by every write; a new chunk has version 1
 * @param createdMillis ms since the epoch
 * @param modifiedMillis ms since the epoch, of the latest version
 * @param generation the writer generation of the stored version's group tag (0: no tag)
 * @param sequence the group sequence of the stored version's group tag (0: no tag)
 */
public record ChunkStat(long length, long version, long createdMillis, long modifiedMillis,
    long generation, long sequence) {
  /** The wire size without a tag. */
  public static final int WIRE_SIZE = 32;
  /** The wire size with a tag. */
  public static final int TAGGED_WIRE_SIZE = 48;

  public ChunkStat {
    if (length < 0) {
      throw new IllegalArgumentException("length (" + length + ") must be >= 0");
    }
    if (generation < 0 || sequence < 0) {
      throw new IllegalArgumentException(
          "tag (" + generation + ", " + sequence + ") must be >= 0");
    }
  }

  /** A stat without a group tag. */
  public ChunkStat(long length, long version, long createdMillis, long modifiedMillis) {
    this(length, version, createdMillis, modifiedMillis, 0, 0);
  }

  /** Whether the version was stored with a group tag (its sequence is not 0). */
  public boolean tagged() {
    return sequence != 0;
  }

  /**
   * The stored version's group tag, decoded from {@link #generation} and {@link #sequence}; null
   * when the version has none ({@link #tagged()} false), so that no untagged version passes for
   * a copy of round 0. For a mirror chunk the sequence is a plain counter: compare {@link
   * #sequence} there.
   */
  public RoundTag tag() {
    return tagged() ? RoundTag.of(generation, sequence) : null;
  }

  /** Its size on the wire: {@link #TAGGED_WIRE_SIZE} when tagged, {@link #WIRE_SIZE} otherwise. */
  public int wireSize() {
    return tagged() ? TAGGED_WIRE_SIZE : WIRE_SIZE;
  }
}
