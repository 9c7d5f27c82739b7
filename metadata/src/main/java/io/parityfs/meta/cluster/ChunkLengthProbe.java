package io.parityfs.meta.cluster;

import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.LengthProbe;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Lease recovery's answer from the targets: the length of the file's <b>stored prefix</b>,
 * chunks 0, 1, … as long as each is present and full, plus the first one that is present but
 * short; 0 when chunk 0 is absent. A writer's chunks are uploaded in parallel over several
 * targets, so when one upload failed (its target died) later chunks on other targets may be
 * stored: the end of the last chunk present would then cover a missing chunk, and the recovered
 * length would promise bytes that no target holds. Chunks past the prefix are left for the
 * next writer to replace (append rewrites from the recovered end). Any target that cannot
 * answer fails the whole answer, so a briefly absent target never shortens a file.
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
    Map<Integer, Long> stored = new HashMap<>();
    for (String target : new LinkedHashSet<>(layout.targets())) {
      long cursor = 0;
      do {
        ChunkPage page = chunks.list(target, file.id(), cursor, pageSize);
        for (StoredChunk c : page.chunks()) {
          if (c.fileId() == file.id()) {
            stored.merge(c.index(), c.length(), Math::max);
          }
        }
        cursor = page.nextCursor();
      } while (cursor != ChunkService.END);
    }
    long chunkSize = layout.chunkSize();
    long end = 0;
    for (int i = 0; ; i++) {
      Long len = stored.get(i);
      if (len == null) {
        return end;
      }
      end = i * chunkSize + Math.min(len, chunkSize);
      if (len < chunkSize) {
        return end;
      }
    }
  }
}
