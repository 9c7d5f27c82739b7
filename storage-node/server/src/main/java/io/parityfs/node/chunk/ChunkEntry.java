package io.parityfs.node.chunk;

import io.parityfs.node.protocol.ChunkId;

/** One chunk in a listing: its id and what {@link ChunkStore#stat} says about it. */
public record ChunkEntry(ChunkId id, ChunkInfo info) {}
