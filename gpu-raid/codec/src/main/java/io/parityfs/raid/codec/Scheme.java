package io.parityfs.raid.codec;

/** The parity schemes ParityFS protects shards with. All arithmetic is GF(2^8), poly 0x11d. */
public enum Scheme {
  /** RAID-5: one parity shard, P = D0 ^ D1 ^ ... (ISA-L {@code xor_gen}). */
  XOR("raid5"),
  /**
   * RAID-6: P = XOR of the data, Q = sum of g^j * Dj with g = 2: the Linux md RAID-6 syndromes
   * (ISA-L {@code pq_gen}).
   */
  PQ("raid6"),
  /**
   * Reed-Solomon k+m with ISA-L's Cauchy matrix ({@code gf_gen_cauchy1_matrix}): parity row i is
   * sum of inv((k+i) XOR j) * Dj. Also what Hadoop's {@code RSRawEncoder} computes.
   */
  RS_CAUCHY("rs");

  private final String label;

  Scheme(String label) {
    this.label = label;
  }

  /** The short name used in configuration and geometry strings ("raid5", "raid6", "rs"). */
  public String label() {
    return label;
  }
}
