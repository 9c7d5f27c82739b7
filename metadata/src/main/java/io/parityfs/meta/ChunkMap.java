package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the chunks of a file with a given {@link Layout} live: the position in {@code
 * layout.targets()} and the chunk index on that target of every data chunk, mirror copy and
 * parity chunk (docs/across-nodes.md §2). W is the stripe count and K, M, N the policy's counts.
 *
 * <ul>
 *   <li>Data chunk i is always at position {@code i mod W} as chunk {@code i}, whatever the
 *       policy, so a healthy read is the same for every layout.
 *   <li>{@code mirror:N}: copy c of chunk i (copy 0 is the data chunk) is at position {@code
 *       (i + c) mod W}, as chunk {@code i}.
 *   <li>{@code ec:K+M}: group g holds data chunks gK .. gK+K−1; its member j (j &lt; K: data
 *       chunk gK+j; j ≥ K: parity chunk j−K) is at position {@code (gK + j) mod W}. So a group
 *       spans K+M consecutive positions, which placement puts on distinct nodes, and the parity
 *       moves on by K positions from one group to the next: every target takes parity in turn
 *       when gcd(K, W) ≤ M, so always with W = K+M. Parity chunk p of group g is chunk
 *       {@code PARITY_BASE + gM + p}, in the upper half of the node's 24-bit chunk index space.
 * </ul>
 *
 * Immutable and thread-safe.
 */
public final class ChunkMap {
  /** The first chunk index of parity chunks; an erasure-coded file's data chunks stay below. */
  public static final int PARITY_BASE = 1 << 23;
  /** Chunk indexes the storage nodes take: 0 .. 2^24 − 1. */
  public static final long CHUNK_INDEXES = 1L << 24;

  /** A chunk as stored: at {@code position} of the layout's targets, as chunk {@code index}. */
  public record Placed(int position, int index) {}

  private final Layout layout;
  private final Across across;
  private final int width;
  private final int k;
  private final int m;

  private ChunkMap(Layout layout) {
    this.layout = layout;
    this.across = layout.across();
    this.width = layout.stripeCount();
    this.k = across.isErasureCoded() ? across.data() : 1;
    this.m = across.isErasureCoded() ? across.parity() : 0;
  }

  /** The map of {@code layout}. */
  public static ChunkMap of(Layout layout) {
    return new ChunkMap(layout);
  }

  public Layout layout() {
    return layout;
  }

  /** The position of data chunk {@code chunk} (its copy 0). */
  public int position(long chunk) {
    return (int) (chunk % width);
  }

  /** The position of copy {@code copy} of chunk {@code chunk}: 0 ≤ copy &lt; N for mirror:N. */
  public int copyPosition(long chunk, int copy) {
    if (copy < 0 || copy >= copies()) {
      throw new IllegalArgumentException("copy " + copy + " of a layout with " + copies()
          + (copies() == 1 ? " copy" : " copies"));
    }
    return (int) ((chunk + copy) % width);
  }

  /** Copies of each data chunk: N for mirror:N, else 1. */
  public int copies() {
    return across.kind() == Across.Kind.MIRROR ? across.data() : 1;
  }

  /** The group of data chunk {@code chunk} (ec:K+M: chunk / K; otherwise the chunk itself). */
  public long group(long chunk) {
    return chunk / k;
  }

  /** Members of a group: K+M for ec:K+M, else 1. */
  public int members() {
    return k + m;
  }

  /** The position of member {@code member} of group {@code group}. */
  public int memberPosition(long group, int member) {
    checkMember(member);
    return (int) ((group * k + member) % width);
  }

  /** The chunk index of member {@code member} of group {@code group}: data gK+j, parity above. */
  public int memberIndex(long group, int member) {
    checkMember(member);
    long index = member < k ? group * k + member : PARITY_BASE + group * m + (member - k);
    if (group * k >= maxDataChunks()) {
      throw new IllegalArgumentException("group " + group + " is past the last chunk a file of "
          + layout.across() + " can have (" + maxDataChunks() + " data chunks)");
    }
    return (int) index;
  }

  /** Whether {@code index} names a parity chunk of an ec:K+M layout. */
  public boolean isParity(int index) {
    return m > 0 && index >= PARITY_BASE;
  }

  /**
   * The group of chunk {@code index} as its target stores it: {@link #group} of a data chunk,
   * g of (ec:K+M) parity chunk {@code PARITY_BASE + gM + p}.
   */
  public long groupOf(int index) {
    return isParity(index) ? (index - PARITY_BASE) / m : index / k;
  }

