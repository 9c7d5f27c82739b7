package io.parityfs.meta.cluster;

import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.LengthProbe;
import java.io.IOException;
import java.util.LinkedHashSet;

/**
 * Lease recovery's answer from the targets themselves: the end of the file's last chunk present
 * on any target of its layout (chunk index × chunk size + that chunk's length); 0 when none is.
 * Any target that cannot answer makes the whole answer fail, so recovery never closes a file
 * short because a target was briefly away.
 */
public final class ChunkLengthProbe implements LengthProbe {
  private final ChunkService chunks;
  private final int pageSize;

  public ChunkLengthProbe(ChunkService chunks, int pageSize) {
    this.chunks = chunks;
    this.pageSize = pageSize;
  }

  @Override
  public long length(FileStatus file) throws IOException {
    Layout layout = file.layout();
    long end = 0;
    for (String target : new LinkedHashSet<>(layout.targets())) {
      long cursor = 0;
      do {
        ChunkPage page = chunks.list(target, file.id(), cursor, pageSize);
        for (StoredChunk c : page.chunks()) {
          if (c.fileId() == file.id()) {
            end = Math.max(end, c.index() * layout.chunkSize() + c.length());
          }
        }
        cursor = page.nextCursor();
      } while (cursor != ChunkService.END);
    }
    return end;
  }
}
