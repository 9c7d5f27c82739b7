/**
 * Chunks on one storage target: {@link io.parityfs.node.chunk.ChunkStore} maps a file's chunks
 * ({@link io.parityfs.node.protocol.ChunkId}) to objects of the target's RAID array and gives the
 * network layer streaming writes in four modes, range reads, stat, delete, paged listing and a
 * sync barrier, every failure a {@link io.parityfs.node.chunk.ChunkStoreException} carrying its
 * wire {@link io.parityfs.node.protocol.Status}.
 */
package io.parityfs.node.chunk;
