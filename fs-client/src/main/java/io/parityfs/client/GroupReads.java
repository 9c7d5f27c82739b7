package io.parityfs.client;

import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.RoundTag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A degraded read of one data chunk of an {@code ec:K+M} file (docs/across-nodes.md §4): its
 * group's other members are read, with the group tag of the version each answer was read from,
 * until K members of one tag are in hand, and the chunk is decoded from them. Members of other
 * tags are never combined, so a writer that died between a group's data and its parity (or one
 * still writing it) leaves no mix of versions in what a reader decodes.
 *
 * <p><b>The tag of an ec member.</b> Every member a writer stores for a group in one round (a
 * full group, or a partial one at hflush or close) carries one {@link RoundTag}: the writer
 * generation, the round, and c (1..K), how many of the group's data chunks the round holds. The
 * data chunks c..K−1 are past the end of the file in that round: zeros to the code, never read. So a reader knows from any one member which data chunks its round holds,
 * without asking the nodes for chunks that may be being created while it reads.
 *
 * <p>Members on targets the registry sees offline or that failed a transfer recently ({@link
 * Suspects}) are asked last, only where the others do not give K of one tag. One instance per
 * read; not thread-safe.
 */
final class GroupReads {
  private final ChunkIo io;

  GroupReads(ChunkIo io) {
    this.io = io;
  }

  /** One member read: its bytes from the offset asked and the tag of its version. */
  private record Member(int j, ByteBuffer bytes, RoundTag tag, String failure,
      boolean unreachable) {}

