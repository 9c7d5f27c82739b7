package io.parityfs.client;

import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;

/**
 * The cut group of a file a new writer takes (append, openWriter: {@link ParityClient}'s fence):
 * the {@code ec} group that holds the end, which the fence left whole, stored again in one round
 * cut at the end before the writer writes (docs/across-nodes.md §3). A writer's step, so it
 * lives with the writers, not with the keeper's catch-up. One instance per fence.
 */
final class CutGroup {
  private final ParityClient client;
  private final ChunkIo chunks;

  CutGroup(ParityClient client) {
    this.client = client;
    this.chunks = client.chunks();
  }

  /**
   * Stores the cut group of {@code f} (the ec group that holds its end, which a fence left
   * whole: {@link io.parityfs.meta.LengthProbe.Fenced#cutKept}) again in one round cut at the
   * end, as {@code f}'s writer generation, then deletes its data chunks past the end: no member
   * of the new round needs them, and once deleted no later prefix can bring their bytes back.
   * The chunks before the end are read as any reader reads them, decoded from the old round
   * where their node is down. What {@code f}'s new writer does before it writes. Returns the
   * file as committed after it: members the round or the deletes left out on targets that are
   * down are added to its repair record, for catch-up.
   */
  FileStatus restoreCut(FileStatus f) throws IOException {
    Layout layout = f.layout();
    ChunkMap map = ChunkMap.of(layout);
    int k = layout.across().data();
    long first = map.dataChunks(f.length()); // the first data chunk past the end
    if (!layout.across().isErasureCoded() || first % k == 0) {
      return f; // the end is a group's end: no group is cut
    }
    long g = first / k;
    if (f.holes().contains(g)) {
      return f; // the end is in a hole: no member of its group is stored
    }
    int present = (int) (first - g * k);
    StaleMembers stale = new StaleMembers(layout.across(), client.config().writeMargin());
    ByteBuffer[] data = chunks.readData(f, g * k, present, k);
    // copies of the kept content first: the round then replaces members of the round that
    // protects the committed bytes only while the copies hold them (audit C5)
    GroupWriter writer = new GroupWriter(chunks, client.transfers(), f, stale);
    MemberIo.join(writer.storeProtected(g, data));
    MemberIo.join(writer.release());
    deletePastEnd(f, layout, map, g, present, stale);
    Repairs left = stale.repairs();
    return left.isEmpty() ? f : client.namespace().setLength(f.path(), f.id(), -1, f.length(),
        f.modificationTime(), left);
  }

  /**
   * Deletes group {@code g}'s data members {@code present..K-1} (past the end of the file) on
   * {@code layout}'s targets, at the file's generation, once a round has stored the group cut at
   * the end: none of its members needs them any more. A target that is down goes in {@code
   * stale} (catch-up's trim deletes there) or, without one, fails the delete.
   */
  private void deletePastEnd(FileStatus f, Layout layout, ChunkMap map, long g, int present,
      StaleMembers stale) throws IOException {
    for (int j = present; j < layout.across().data(); j++) {
      chunks.deleteMember(layout.targets().get(map.memberPosition(g, j)), f.id(),
          map.memberIndex(g, j), f.generation(), stale, g);
    }
  }
}
