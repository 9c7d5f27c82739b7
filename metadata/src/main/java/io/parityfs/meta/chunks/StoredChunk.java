package io.parityfs.meta.chunks;

/**
 * A chunk as a target lists it.
 *
 * @param fileId the file it belongs to
 * @param index its index in the file (on target {@code targets[index % stripeCount]})
 * @param length its bytes
 * @param modifiedMillis when its current version was written (the storage node's clock)
 */
public record StoredChunk(long fileId, int index, long length, long modifiedMillis) {}