  /**
   * The member number of chunk {@code index} in its group ({@link #groupOf}): j for data chunk
   * gK + j, K + p for parity chunk p; 0 for a layout that is not ec.
   */
  public int memberOf(int index) {
    return isParity(index) ? k + (index - PARITY_BASE) % m : index % k;
  }

  /**
   * The chunks of group {@code group} that the layout places at {@code position}, by member
   * number (ec:K+M, data chunks past a file's end included) or copy number (mirror:N: copies of
   * chunk {@code group}; otherwise the chunk itself). Empty when none is placed there.
   */
  public List<Placed> membersAt(long group, int position) {
    List<Placed> out = new ArrayList<>(1);
    if (m > 0) {
      for (int j = 0; j < k + m; j++) {
        if (memberPosition(group, j) == position) {
          out.add(new Placed(position, memberIndex(group, j)));
        }
      }
    } else {
      for (int c = 0; c < copies(); c++) {
        if (copyPosition(group, c) == position) {
          out.add(new Placed(position, (int) group));
        }
      }
    }
    return out;
  }

  /**
   * {@link #membersAt(long, int)}, but only what a file of {@code length} bytes stores there:
   * none past its last group, and no data chunk past its end (ec:K+M parity always).
   */
  public List<Placed> membersAt(long group, int position, long length) {
    if (group >= groups(length)) {
      return List.of();
    }
    long data = dataChunks(length);
    List<Placed> out = membersAt(group, position);
    out.removeIf(p -> !isParity(p.index()) && p.index() >= data);
    return out;
  }

  /** Data chunks a file of {@code length} bytes has. */
  public long dataChunks(long length) {
    return (length + layout.chunkSize() - 1) / layout.chunkSize();
  }

  /**
   * Groups a file of {@code length} bytes has ({@link #group}): ec:K+M groups, the last one
   * counted however few data chunks it has; otherwise its data chunks.
   */
  public long groups(long length) {
    return (dataChunks(length) + k - 1) / k;
  }

  /** Data chunks per group: K for ec:K+M, else 1. */
  public int groupSize() {
    return k;
  }

  /**
   * The most data chunks a file can have: 2^24, or for ec:K+M as many as keep the data below
   * 2^23 and every group's M parity chunks in the 2^23 indexes above (min(2^23, K·⌊2^23/M⌋)).
   */
  public long maxDataChunks() {
    return m > 0 ? Math.min(PARITY_BASE, (long) k * (PARITY_BASE / m)) : CHUNK_INDEXES;
  }

  /** The longest file this layout can hold. */
  public long maxLength() {
    return maxDataChunks() * layout.chunkSize();
  }

  /**
   * Every chunk a file of {@code length} bytes holds on its targets, data chunks first in
   * order, then (mirror) the other copies, then (ec) the parity of each group, the last group
   * included however few data chunks it has.
   */
  public List<Placed> stored(long length) {
    return stored(length, Holes.NONE);
  }

  /** {@link #stored(long)} but for the members of the groups {@code holes} names (none). */
  public List<Placed> stored(long length, Holes holes) {
    long data = dataChunks(length);
    if (data > maxDataChunks()) {
      throw new IllegalArgumentException("length " + length + " is more than " + layout.across()
          + " with " + layout.chunkSize() + "-byte chunks holds (" + maxLength() + ")");
    }
    List<Placed> out = new ArrayList<>();
    for (long i = 0; i < data; i++) {
      if (!holes.contains(group(i))) {
        out.add(new Placed(position(i), (int) i));
      }
    }
    for (int c = 1; c < copies(); c++) {
      for (long i = 0; i < data; i++) {
        if (!holes.contains(group(i))) {
          out.add(new Placed(copyPosition(i, c), (int) i));
        }
      }
    }
    long groups = (data + k - 1) / k;
    for (long g = 0; g < groups && m > 0; g++) {
      if (holes.contains(g)) {
        continue;
      }
      for (int j = k; j < k + m; j++) {
        out.add(new Placed(memberPosition(g, j), memberIndex(g, j)));
      }
    }
    return out;
  }

  private void checkMember(int member) {
    if (member < 0 || member >= k + m) {
      throw new IllegalArgumentException("member " + member + " of a group of " + (k + m));
    }
  }
}
