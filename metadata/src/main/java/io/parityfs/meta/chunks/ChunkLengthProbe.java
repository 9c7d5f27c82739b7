package io.parityfs.meta.chunks;

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
 * length would promise bytes that no target holds. Any target that cannot answer fails the
 * whole answer, so a briefly absent target never shortens a file.
 *
 * <p>Chunks past the prefix are not the file's, but a later writer's prefix would bring them
 * back (stale bytes with valid CRCs: audit D4), so {@link #fence} deletes them, after fencing
 * the file on every target at the new writer generation so that no older writer can store
 * more of them.
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
    return prefix(file.layout(), stored(file));
  }

  /**
   * Fences and trims (see {@link io.parityfs.meta.LengthProbe#fence}): on each target, a
   * DELETE at the new generation of the first chunk index at or past {@code end} that lives
   * there (absent or stale, past the end either way) raises the target's fence for the file;
   * then a fresh listing, which no older writer can change any more, gives the prefix, and
   * every chunk at or past {@code end} is deleted at the new generation.
   */
  @Override
  public long fence(FileStatus file, long end) throws IOException {
    Layout layout = file.layout();
    long chunkSize = layout.chunkSize();
    long first = (end + chunkSize - 1) / chunkSize; // the first index wholly past the end
    int stripe = layout.stripeCount();
    for (int s = 0; s < stripe && s < layout.targets().size(); s++) {
      long index = first + Math.floorMod(s - first, (long) stripe);
      if (index <= MAX_INDEX) {
        chunks.delete(layout.targets().get(s), file.id(), (int) index, file.generation());
      }
    }
    Map<Integer, Long> stored = stored(file);
    for (int index : stored.keySet()) {
      if (index >= first) {
        chunks.delete(layout.targets().get(index % stripe), file.id(), index,
            file.generation());
      }
    }
    stored.keySet().removeIf(index -> index >= first);
    return prefix(layout, stored);
  }

  /** The largest chunk index (2^24 - 1). */
  private static final long MAX_INDEX = (1L << 24) - 1;

  private Map<Integer, Long> stored(FileStatus file) throws IOException {
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
    return stored;
  }

  private static long prefix(Layout layout, Map<Integer, Long> stored) {
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
