package io.parityfs.client;

import io.parityfs.client.across.GroupCodec;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * The chunk groups of a sequential {@code ec:K+M} writer ({@link PfsOutputStream};
 * docs/across-nodes.md §3). The data chunks of the open group stay in the stream's buffers until
 * the group is full or the stream is flushed; then one <em>round</em> stores every data chunk
 * the group holds and its M parity chunks, computed by the client's codec, in parallel, all with
 * one group tag ({@link GroupReads#sequence}). A flush of a partial group stores its present
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
   * What the last flush round stored of the open group: its number, its full chunks and the
   * partial chunk's length (-1: none yet). A flush that would store the same again writes
   * nothing (audit H9): a second round of unchanged bytes only widens the window in which a
   * torn round can leave the group without K members of one tag.
   */
  private long flushedGroup = -1;
  private int flushedFull;
  private int flushedPartial = -1;

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
    CompletableFuture<Void> round = store(group, data(held, k, null));
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
   * Stores the open group as it is: its full chunks and {@code partial} (chunk {@code index},
   * its bytes up to the position; not held), with parity. Null when the group holds nothing.
   */
  CompletableFuture<Void> flush(int index, ByteBuffer partial) {
    boolean hasPartial = partial != null && partial.position() > 0;
    if (full == 0 && !hasPartial) {
      return null;
    }
    if (hasPartial) {
      place(index);
    }
    int partialLength = hasPartial ? partial.position() : 0;
    if (group == flushedGroup && full == flushedFull && partialLength == flushedPartial) {
      return null; // stored as it is by the last flush: nothing changed since
    }
    flushedGroup = group;
    flushedFull = full;
    flushedPartial = partialLength;
    return store(group, data(open, full, hasPartial ? partial : null));
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
    long sequence = GroupReads.sequence(chunks.nextSequence(), present);
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
