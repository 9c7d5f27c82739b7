package io.parityfs.meta.chunks;

import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.LengthProbe;
import io.parityfs.meta.Repairs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Lease recovery's answer from the targets: the length of the file's <b>stored prefix</b>,
 * chunks 0, 1, … as long as each is present and full, plus the first one that is present but
 * short; 0 when chunk 0 is absent. A chunk in a hole of the file ({@link io.parityfs.meta.Holes})
 * counts as present, as far as the committed length reaches. A writer's chunks are uploaded in parallel over several
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
 * more of them. Except in the <em>cut group</em>, the ec group that holds the end: its last
 * round may hold the chunks before the end only through its members past the end (a writer
 * stored the group around a node that is down and died uncommitted: deleting the round's other
 * data chunk would leave the acknowledged bytes on the down node undecodable). Those stay, and
 * {@link Fenced#cutKept} counts them: the prefix never counts them (they are past the end), and
 * the next writer stores the group again cut at the end before it deletes them
 * (docs/across-nodes.md §3).
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
    return prefix(file, stored(file, Set.of()));
  }

  /**
   * Fences and trims (see {@link io.parityfs.meta.LengthProbe#fence}): on each target, a
   * DELETE at the new generation of the first chunk index that lives there in a group wholly
   * past {@code end} (absent or stale, past the end either way) raises the target's fence;
   * then a fresh listing, which no older writer can change any more, gives the prefix, and
   * every chunk at or past {@code end} is deleted at the new generation, on every target that
   * lists it (each copy of a mirror), but for the data chunks of the ec group that holds the
   * end (counted in {@link Fenced#cutKept}), with the parity of every ec group wholly past the
   * end.
   */
  @Override
  public long fence(FileStatus file, long end) throws IOException {
    return fenceAll(file, end).length();
  }

  /**
   * {@link #fence}; for a file with protection across nodes, a target that cannot answer (its
   * node down) is read around instead of failing the fence, as long as every group keeps enough
   * members without it and the members the repair record names (at most M per ec group, N − 1
   * copies per mirrored chunk): its members are answered as unreached, for the record.
   */
  @Override
  public Fenced fenceAll(FileStatus file, long end) throws IOException {
    Layout layout = file.layout();
    long chunkSize = layout.chunkSize();
    long first = (end + chunkSize - 1) / chunkSize; // the first index wholly past the end
    int k = layout.across().isErasureCoded() ? layout.across().data() : 1;
    int m = layout.across().parity();
    // the data chunks of the cut group (the ec group that holds the end) stay: its last round
    // may need them to decode the chunks before the end (see the class comment)
    long gone = (first + k - 1) / k * k; // the first data chunk of a group wholly past the end
    int stripe = layout.stripeCount();
    Set<String> down = new HashSet<>();
    for (int s = 0; s < stripe && s < layout.targets().size(); s++) {
      long index = gone + Math.floorMod(s - gone, (long) stripe);
      if (index < ChunkMap.of(layout).maxDataChunks()) {
        String target = layout.targets().get(s);
        try {
          chunks.delete(target, file.id(), (int) index, file.generation());
        } catch (IOException e) {
          if (layout.across().isNone()) {
            throw e;
          }
          down.add(target);
        }
      }
    }
    Listing stored = stored(file, down);
    ChunkMap map = ChunkMap.of(layout);
    int kept = 0;
    for (Map.Entry<Integer, Set<String>> e : stored.where().entrySet()) {
      int index = e.getKey();
      long chunk = map.isParity(index)
          ? (long) (index - ChunkMap.PARITY_BASE) / m * k // its group's first chunk
          : index;
      if (chunk >= gone || file.holes().contains(map.group(chunk))) {
        // past the end, or in a hole: a writer stored it and died before its commit took the
        // group out of the holes, so no acknowledged byte is in it
        for (String target : e.getValue()) {
          chunks.delete(target, file.id(), index, file.generation());
        }
      } else if (chunk >= first) {
        kept++;
      }
    }
    stored.lengths().keySet().removeIf(index -> index >= first);
    long length = prefix(file, stored);
    return new Fenced(length, unreached(file, stored.down(), length), kept);
  }

  /** Every member on the {@code down} targets of a file of {@code length} bytes. */
  private static Repairs unreached(FileStatus file, Set<String> down, long length) {
    long units = ChunkMap.of(file.layout()).groups(length);
    List<Repairs.Range> out = new ArrayList<>();
    for (String t : down) {
      if (units > 0) {
        out.add(new Repairs.Range(t, 0, units - 1));
      }
    }
    return new Repairs(out);
  }

  /**
   * What the targets list: each data chunk's length on each target, who holds each chunk, and
   * the targets that could not answer (only for a file with protection across nodes).
   */
  private record Listing(Map<Integer, Map<String, Long>> lengths,
      Map<Integer, Set<String>> where, Set<String> down) {}

  private Listing stored(FileStatus file, Set<String> down) throws IOException {
    Layout layout = file.layout();
    ChunkMap map = ChunkMap.of(layout);
    Map<Integer, Map<String, Long>> lengths = new HashMap<>();
    Map<Integer, Set<String>> where = new TreeMap<>();
    Set<String> unreachable = new HashSet<>(down);
    List<IOException> why = new ArrayList<>();
    for (String target : new LinkedHashSet<>(layout.targets())) {
      if (unreachable.contains(target)) {
        continue;
      }
      long cursor = 0;
      do {
        ChunkPage page;
        try {
          page = chunks.list(target, file.id(), cursor, pageSize);
        } catch (IOException e) {
          if (layout.across().isNone()) {
            throw e;
          }
          unreachable.add(target);
          why.add(e);
          break;
        }
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
    try {
      checkReadable(file, unreachable);
    } catch (IOException e) {
      why.forEach(e::addSuppressed); // what each target answered, for whoever reads the trace
      throw e;
    }
    return new Listing(lengths, where, unreachable);
  }

  /**
   * IOException when, with {@code down} unreachable, some group of the file would keep fewer
   * members than it is read from, counting those its repair record names: the file then waits
   * for its nodes (as a file without a policy waits for every target).
   */
  private static void checkReadable(FileStatus file, Set<String> down) throws IOException {
    if (down.isEmpty()) {
      return;
    }
    Layout layout = file.layout();
    ChunkMap map = ChunkMap.of(layout);
    boolean ec = layout.across().isErasureCoded();
    int spare = ec ? layout.across().parity() : layout.across().data() - 1;
    int members = ec ? map.members() : map.copies();
    long units = map.groups(file.length());
    for (long g = 0; g < Math.max(units, 1); g++) {
      if (file.holes().contains(g)) {
        continue; // no member anywhere
      }
      int lost = 0;
      for (int j = 0; j < members; j++) {
        String t = layout.targets().get(ec ? map.memberPosition(g, j) : map.copyPosition(g, j));
        lost += down.contains(t) || file.repairs().stale(t, g) ? 1 : 0;
      }
      if (lost > spare) {
        throw new IOException("targets " + down + " cannot be reached, and group " + g + " of "
            + file.path() + " (" + layout.across() + ") would keep too few members without them"
            + " and the " + file.repairs().members() + " its repair record names");
      }
    }
  }

  /**
   * The stored prefix. A chunk of a {@code mirror:N} file counts only when every copy is
   * listed, with the shortest copy's length: what every copy holds. Parity chunks are not data.
   * Copies the file's repair record names (a write left them out, their targets down) are not
   * asked for: their targets may hold an older version or none. A data chunk whose only member
   * is in the record (ec) is taken as holding what the committed length covers of it, which the
   * rest of its group decodes; the prefix ends there unless that is the whole chunk.
   *
   * <p>Past the committed length, a chunk counts only where every place that may hold a copy
   * of it was asked (each mirror copy; an ec chunk's own target and its group's parity
   * targets): else it counts as far as the committed length. A shorter copy that could not be
   * asked may be the one an earlier recovery cut the file at, and the longer one answering now
   * holds bytes that recovery cut (audit D4): the bytes past the committed length were never
   * acknowledged, so not counting them loses nothing a writer was promised.
   */
  private static long prefix(FileStatus file, Listing stored) {
    Layout layout = file.layout();
    ChunkMap map = ChunkMap.of(layout);
    long chunkSize = layout.chunkSize();
    long end = 0;
    for (int i = 0; ; i++) {
      if (file.holes().contains(map.group(i))) {
        // a hole reads as zeros: present, as far as the committed length reaches
        long len = Math.max(0, Math.min(chunkSize, file.length() - i * chunkSize));
        if (len == 0) {
          return end;
        }
        end = i * chunkSize + len;
        if (len < chunkSize) {
          return end;
        }
        continue;
      }
      Map<String, Long> lens = stored.lengths().getOrDefault(i, Map.of());
      long committed = Math.max(0, Math.min(chunkSize, file.length() - i * chunkSize));
      long len = Long.MAX_VALUE;
      boolean asked = false;
      boolean unasked = false; // a place that may hold a copy of the chunk was not asked
      for (int c = 0; c < map.copies(); c++) {
        String target = layout.targets().get(map.copyPosition(i, c));
        if (file.repairs().stale(target, map.group(i)) || stored.down().contains(target)) {
          unasked = true;
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
        len = committed;
        if (len == 0) {
          return end;
        }
      } else if (layout.across().isErasureCoded()) {
        // an ec chunk with copies on its group's parity targets (an hflush that no round
        // sealed): only what every copy holds, as a mirror chunk counts, so that the bytes past
        // the acknowledged length a dead writer's last hflush left on one node are not
        // committed as if they had the group's tolerance; never below what the committed length
        // covers, which every acknowledged copy holds
        long g = map.group(i);
        int k = layout.across().data();
        for (int p = k; p < k + layout.across().parity(); p++) {
          String t = layout.targets().get(map.memberPosition(g, p));
          Long copy = lens.get(t);
          if (file.repairs().stale(t, g) || stored.down().contains(t)) {
            unasked = true;
          } else if (copy != null) {
            len = Math.min(len, copy);
          }
        }
        if (unasked) {
          len = committed;
        }
        len = Math.max(len, committed);
      } else if (unasked) {
        len = Math.min(len, committed);
      }
      end = i * chunkSize + Math.min(len, chunkSize);
      if (len < chunkSize) {
        return end;
      }
    }
  }
}
