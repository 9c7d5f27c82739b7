package io.parityfs.meta.chunks;

import java.util.List;

/**
 * One page of a target's chunks, in (fileId, index) order.
 *
 * @param chunks the chunks of this page
 * @param nextCursor what to pass for the next page, or {@link ChunkService#END} after the last
 */
public record ChunkPage(List<StoredChunk> chunks, long nextCursor) {
  public ChunkPage {
    chunks = List.copyOf(chunks);
  }

  public boolean hasMore() {
    return nextCursor != ChunkService.END;
  }
}
