package io.parityfs.meta.chunks;

import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.LengthProbe;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Lease recovery's answer from the targets: the length of the file's <b>stored prefix</b>,
 * chunks 0, 1, … as long as each is present and full, plus the first one that is present but
 * short; 0 when chunk 0 is absent. A writer's chunks are uploaded in parallel over several
 * targets, so when one upload failed (its target died) later chunks on other targets may be
 * stored: the end of the last chunk present would then cover a missing chunk, and the recovered
 * length would promise bytes that no target holds. Any target that cannot answer fails the
 * whole answer, so a briefly absent target never shortens a file.
 *
 * <p>Across nodes (docs/across-nodes.md §5): a mirrored chunk counts only when every copy is
 * listed, at the shortest copy's length, and ec parity chunks are not data. An ec file's last
 * group keeps whatever members its last round stored; where the writer died between its data and
 * its parity, the group is not decodable until it is stored again (its re-protection is to
 * build), but every byte of the prefix is read from its data chunks.
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
    return prefix(file, stored(file));
  }

  /**
   * Fences and trims (see {@link io.parityfs.meta.LengthProbe#fence}): on each target, a
   * DELETE at the new generation of the first chunk index at or past {@code end} that lives
   * there (absent or stale, past the end either way) raises the target's fence for the file;
   * then a fresh listing, which no older writer can change any more, gives the prefix, and
   * every chunk at or past {@code end} is deleted at the new generation, on every target that
   * lists it (each copy of a mirror), with the parity of every ec group wholly past the end.
   */
  @Override
  public long fence(FileStatus file, long end) throws IOException {
    Layout layout = file.layout();
    long chunkSize = layout.chunkSize();
    long first = (end + chunkSize - 1) / chunkSize; // the first index wholly past the end
    int stripe = layout.stripeCount();
    for (int s = 0; s < stripe && s < layout.targets().size(); s++) {
      long index = first + Math.floorMod(s - first, (long) stripe);
      if (index < ChunkMap.of(layout).maxDataChunks()) {
        chunks.delete(layout.targets().get(s), file.id(), (int) index, file.generation());
      }
    }
    Listing stored = stored(file);
    ChunkMap map = ChunkMap.of(layout);
    int k = layout.across().data();
    int m = layout.across().parity();
    for (Map.Entry<Integer, Set<String>> e : stored.where().entrySet()) {
      int index = e.getKey();
      boolean past = map.isParity(index)
          ? (long) (index - ChunkMap.PARITY_BASE) / m * k >= first // its group's first chunk
          : index >= first;
      if (past) {
        for (String target : e.getValue()) {
          chunks.delete(target, file.id(), index, file.generation());
        }
      }
    }
    stored.lengths().keySet().removeIf(index -> index >= first);
    return prefix(file, stored);
  }

  /** What the targets list: each data chunk's length on each target, and who holds each chunk. */
  private record Listing(Map<Integer, Map<String, Long>> lengths,
      Map<Integer, Set<String>> where) {}

  private Listing stored(FileStatus file) throws IOException {
    Layout layout = file.layout();
    ChunkMap map = ChunkMap.of(layout);
    Map<Integer, Map<String, Long>> lengths = new HashMap<>();
    Map<Integer, Set<String>> where = new TreeMap<>();
    for (String target : new LinkedHashSet<>(layout.targets())) {
      long cursor = 0;
      do {
        ChunkPage page = chunks.list(target, file.id(), cursor, pageSize);
        for (StoredChunk c : page.chunks()) {
          if (c.fileId() == file.id()) {
            where.computeIfAbsent(c.index(), i -> new LinkedHashSet<>()).add(target);
            if (!map.isParity(c.index())) {
              lengths.computeIfAbsent(c.index(), i -> new HashMap<>()).put(target, c.length());
            }
          }
        }
        cursor = page.nextCursor();
      } while (cursor != ChunkService.END);
    }
    return new Listing(lengths, where);
  }

  /**
   * The stored prefix. A chunk of a {@code mirror:N} file counts only when every copy is
   * listed, with the shortest copy's length: what every copy holds. Parity chunks are not data.
   * Copies the file's repair record names (a write left them out, their targets down) are not
   * asked for: their targets may hold an older version or none. A data chunk whose only member
   * is in the record (ec) is taken as holding what the committed length covers of it, which the
   * rest of its group decodes; the prefix ends there unless that is the whole chunk.
   */
  private static long prefix(FileStatus file, Listing stored) {
    Layout layout = file.layout();
    ChunkMap map = ChunkMap.of(layout);
    long chunkSize = layout.chunkSize();
    long end = 0;
    for (int i = 0; ; i++) {
      Map<String, Long> lens = stored.lengths().getOrDefault(i, Map.of());
      long len = Long.MAX_VALUE;
      boolean asked = false;
      for (int c = 0; c < map.copies(); c++) {
        String target = layout.targets().get(map.copyPosition(i, c));
        if (file.repairs().stale(target, map.group(i))) {
          continue;
        }
        asked = true;
        Long l = lens.get(target);
        if (l == null) {
          return end;
        }
        len = Math.min(len, l);
      }
      if (!asked) {
        len = Math.max(0, Math.min(chunkSize, file.length() - i * chunkSize));
        if (len == 0) {
          return end;
        }
      }
      end = i * chunkSize + Math.min(len, chunkSize);
      if (len < chunkSize) {
        return end;
      }
    }
  }
}
