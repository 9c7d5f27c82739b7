package io.parityfs.node.chunk;

/**
 * What a chunk is now: its committed length and version, when that version was written, and the
 * group tag it was stored with.
 *
 * @param length bytes
 * @param version the array object version; every commit makes a higher one
 * @param createdMillis when this version was written, ms since the epoch
 * @param tagGeneration the writer generation of the version's group tag (0 without a tag)
 * @param tagSequence the group sequence of the version's group tag (0: no tag)
 */
public record ChunkInfo(
    long length, long version, long createdMillis, long tagGeneration, long tagSequence) {

  /** A chunk version without a group tag. */
  public ChunkInfo(long length, long version, long createdMillis) {
    this(length, version, createdMillis, 0, 0);
  }
}
