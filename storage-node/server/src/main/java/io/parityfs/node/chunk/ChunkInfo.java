package io.parityfs.node.chunk;

/**
 * What a chunk is now: its committed length and version, and when that version was written.
 *
 * @param length bytes
 * @param version the array object version; every commit makes a higher one
 * @param createdMillis when this version was written, ms since the epoch
 */
public record ChunkInfo(long length, long version, long createdMillis) {}
