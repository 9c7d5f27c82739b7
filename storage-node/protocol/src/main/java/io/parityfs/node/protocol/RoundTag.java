package io.parityfs.node.protocol;

/**
 * The group tag of an ec member (docs/across-nodes.md §3): the writer generation, the round that
 * stored it, and how many of its group's data chunks that round holds. Every member one round
 * stores carries the same tag, so a reader combines only members of one tag.
 *
 * <p>On the wire (the sequence u64 of a WRITE, and of a 48-byte {@link ChunkStat}) the round and
 * count are one number, {@link #sequence()}:
 *
 * <pre>
 *   63            5 4     0
 *  +---------------+-------+
 *  |     round     | count |      e.g. round 3, count 2: 3 &lt;&lt; 5 | 2 = 98
 *  +---------------+-------+
 * </pre>
 *
 * Count 0 marks a copy ({@link #isCopy()}). A mirror chunk's sequence is a plain counter, not a
 * round and a count: order those by {@link #sequence()}, not by {@link #newerThan}.
 *
 * @param generation the writer generation, &gt;= 0
 * @param round the round, in [0, 2^58)
 * @param count data chunks of the group the round holds, in [0, 31]; 0: a copy
 */
public record RoundTag(long generation, long round, int count) {
  /** Bits of the sequence that hold the count. */
  public static final int COUNT_BITS = 5;
  /** The largest round whose sequence stays a non-negative long. */
  public static final long MAX_ROUND = Long.MAX_VALUE >>> COUNT_BITS;

  public RoundTag {
    if (generation < 0) {
      throw new IllegalArgumentException("generation (" + generation + ") must be >= 0");
    }
    if (round < 0 || round > MAX_ROUND) {
      throw new IllegalArgumentException("round (" + round + ") must be in [0, 2^58)");
    }
    if (count < 0 || count >= 1 << COUNT_BITS) {
      throw new IllegalArgumentException("count (" + count + ") must be in [0, 31]");
    }
  }

  /** The tag whose wire sequence is {@code sequence} (&gt;= 0), of writer {@code generation}. */
  public static RoundTag of(long generation, long sequence) {
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence (" + sequence + ") must be >= 0");
    }
    return new RoundTag(generation, sequence >>> COUNT_BITS,
        (int) (sequence & ((1 << COUNT_BITS) - 1)));
  }

  /**
   * The tag of a copy stored as part of {@code round}: count 0, which no decode takes (a data
   * chunk's bytes under its own chunk id on one of its group's parity targets, written at hflush
   * of a partial group; docs/across-nodes.md §3).
   */
  public static RoundTag copy(long generation, long round) {
    return new RoundTag(generation, round, 0);
  }

  /** {@code round << 5 | count}: the u64 the wire carries. */
  public long sequence() {
    return round << COUNT_BITS | count;
  }

  /** Whether this tags a copy of a data chunk (count 0), not a member of a round. */
  public boolean isCopy() {
    return count == 0;
  }

  /**
   * Whether this tag is of a later round than {@code other}: a later generation, or the same
   * generation and a later round; the count takes no part. Every tag is newer than null.
   */
  public boolean newerThan(RoundTag other) {
    if (other == null) {
      return true;
    }
    return generation != other.generation ? generation > other.generation : round > other.round;
  }

  /** {@code (generation, round/count)}. */
  @Override
  public String toString() {
    return "(" + generation + ", " + round + "/" + count + ")";
  }
}
