package io.parityfs.raid.array.format;

import io.parityfs.raid.codec.CodecGeometry;

/**
 * Which drive slots hold an object's shards: {@code width} distinct slots out of {@code
 * dataSlots}, listed in shard order (for a code, shards {@code 0..k-1} are data and {@code
 * k..k+m-1} parity; for a mirror, copy 0, 1, ...).
 *
 * <h2>How</h2>
 *
 * Rendezvous (highest-random-weight) hashing. Every slot {@code s} gets a pseudo-random weight
 * {@code weight(id, s)}; the object lives on the {@code width} slots with the highest weights,
 * and the heaviest holds shard 0, the next shard 1, and so on. The weight is output number
 * {@code s + 1} of a SplitMix64 generator seeded with {@code fmix64(id)} (MurmurHash3's 64-bit
 * finalizer):
 *
 * <pre>
 *   seed          = fmix64(id)
 *   z             = seed + (s + 1) * 0x9E3779B97F4A7C15
 *   weight(id, s) = splitmix64Mix(z) &gt;&gt;&gt; 39                        (top 25 bits)
 *   key           = weight &lt;&lt; 6 | s                                  (one non-negative int)
 * </pre>
 *
 * Keys are compared as ints, so two slots whose 25-bit weights tie are ordered by slot number
 * (higher first). At 64 slots a tie anywhere happens to about one object in 16,000 and changes
 * nothing measurable; in exchange the selection runs in the caller's {@code int[]} with no
 * allocation.
 *
 * <p>Because the weights of one object are independent and identically distributed, every
 * {@code width}-subset of slots is equally likely and so is every order of it, which gives, over
 * many objects: (a) each slot holds {@code width/dataSlots} of all shards; (b) each slot holds
 * each shard index equally often, so parity (the last {@code m} indexes) is spread evenly, also
 * when {@code dataSlots == width} and every object uses every drive; (c) the objects that share a
 * failed slot have their other shards on uniformly chosen other slots, so a rebuild reads from all
 * surviving drives at once (declustering).
 *
 * <h2>Why HRW</h2>
 *
 * <ul>
 *   <li>No table: the placement is a pure function of {@code (id, dataSlots)}, so there is nothing
 *       to store, persist, version or repair, and every node and tool computes the same answer.
 *   <li>Cost: {@code dataSlots} mixes (about ten multiply/xor/shift each) and a partial insertion
 *       sort per object, O(N) with N &lt;= 64: well under a microsecond, noise next to the I/O of
 *       one chunk. A table (CRUSH-like buckets, precomputed permutations) would save little and
 *       add state.
 *   <li>Minimal disruption: a slot's weight does not depend on the other slots, so the
 *       slot numbering is all that matters. A failed drive replaced into the same slot keeps every
 *       placement: a replacement never moves an object, it only refills that slot. Growing the
 *       array from N to N+1 slots changes the drive set of only the objects where the new slot
 *       wins (about {@code width/(N+1)} of them), each by exactly one slot; within those objects
 *       the shard indexes after the new slot's rank shift by one, so growth is a re-layout pass of
 *       that fraction, not of everything.
 * </ul>
 *
 * <p><b>This function is part of the on-disk format</b>: shards are found by recomputing it.
 * Changing the mixer, its constants, the 25-bit truncation or the tie rule relocates every
 * shard; {@code PlacementTest} pins known answers.
 *
 * <p>Immutable and thread-safe.
 */
public final class DrivePlacement {
  /** Most drive slots an array can have (one bit each in a {@code long} mask). */
  public static final int MAX_SLOTS = CodecGeometry.MAX_SHARDS;

  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private final int dataSlots;
  private final int width;

  private DrivePlacement(int dataSlots, int width) {
    if (width < 1) {
      throw new IllegalArgumentException("width (" + width + ") must be >= 1");
    }
    if (dataSlots > MAX_SLOTS) {
      throw new IllegalArgumentException(
          "dataSlots (" + dataSlots + ") must be <= " + MAX_SLOTS);
    }
    if (dataSlots < width) {
      throw new IllegalArgumentException(
          "dataSlots (" + dataSlots + ") must be >= width (" + width
              + "): each shard needs its own drive");
    }
    this.dataSlots = dataSlots;
    this.width = width;
  }

  /**
   * A placement of {@code width} shards (k + m, or the mirror copy count) over {@code dataSlots}
   * drive slots, spares excluded.
   *
   * @throws IllegalArgumentException naming the values when {@code dataSlots < width}, {@code
   *     width < 1} or {@code dataSlots > 64}
   */
  public static DrivePlacement of(int dataSlots, int width) {
    return new DrivePlacement(dataSlots, width);
  }

  /** A placement of the {@code k + m} shards of {@code geometry} over {@code dataSlots} slots. */
  public static DrivePlacement of(int dataSlots, CodecGeometry geometry) {
    return new DrivePlacement(dataSlots, geometry.shards());
  }

  /** N: the number of data slots (spares excluded) the shards are spread over. */
  public int dataSlots() {
    return dataSlots;
  }

  /** Shards per object: k + m, or the mirror copy count. */
  public int width() {
    return width;
  }

  /** The slots of {@code objectId}'s shards in shard order; a new array of {@link #width()}. */
  public int[] drivesFor(long objectId) {
    int[] out = new int[width];
    drivesFor(objectId, out);
    return out;
  }

  /**
   * Writes the slots of {@code objectId}'s shards, in shard order, to {@code out[0..width)}.
   * Allocates nothing.
   *
   * @throws IllegalArgumentException when {@code out} is shorter than {@link #width()}
   */
  public void drivesFor(long objectId, int[] out) {
    if (out.length < width) {
      throw new IllegalArgumentException(
          "out.length (" + out.length + ") must be >= width (" + width + ")");
    }
    long seed = fmix64(objectId);
    int filled = 0;
    for (int s = 0; s < dataSlots; s++) {
      int key = key(seed, s);
      if (filled < width) {
        filled++;
      } else if (key < out[width - 1]) {
        continue;
      }
      // Insert into out[0..filled), kept in descending key order; when full, the lightest
      // (out[width-1]) is overwritten.
      int j = filled - 1;
      while (j > 0 && out[j - 1] < key) {
        out[j] = out[j - 1];
        j--;
      }
      out[j] = key;
    }
    for (int i = 0; i < width; i++) {
      out[i] &= MAX_SLOTS - 1;
    }
  }

  /** The drive set of {@code objectId} as a mask, bit {@code s} for slot {@code s}. */
  public long placementMask(long objectId) {
    return mask(drivesFor(objectId));
  }

  /** The mask of the slots in {@code slots}, bit {@code s} for slot {@code s}. */
  public static long mask(int[] slots) {
    long m = 0;
    for (int s : slots) {
      m |= 1L << s;
    }
    return m;
  }

  private static int key(long seed, int slot) {
    long z = seed + (slot + 1) * GOLDEN_GAMMA;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    return (int) (z >>> 39) << 6 | slot;
  }

  /** MurmurHash3's 64-bit finalizer. */
  private static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xFF51AFD7ED558CCDL;
    k ^= k >>> 33;
    k *= 0xC4CEB9FE1A85EC53L;
    k ^= k >>> 33;
    return k;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DrivePlacement p && p.dataSlots == dataSlots && p.width == width;
  }

  @Override
  public int hashCode() {
    return dataSlots * 65 + width;
  }

  @Override
  public String toString() {
    return "DrivePlacement[" + width + " of " + dataSlots + " slots]";
  }
}
