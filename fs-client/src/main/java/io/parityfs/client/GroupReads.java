package io.parityfs.client;

import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import io.parityfs.node.protocol.ChunkStat;
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
 * full group, or a partial one at hflush or close) carries one tag: the writer generation and
 * the sequence {@code round << 5 | c}, where c (1..K) is how many of the group's data chunks the
 * round holds. The data chunks c..K−1 are past the end of the file in that round: zeros to the
 * code, never read. So a reader knows from any one member which data chunks its round holds,
 * without asking the nodes for chunks that may be being created while it reads.
 *
 * <p>Members on targets the registry sees offline or that failed a transfer recently ({@link
 * Suspects}) are asked last, only where the others do not give K of one tag. One instance per
 * read; not thread-safe.
 */
final class GroupReads {
  /** Bits of an ec member's sequence that hold the count of data chunks in its round. */
  static final int COUNT_BITS = 5;

  private final ChunkIo io;

  GroupReads(ChunkIo io) {
    this.io = io;
  }

  /** The sequence of a round {@code round} holding {@code count} data chunks of a group. */
  static long sequence(long round, int count) {
    if (count < 1 || count > Across.MAX_DATA) {
      throw new IllegalArgumentException("count (" + count + ") must be in 1.." + Across.MAX_DATA);
    }
    return round << COUNT_BITS | count;
  }

  /** The count of data chunks of the round that stored a member with {@code sequence}. */
  static int count(long sequence) {
    return (int) (sequence & ((1 << COUNT_BITS) - 1));
  }

  /** A group tag: the writer generation and the sequence of one round. */
  private record Tag(long generation, long sequence) {}

  /** One member read: its bytes from the offset asked and the tag of its version. */
  private record Member(int j, ByteBuffer bytes, Tag tag, String failure, boolean unreachable) {}

  /**
   * Decodes the bytes of data chunk {@code index} from {@code offset} into {@code dst} (up to
   * its remaining bytes). The code works byte position by byte position, so only the same range
   * of K other members is read, the first K that are not known down in parallel, more only
   * where those do not give K of one tag.
   *
   * @return the bytes read: fewer only where every member read ends before them
   * @throws ClientException when no tag has K members that can be read, naming the group, the
   *     tags found and the members that could not be read: UNAVAILABLE when some of those are on
   *     nodes that are down or unreachable (they may come back), DATA_LOST otherwise
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
    for (int j = 0; j < n; j++) {
      if (j == wanted) {
        continue;
      }
      String target = layout.targets().get(map.memberPosition(group, j));
      if (stale.stale(target, group)) {
        unread.add("member " + j + " (in the file's repair record)");
        continue; // a write left it out: its target may hold an older version
      }
      // data members first (by number), then parity; members on targets known down or
      // suspect only when the others do not give K of one tag
      (io.healthy(target) ? candidates : lastResort).add(j);
    }
    candidates.addAll(lastResort);
    Member[] got = new Member[n];
    Map<Tag, Integer> counts = new LinkedHashMap<>();
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
      for (CompletableFuture<Member> f : reads) {
        Member r = ChunkIo.join(f);
        got[r.j()] = r;
        if (r.tag() == null) {
          unreachable |= r.unreachable();
          unread.add("member " + r.j() + " (" + r.failure() + ")");
          continue;
        }
        int c = count(r.tag().sequence());
        if (r.j() < k && r.j() >= c || c == 0 || c > k || wanted >= c) {
          continue; // a round that does not hold this member or the wanted one: not usable
        }
        counts.merge(r.tag(), 1, Integer::sum);
      }
      for (Map.Entry<Tag, Integer> e : counts.entrySet()) {
        int c = count(e.getKey().sequence());
        if (e.getValue() + (k - c) >= k) {
          return decode(across, got, e.getKey(), c, wanted, len, dst);
        }
      }
    }
    // members on nodes that are down may hold what is missing: UNAVAILABLE, not lost
    throw new NoRoundException(unreachable ? ClientStatus.UNAVAILABLE : ClientStatus.DATA_LOST,
        "chunk " + index + " of file "
        + fileId + ": its target cannot be read, and group " + group + " of " + across
        + " has no " + k + " members of one tag to decode it from (members read by tag: "
        + describe(counts) + "; not read: " + String.join(", ", unread) + ")");
  }

  /** Member {@code j}'s bytes from {@code offset}, or why it could not be read. */
  private Member readOne(Layout layout, ChunkMap map, long fileId, long group, int j,
      long offset, int len) {
    String target = layout.targets().get(map.memberPosition(group, j));
    ByteBuffer buf = ByteBuffer.allocate(len);
    try {
      Optional<ChunkStat> stat = io.readMember(target, fileId, map.memberIndex(group, j),
          offset, buf);
      if (stat.isEmpty()) {
        return new Member(j, null, null, "missing on target " + target, false);
      }
      buf.flip();
      return new Member(j, buf, new Tag(stat.get().generation(), stat.get().sequence()), null,
          false);
    } catch (ClientException e) {
      if (ChunkIo.servedElsewhere(e)) {
        io.noteFailure(target, e);
        return new Member(j, null, null, e.getMessage(),
            e.status() == ClientStatus.UNAVAILABLE || e.status() == ClientStatus.TARGET_NOT_FOUND);
      }
      throw new CompletionException(e);
    } catch (IOException e) {
      throw new CompletionException(e);
    }
  }

  /**
   * The wanted member's bytes from the members of tag {@code t}, every one the same range: the
   * data chunks past the round's end are zeros, a member shorter than the range is zero-padded.
   */
  private int decode(Across across, Member[] got, Tag t, int c, int wanted, int len,
      ByteBuffer dst) {
    int k = across.data();
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

  private static String describe(Map<Tag, Integer> counts) {
    if (counts.isEmpty()) {
      return "none";
    }
    List<String> out = new ArrayList<>();
    counts.forEach((t, c) -> out.add("(" + t.generation() + ", " + (t.sequence() >>> COUNT_BITS)
        + "/" + count(t.sequence()) + "): " + c));
    return String.join(", ", out);
  }
}
