/**
 * The metadata layer's view of stored chunks, as an interface the storage side implements:
 * {@link io.parityfs.meta.chunks.ChunkService} (list, stat and delete a file's chunks on a
 * target; the node's and the client's chunk I/O implement it), {@link
 * io.parityfs.meta.chunks.ChunkPage} and {@link io.parityfs.meta.chunks.StoredChunk}, and {@link
 * io.parityfs.meta.chunks.ChunkLengthProbe}, which lease recovery uses to learn how much of a
 * file its chunks hold. It sits beside {@link io.parityfs.meta.LengthProbe} and apart from the
 * cluster manager ({@code meta.cluster}), so that a client's lease recovery does not reach into
 * the manager's package.
 */
package io.parityfs.meta.chunks;
