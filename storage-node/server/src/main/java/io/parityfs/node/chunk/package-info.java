/**
 * Chunks on one storage target: {@link io.parityfs.node.chunk.ChunkStore} maps a file's chunks
 * ({@link io.parityfs.node.protocol.ChunkId}) to objects of the target's RAID array and gives the
 * network layer streaming writes in four modes, range reads, stat, delete, paged listing and a
 * sync barrier, with every failure reduced to a {@link io.parityfs.node.chunk.ChunkStatus}.
 */
package io.parityfs.node.chunk;
