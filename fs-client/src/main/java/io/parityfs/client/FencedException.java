package io.parityfs.client;

import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.ChunkId;

/**
 * A chunk write or delete refused by its target because a newer writer generation of the file
 * exists (STALE_GENERATION, {@link ClientStatus#FENCED}): this writer's lease was recovered, or
 * another writer reopened the file. The writer is dead, as with the namespace's LEASE_EXPIRED:
 * its stream fails from then on, and nothing after its last hflush/hsync is the file's.
 */
public final class FencedException extends ClientException {
  private static final long serialVersionUID = 1L;

  FencedException(ChunkId chunk, String target, String message, NodeException cause) {
    super(ClientStatus.FENCED, null, chunk, target, message, cause);
  }
}
