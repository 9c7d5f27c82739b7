package io.parityfs.client;

import io.parityfs.client.across.GroupCodec;
import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.Layout;
import io.parityfs.node.protocol.ChunkStat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
 * Suspects}) are not asked. One instance per read; not thread-safe.
 */
final class GroupReads {
  /** Bits of an ec member's sequence that hold the count of data chunks in its round. */
  static final int COUNT_BITS = 5;

  private final ChunkIo io;
  private final Suspects suspects;

  GroupReads(ChunkIo io, Suspects suspects) {
    this.io = io;
    this.suspects = suspects;
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

  /**
   * Decodes data chunk {@code index} and reads into {@code dst} (up to its remaining bytes) from
   * {@code offset} of it.
   *
   * @return the bytes read: fewer only at the end of the decoded chunk
   * @throws ClientException DATA_LOST when no tag has K members that can be read, naming the
   *     group, the tags found and the members that could not be read
   */
  int read(long fileId, Layout layout, int index, long offset, ByteBuffer dst)
      throws IOException {
    ChunkMap map = ChunkMap.of(layout);
    Across across = layout.across();
    int k = across.data();
    int n = across.width();
    long group = map.group(index);
    int wanted = (int) (index - group * k);
    int chunkSize = ChunkIo.bufferSize(layout, null);
    ByteBuffer[] bytes = new ByteBuffer[n];
    Tag[] tags = new Tag[n];
    List<String> unread = new ArrayList<>();
    Map<Tag, Integer> counts = new LinkedHashMap<>();
    for (int j : order(wanted, k, n)) {
      String target = layout.targets().get(map.memberPosition(group, j));
      int memberIndex = map.memberIndex(group, j);
      if (suspects.suspect(target) || !io.online(target)) {
        unread.add("member " + j + " (target " + target + " is down)");
        continue;
      }
      ByteBuffer buf = ByteBuffer.allocate(chunkSize);
      try {
        Optional<ChunkStat> stat = io.readMember(target, fileId, memberIndex, buf);
        if (stat.isEmpty()) {
          unread.add("member " + j + " (missing on target " + target + ")");
          continue;
        }
        buf.flip();
        bytes[j] = buf;
        tags[j] = new Tag(stat.get().generation(), stat.get().sequence());
      } catch (ClientException e) {
        if (!ChunkIo.servedElsewhere(e)) {
          throw e;
        }
        suspects.failed(target);
        unread.add("member " + j + " (" + e.getMessage() + ")");
        continue;
      }
      Tag t = tags[j];
      int c = count(t.sequence());
      if (j < k && j >= c || c == 0 || c > k || wanted >= c) {
        continue; // a round that does not hold this member or the wanted one: not usable
      }
      int have = counts.merge(t, 1, Integer::sum);
      if (have + (k - c) >= k) {
        return decode(across, layout, bytes, tags, t, c, wanted, offset, dst, io);
      }
    }
    throw new ClientException(ClientStatus.DATA_LOST, null, "chunk " + index + " of file "
        + fileId + ": its target cannot be read, and group " + group + " of " + across
        + " has no " + k + " members of one tag to decode it from (members read by tag: "
        + describe(counts) + "; not read: " + String.join(", ", unread) + ")");
  }

  /** The other members, data chunks first (the healthy path's neighbours), then parity. */
  private static int[] order(int wanted, int k, int n) {
    int[] out = new int[n - 1];
    int i = 0;
    for (int j = 0; j < n; j++) {
      if (j != wanted) {
        out[i++] = j;
      }
    }
    return out;
  }

  private static int decode(Across across, Layout layout, ByteBuffer[] bytes, Tag[] tags, Tag t,
      int c, int wanted, long offset, ByteBuffer dst, ChunkIo io) {
    int k = across.data();
    ByteBuffer[] members = new ByteBuffer[across.width()];
    for (int j = 0; j < members.length; j++) {
      if (j < k && j >= c) {
        members[j] = ByteBuffer.allocate(0); // past the end of the file in this round
      } else if (bytes[j] != null && t.equals(tags[j])) {
        members[j] = bytes[j];
      }
    }
    int groupLength = 0;
    for (int j = 0; j < members.length; j++) {
      if (j != wanted && members[j] != null) {
        groupLength = Math.max(groupLength, members[j].remaining());
      }
    }
    GroupCodec codec = io.groupCodec(across);
    ByteBuffer out = codec.reconstruct(members, wanted, groupLength);
    if (offset >= out.remaining()) {
      return 0;
    }
    out.position((int) offset);
    int len = Math.min(out.remaining(), dst.remaining());
    out.limit(out.position() + len);
    dst.put(out);
    return len;
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