  /**
   * Decodes the bytes of data chunk {@code index} from {@code offset} into {@code dst} (up to
   * its remaining bytes). The code works byte position by byte position, so only the same range
   * of K other members is read, the first K that are not known down in parallel, more only
   * where those do not give K of one tag, or where a member read carries a newer tag than the
   * round found (the newest round that decodes wins, audit R2). Meanwhile the chunk's copies on
   * the group's parity targets are read ({@link RoundTag#copy}: what an hflush stores of a
   * partial group, docs/across-nodes.md §3): the newest of the round and the copies is what
   * the reader gets (audit R3), so a round torn after an hflush leaves the acknowledged bytes
   * readable from the copies.
   *
   * @return the bytes read: fewer only where every member read ends before them
   * @throws ClientException when no tag has K members that can be read and no copy answers,
   *     naming the group, the tags found and the members that could not be read: UNAVAILABLE
   *     when some of those are on nodes that are down or unreachable (they may come back),
   *     DATA_LOST otherwise
   */
  int read(long fileId, Layout layout, Repairs stale, int index, long offset, ByteBuffer dst)
      throws IOException {
    ChunkMap map = ChunkMap.of(layout);
    Across across = layout.across();
    int k = across.data();
    int n = across.width();
    long group = map.group(index);
    int wanted = (int) (index - group * k);
    int len = dst.remaining();
    List<String> unread = new ArrayList<>();
    String wantedTarget = layout.targets().get(map.memberPosition(group, wanted));
    // the wanted member's own node is usually why this read is degraded: it may come back
    boolean unreachable = !io.healthy(wantedTarget);
    List<Integer> candidates = new ArrayList<>();
    List<Integer> lastResort = new ArrayList<>();
    List<CompletableFuture<Member>> copies = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      if (j == wanted) {
        continue;
      }
      String target = layout.targets().get(map.memberPosition(group, j));
      if (stale.stale(target, group)) {
        unread.add("member " + j + " (in the file's repair record)");
        continue; // a write left it out: its target may hold an older version
      }
      if (j >= k) { // a parity target: it may hold a copy of the wanted chunk
        copies.add(CompletableFuture.supplyAsync(
            () -> readAt(target, fileId, index, -1, offset, len), io.fanOut()));
      }
      // data members first (by number), then parity; members on targets known down or
      // suspect only when the others do not give K of one tag
      (io.healthy(target) ? candidates : lastResort).add(j);
    }
    candidates.addAll(lastResort);
    Member[] got = new Member[n];
    Map<RoundTag, Integer> counts = new LinkedHashMap<>();
    RoundTag round = null;
    int next = 0;
    while (next < candidates.size()) {
      int batch = Math.max(1, k - (int) java.util.Arrays.stream(got).filter(
          g -> g != null && g.tag() != null).count());
      List<CompletableFuture<Member>> reads = new ArrayList<>();
      for (int i = 0; i < batch && next < candidates.size(); i++) {
        int j = candidates.get(next++);
        reads.add(CompletableFuture.supplyAsync(
            () -> readOne(layout, map, fileId, group, j, offset, len), io.fanOut()));
      }
      RoundTag newestSeen = null;
      for (CompletableFuture<Member> f : reads) {
        Member r = MemberIo.join(f);
        got[r.j()] = r;
        if (r.tag() == null) {
          unreachable |= r.unreachable();
          unread.add("member " + r.j() + " (" + r.failure() + ")");
          continue;
        }
        int c = r.tag().count();
        if (r.j() < k && r.j() >= c || c == 0 || c > k || wanted >= c) {
          continue; // a round that does not hold this member or the wanted one: not usable
        }
        counts.merge(r.tag(), 1, Integer::sum);
      }
      round = newestComplete(counts, k);
      for (Member r : got) {
        if (r != null && r.tag() != null && !r.tag().isCopy() && r.tag().newerThan(newestSeen)) {
          newestSeen = r.tag();
        }
      }
      if (round != null && (newestSeen == null || !newestSeen.newerThan(round))) {
        break; // no member read so far belongs to a newer round that might still decode
      }
    }
    Member copy = newestCopy(copies);
    // the newer of the two, unless the copy ends before the range while the round may not: a
    // writer's copies of content it has not committed yet (a truncate's kept bytes) are newer
    // than the round that holds the committed bytes
    if (copy != null && copy.tag().newerThan(round)
        && (round == null || copy.bytes().remaining() >= len)) {
      copy.bytes().limit(Math.min(copy.bytes().limit(), len));
      int got0 = copy.bytes().remaining();
      dst.put(copy.bytes());
      return got0;
    }
    if (round != null) {
      return decode(across, got, round, wanted, len, dst);
    }
    // members on nodes that are down may hold what is missing: UNAVAILABLE, not lost
    throw new NoRoundException(unreachable ? ClientStatus.UNAVAILABLE : ClientStatus.DATA_LOST,
        "chunk " + index + " of file "
        + fileId + ": its target cannot be read, and group " + group + " of " + across
        + " has no " + k + " members of one tag to decode it from, nor a copy of it (members"
        + " read by tag: " + describe(counts) + "; not read: " + String.join(", ", unread)
        + ")");
  }

  /** The newest tag with enough members to decode, or null. */
  private static RoundTag newestComplete(Map<RoundTag, Integer> counts, int k) {
    RoundTag best = null;
    for (Map.Entry<RoundTag, Integer> e : counts.entrySet()) {
      int c = e.getKey().count();
      if (e.getValue() + (k - c) >= k && e.getKey().newerThan(best)) {
        best = e.getKey();
      }
    }
    return best;
  }

  /** The copy with the newest tag among those that answered, or null. */
  private static Member newestCopy(List<CompletableFuture<Member>> copies)
      throws IOException {
    Member best = null;
    for (CompletableFuture<Member> f : copies) {
      Member c = MemberIo.join(f);
      if (c.tag() != null && c.tag().isCopy() && (best == null || c.tag().newerThan(best.tag()))) {
        best = c;
      }
    }
    return best;
  }

  /** Member {@code j}'s bytes from {@code offset}, or why it could not be read. */
  private Member readOne(Layout layout, ChunkMap map, long fileId, long group, int j,
      long offset, int len) {
    return readAt(layout.targets().get(map.memberPosition(group, j)), fileId,
        map.memberIndex(group, j), j, offset, len);
  }

  /**
   * Chunk {@code chunkIndex}'s bytes from {@code offset} on {@code target} (member {@code j};
   * -1: a copy), or why they could not be read.
   */
  private Member readAt(String target, long fileId, int chunkIndex, int j, long offset,
      int len) {
    ByteBuffer buf = ByteBuffer.allocate(len);
    try {
      Optional<ChunkStat> stat = io.readMember(target, fileId, chunkIndex, offset, buf);
      if (stat.isEmpty()) {
        return new Member(j, null, null, "missing on target " + target, false);
      }
      buf.flip();
      // the raw pair, not ChunkStat.tag(): an untagged version (an ec file stores none) reads
      // as a copy of round 0, older than every tag, rather than as a member not read
      return new Member(j, buf, RoundTag.of(stat.get().generation(), stat.get().sequence()),
          null, false);
    } catch (ClientException e) {
      if (ChunkIo.servedElsewhere(e)) {
        io.noteFailure(target, e);
        return new Member(j, null, null, e.getMessage(),
            e.status() == ClientStatus.UNAVAILABLE || e.status() == ClientStatus.TARGET_NOT_FOUND);
      }
      if (j < 0 || e.status() == ClientStatus.CONFLICT) {
        // a copy is only a fallback; a member whose version was replaced while it was read
        // belongs to a round in flight: neither is used, the others may still decode
        return new Member(j, null, null, e.getMessage(), false);
      }
      throw new CompletionException(e);
    } catch (IOException e) {
      if (j < 0) {
        return new Member(j, null, null, e.getMessage(), false);
      }
      throw new CompletionException(e);
    }
  }

  /**
   * The wanted member's bytes from the members of tag {@code t}, every one the same range: the
   * data chunks past the round's end are zeros, a member shorter than the range is zero-padded.
   */
  private int decode(Across across, Member[] got, RoundTag t, int wanted, int len,
      ByteBuffer dst) {
    int k = across.data();
    int c = t.count();
    ByteBuffer[] members = new ByteBuffer[across.width()];
    int longest = 0;
    for (int j = 0; j < members.length; j++) {
      if (j < k && j >= c) {
        members[j] = ByteBuffer.allocate(0); // past the end of the file in this round
      } else if (got[j] != null && t.equals(got[j].tag())) {
        members[j] = got[j].bytes();
        longest = Math.max(longest, members[j].remaining());
      }
    }
    if (longest == 0) {
      return 0; // the range is past the end of every member of the round
    }
    members[wanted] = null;
    ByteBuffer out = io.groupCodec(across).reconstruct(members, wanted, longest);
    int n = Math.min(out.remaining(), len);
    out.limit(out.position() + n);
    dst.put(out);
    return n;
  }

  private static String describe(Map<RoundTag, Integer> counts) {
    if (counts.isEmpty()) {
      return "none";
    }
    List<String> out = new ArrayList<>();
    counts.forEach((t, c) -> out.add(t + ": " + c));
    return String.join(", ", out);
  }
}
