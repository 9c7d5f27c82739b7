package io.parityfs.client;

import io.parityfs.client.across.GroupCodec;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.node.protocol.RoundTag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * The chunk groups of a sequential {@code ec:K+M} writer ({@link PfsOutputStream};
 * docs/across-nodes.md §3). The data chunks of the open group stay in the stream's buffers until
 * the group is full or the stream is flushed; then one <em>round</em> stores every data chunk
 * the group holds and its M parity chunks, computed by the client's codec, in parallel, all with
 * one group tag ({@link RoundTag}). A flush of a partial group stores its present
 * chunks (the partial last one included) and parity; when the group grows, the next round
 * stores them all again under a new tag, so that every member a reader combines comes from one
 * round.
 *
 * <p>The stream acknowledges an hflush or close only when every round since the last commit is
 * stored: on all K+M targets, or, while some are down, on at least K plus the write margin
 * ({@link StaleMembers}); the members left out go in the file's repair record with the commit,
 * and readers never use them (docs/across-nodes.md §3). A member that fails otherwise (a fenced
 * writer, a full target), or too many down, fail the round and the stream. Used by one writer
 * thread at a time.
 */
final class GroupWriter {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GroupWriter.class);
  private final ChunkIo chunks;
  private final ExecutorService transfers;
  private final FileStatus file;
  private final Layout layout;
  private final ChunkMap map;
  private final GroupCodec codec;
  private final StaleMembers stale;
  private final int k;
  private final int m;
  /** The open group's data chunks stored or filled so far, index j at j. */
  private final ByteBuffer[] open;
  private long group = -1;
  private int full;
  /**
   * What the last hflush copied of the open group: its number, its full chunks and the partial
   * chunk's length (0: none). An hflush copies only the chunks changed since, and nothing when
   * nothing changed (audit H9).
   */
  private long copiedGroup = -1;
  private int copiedFull;
  private int copiedPartial;
  /** Groups with copies on their parity targets: group to how many of its first data chunks. */
  private final Map<Long, Integer> copied = new HashMap<>();
  /** Groups with copies whose sealing round has started: their copies go after the commit. */
  private final List<Long> sealing = new ArrayList<>();

  GroupWriter(ChunkIo chunks, ExecutorService transfers, FileStatus file, StaleMembers stale) {
    this.chunks = chunks;
    this.stale = stale;
    this.transfers = transfers;
    this.file = file;
    this.layout = file.layout();
    this.map = ChunkMap.of(layout);
    this.codec = chunks.groupCodec(layout.across());
    this.k = layout.across().data();
    this.m = layout.across().parity();
    this.open = new ByteBuffer[k];
  }

  /** The data chunks of a group: what a stream must be able to hold at once, at least. */
  int groupChunks() {
    return k;
  }

  /**
   * Takes the full chunk {@code index} (its bytes up to the position; the buffer is held until
   * its group is stored). When it completes its group, the round is started and returned, and
   * {@code recycle} gets the group's buffers back once it ends; otherwise null.
   */
  CompletableFuture<Void> full(int index, ByteBuffer buf, Consumer<ByteBuffer> recycle) {
    place(index);
    open[full++] = buf;
    if (full < k) {
      return null;
    }
    ByteBuffer[] held = open.clone();
    CompletableFuture<Void> round = seal(data(held, k, null));
    java.util.Arrays.fill(open, null);
    full = 0;
    group = -1;
    return round.whenComplete((v, e) -> {
      for (ByteBuffer b : held) {
        recycle.accept(b);
      }
    });
  }

  /**
   * Seals the open group as it is (at close): one round of its full chunks and {@code partial}
   * (chunk {@code index}, its bytes up to the position; not held), with parity. Null when the
   * group holds nothing.
   */
  CompletableFuture<Void> flush(int index, ByteBuffer partial) {
    boolean hasPartial = partial != null && partial.position() > 0;
    if (full == 0 && !hasPartial) {
      return null;
    }
    if (hasPartial) {
      place(index);
    }
    return seal(data(open, full, hasPartial ? partial : null));
  }

  /** The open group's round; its copies are released after the commit that follows it. */
  private CompletableFuture<Void> seal(ByteBuffer[] data) {
    if (copied.containsKey(group)) {
      sealing.add(group);
    }
    copiedGroup = -1;
    return store(group, data);
  }

  /**
   * An hflush of the open group (docs/across-nodes.md §3, audit C1): each data chunk changed
   * since the last hflush (normally the partial one, and those that filled since) is stored on
   * its own target and, as a <em>copy</em> under its own chunk id, on each of the group's M
   * parity targets, all with one copy tag ({@link RoundTag#copy}). No parity member
   * is touched, so the group's last round, and the copies before, stay whole whatever happens
   * to this one. Each chunk needs one copy plus the write margin stored (the tolerance of a
   * round). Null when nothing changed since the last hflush.
   */
  CompletableFuture<Void> copy(int index, ByteBuffer partial) {
    boolean hasPartial = partial != null && partial.position() > 0;
    if (full == 0 && !hasPartial) {
      return null;
    }
    if (hasPartial) {
      place(index);
    }
    int partialLength = hasPartial ? partial.position() : 0;
    int from = 0;
    if (group == copiedGroup) {
      if (full == copiedFull && partialLength == copiedPartial) {
        return null; // copied as it is by the last hflush: nothing changed since
      }
      from = copiedFull; // the chunks before were full then, and are the same now
    }
    copiedGroup = group;
    copiedFull = full;
    copiedPartial = partialLength;
    return copies(group, data(open, full, hasPartial ? partial : null), from, true);
  }

  /**
   * An append into a partial group (audit C4): copies of every chunk the group holds, on its
   * parity targets, before anything replaces a member of its last round. Waits for them.
   */
  void protect(int index, ByteBuffer partial) throws IOException {
    boolean hasPartial = partial != null && partial.position() > 0;
    if (full == 0 && !hasPartial) {
      return;
    }
    if (hasPartial) {
      place(index);
    }
    copiedGroup = group;
    copiedFull = full;
    copiedPartial = hasPartial ? partial.position() : 0;
    // the own targets hold these bytes already, in the round the last close stored
    MemberIo.join(copies(group, data(open, full, hasPartial ? partial : null), 0, false));
  }

  /**
   * Stores data chunks {@code from}.. of group {@code g} as copies: on the group's parity
   * targets and, when {@code own}, on each chunk's own target too.
   */
  private CompletableFuture<Void> copies(long g, ByteBuffer[] data, int from, boolean own) {
    long sequence = RoundTag.copy(file.generation(), chunks.nextSequence()).sequence();
    List<CompletableFuture<Void>> chunkWrites = new ArrayList<>();
    int count = from;
    for (int j = from; j < k && data[j] != null; j++) {
      int jj = j;
      count = j + 1;
      List<String> targets = new ArrayList<>(m + 1);
      if (own) {
        targets.add(layout.targets().get(map.memberPosition(g, j)));
      }
      for (int p = k; p < k + m; p++) {
        targets.add(layout.targets().get(map.memberPosition(g, p)));
      }
      // a round needs K plus the margin stored; a chunk's copies one plus the margin
      int least = stale.least() - k + 1;
      boolean[] out = chunks.leaveOut(targets, stale, least);
      List<CompletableFuture<Void>> writes = new ArrayList<>(targets.size());
      for (int i = 0; i < targets.size(); i++) {
        String target = targets.get(i);
        writes.add(out[i] ? null : CompletableFuture.runAsync(() -> {
          try {
            chunks.writeMember(target, file.id(), file.generation(), sequence,
                map.memberIndex(g, jj), data[jj].duplicate());
          } catch (IOException e) {
            throw new CompletionException(e);
          }
        }, transfers));
      }
      int missingOwn = own ? 0 : 1; // without the own target, one copy fewer is written
      chunkWrites.add(stale.settle(g, targets, writes, k - 1 + missingOwn, "copies of chunk "
          + (g * k + j) + " of file " + file.id()));
    }
    copied.merge(g, count, Math::max);
    return CompletableFuture.allOf(chunkWrites.toArray(CompletableFuture[]::new));
  }

  /**
   * A random-access writer's store of group {@code g}, which holds committed bytes (audit C5;
   * {@link PfsFileWriter}): copies of every chunk of its new content on the group's parity
   * targets first (one copy tag), then its round, which so replaces members only while copies
   * hold every committed byte it does not change (a chunk's own member holds it too, old or new).
   * The copies go at the next {@link #release}.
   */
  CompletableFuture<Void> storeProtected(long g, ByteBuffer[] data) {
    // on the parity targets only: they hold the round's parity under another chunk id, so
    // these writes take no member from the round that protects the committed bytes now, and
    // every chunk's new content is on M targets before the round replaces any member
    CompletableFuture<Void> copied = copies(g, data, 0, false);
    if (!sealing.contains(g)) {
      sealing.add(g);
    }
    return copied.thenCompose(v -> store(g, data));
  }

  /**
   * After a commit: deletes the copies of every group whose sealing round has ended since (the
   * stream waited for it) and is covered by the commit. Best effort: a copy left behind is
   * older than the round, which readers prefer (docs/across-nodes.md §4). Never fails.
   */
  CompletableFuture<Void> release() {
    List<CompletableFuture<Void>> deletes = new ArrayList<>();
    for (long g : sealing) {
      Integer count = copied.remove(g);
      if (count == null) {
        continue;
      }
      for (int p = k; p < k + m; p++) {
        String target = layout.targets().get(map.memberPosition(g, p));
        for (int j = 0; j < count; j++) {
          int index = map.memberIndex(g, j);
          deletes.add(CompletableFuture.runAsync(() -> {
            try {
              chunks.deleteMember(target, file.id(), index, file.generation(), null, g);
            } catch (IOException e) {
              LOG.debug("copy of chunk {} of file {} on {} not deleted: {}", index, file.id(),
                  target, e.getMessage());
            }
          }, transfers));
        }
      }
    }
    sealing.clear();
    return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new))
        .exceptionally(e -> null);
  }

  /** The open group is chunk {@code index}'s; a chunk of another group while one is open is a bug. */
  private void place(int index) {
    long g = map.group(index);
    if (group < 0) {
      group = g;
    }
    if (g != group || index - g * k != full) {
      throw new IllegalStateException("chunk " + index + " is not the next of open group "
          + group + " (" + full + " chunks)");
    }
  }

  /** The first {@code count} buffers as read views, then {@code partial}'s, then nulls. */
  private ByteBuffer[] data(ByteBuffer[] bufs, int count, ByteBuffer partial) {
    ByteBuffer[] out = new ByteBuffer[k];
    for (int j = 0; j < count; j++) {
      out[j] = bufs[j].duplicate().flip();
    }
    if (partial != null) {
      out[count] = partial.duplicate().flip();
    }
    return out;
  }

  /**
   * One round of group {@code g}: the present data chunks at once, the parity once computed;
   * one tag for all. {@code data} has K entries, the present chunks first (their remaining
   * bytes, not consumed), nulls past the end of the file. Also what a random-access writer
   * ({@link PfsFileWriter}) stores a changed group with.
   */
  CompletableFuture<Void> store(long g, ByteBuffer[] data) {
    int present = 0;
    while (present < k && data[present] != null) {
      present++;
    }
    for (int j = present; j < k; j++) {
      if (data[j] != null) {
        throw new IllegalStateException("group " + g + " of file " + file.id() + ": chunk "
            + (g * k + j) + " is given but chunk " + (g * k + present) + " before it is not"
            + " (a hole)");
      }
    }
    long sequence = new RoundTag(file.generation(), chunks.nextSequence(), present).sequence();
    // the members of this round: the present data chunks and the parity; those whose targets
    // are known down are left out from the start when the others are enough
    List<Integer> members = new ArrayList<>(present + m);
    List<String> targets = new ArrayList<>(present + m);
    for (int j = 0; j < k + m; j++) {
      if (j < present || j >= k) {
        members.add(j);
        targets.add(layout.targets().get(map.memberPosition(g, j)));
      }
    }
    boolean[] out = chunks.leaveOut(targets, stale);
    CompletableFuture<ByteBuffer[]> parity =
        CompletableFuture.supplyAsync(() -> codec.encode(data), transfers);
    List<CompletableFuture<Void>> writes = new ArrayList<>(members.size());
    for (int i = 0; i < members.size(); i++) {
      int j = members.get(i);
      String target = targets.get(i);
      if (out[i]) {
        writes.add(null);
      } else if (j < k) {
        writes.add(CompletableFuture.runAsync(() -> put(g, j, target, sequence, data[j]),
            transfers));
      } else {
        writes.add(parity.thenAcceptAsync(par -> put(g, j, target, sequence, par[j - k]),
            transfers));
      }
    }
    CompletableFuture<Void> encoded = parity.thenAccept(p -> { });
    CompletableFuture<Void> stored = stale.settle(g, targets, writes, k - present, "group " + g
        + " of file " + file.id());
    // the round ends when its writes have, and its parity was computed (it fails if that did)
    return CompletableFuture.allOf(stored, encoded);
  }

  /**
   * Deletes the parity chunks of groups {@code from} to {@code to} (a truncate's, past the new
   * end), as the file's writer generation.
   */
  void deleteParity(long from, long to) throws IOException {
    for (long g = from; g <= to; g++) {
      for (int p = k; p < k + m; p++) {
        String target = layout.targets().get(map.memberPosition(g, p));
        chunks.deleteMember(target, file.id(), map.memberIndex(g, p), file.generation(), stale,
            g); // a target that is down: recorded, trimmed by catch-up
      }
    }
  }

  private void put(long g, int member, String target, long sequence, ByteBuffer bytes) {
    try {
      chunks.writeMember(target, file.id(), file.generation(), sequence,
          map.memberIndex(g, member), bytes);
    } catch (IOException e) {
      throw new CompletionException(e);
    }
  }
}
