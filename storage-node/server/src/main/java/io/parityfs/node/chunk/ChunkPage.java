package io.parityfs.node.chunk;

import io.parityfs.node.protocol.ChunkId;
import java.util.List;
import java.util.Optional;

/**
 * One page of a chunk listing, ascending by (fileId, chunkIndex).
 *
 * @param chunks the chunks of this page, at most the limit asked for
 * @param next the cursor for the next page (the last chunk of this page), or empty when this is
 *     the last page
 */
public record ChunkPage(List<ChunkEntry> chunks, Optional<ChunkId> next) {
  public ChunkPage {
    chunks = List.copyOf(chunks);
  }
}
