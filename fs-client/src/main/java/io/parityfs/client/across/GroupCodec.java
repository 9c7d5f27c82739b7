package io.parityfs.client.across;

import io.parityfs.meta.Across;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The parity of one chunk group of an {@code ec:K+M} layout across nodes (docs/across-nodes.md
 * §3–4): Reed-Solomon K+M (the Cauchy matrix, ISA-L's {@code gf_gen_cauchy1_matrix}), computed
 * by the client's {@link ParityCodec} (the GPU codec when the client has one), over chunks of
 * unequal length.
 *
 * <p>A group's data chunks may be shorter than the chunk size (the file's last chunk) or absent
 * (past the end of the file): the code takes them as zero-padded to the group's length, the
 * longest data chunk's, which is the length of every parity chunk. So a parity chunk is never
 * longer than the group's data, and a reconstructed data chunk is cut back to the length the
 * file's committed length gives it.
 *
 * <p>Thread-safe (the codec is); each call allocates the padded copies it needs.
 */
public final class GroupCodec {
  private final Across across;
  private final ParityCodec codec;

  /**
   * @param codec a codec of geometry {@code rs:K+M} for {@code across}'s K and M
   * @throws IllegalArgumentException when {@code across} is not ec:K+M or the codec's geometry
   *     does not match it
   */
  public GroupCodec(Across across, ParityCodec codec) {
    this.across = Objects.requireNonNull(across, "across");
    this.codec = Objects.requireNonNull(codec, "codec");
    if (!across.isErasureCoded()) {
      throw new IllegalArgumentException(across + " has no parity to compute");
    }
    if (!codec.geometry().equals(geometry(across))) {
      throw new IllegalArgumentException("codec " + codec.geometry() + " does not compute "
          + across + " (needs " + geometry(across) + ")");
    }
  }

  /** The codec geometry of {@code across}: {@code rs:K+M}. */
  public static CodecGeometry geometry(Across across) {
    return CodecGeometry.reedSolomon(across.data(), across.parity());
  }

  public Across across() {
    return across;
  }

  /** The codec computing it ({@link ParityCodec#implementation()} says which). */
  public ParityCodec codec() {
    return codec;
  }

  /**
   * The M parity chunks of a group.
   *
   * @param data K entries: the group's data chunks (their remaining bytes; not consumed), null
   *     for one past the end of the file
   * @return M new buffers of the longest data chunk's length, ready to read
   */
  public ByteBuffer[] encode(ByteBuffer[] data) {
    int k = across.data();
    if (data.length != k) {
      throw new IllegalArgumentException(data.length + " data chunks for " + across);
    }
    int length = 0;
    for (ByteBuffer d : data) {
      length = Math.max(length, d == null ? 0 : d.remaining());
    }
    ByteBuffer[] padded = new ByteBuffer[k];
    for (int j = 0; j < k; j++) {
      padded[j] = padded(data[j], length);
    }
    ByteBuffer[] parity = new ByteBuffer[across.parity()];
    for (int p = 0; p < parity.length; p++) {
      parity[p] = ByteBuffer.allocate(length);
    }
    codec.encode(padded, parity);
    return parity;
  }

  /**
   * Restores one member of a group from K others.
   *
   * @param members K+M entries by member number (data 0..K−1, parity K..K+M−1): a member read
   *     from its target (its remaining bytes; not consumed), an empty buffer for a data chunk
   *     past the end of the file (known zeros: it counts as present), or null where a member is
   *     missing or not read; at least K others must be present, all of one group tag (the
   *     caller's check)
   * @param wanted the member to restore; its entry is ignored
   * @param length the bytes it has: for a data chunk what the file's length gives it, for a
   *     parity chunk the group's length (the longest member's); never more than that
   * @return a new buffer of {@code length} bytes, ready to read
   * @throws IllegalArgumentException with fewer than K others present, or a length longer than
   *     the group
   */
  public ByteBuffer reconstruct(ByteBuffer[] members, int wanted, int length) {
    int k = across.data();
    int n = across.width();
    if (members.length != n || wanted < 0 || wanted >= n) {
      throw new IllegalArgumentException(members.length + " members and member " + wanted
          + " for " + across);
    }
    int present = 0;
    int groupLength = 0; // a parity member has it; with none present, the longest data chunk
    for (int j = 0; j < n; j++) {
      if (j != wanted && members[j] != null) {
        present++;
        groupLength = Math.max(groupLength, members[j].remaining());
      }
    }
    if (present < k) {
      throw new IllegalArgumentException("member " + wanted + " of an " + across + " group needs"
          + " " + k + " others; " + present + " present");
    }
    if (length < 0 || length > groupLength) {
      throw new IllegalArgumentException("member " + wanted + " cannot hold " + length
          + " bytes in a group of " + groupLength);
    }
    ByteBuffer[] shards = new ByteBuffer[n];
    int used = 0;
    for (int j = 0; j < n && used < k; j++) {
      if (j != wanted && members[j] != null) {
        shards[j] = padded(members[j], groupLength);
        used++;
      }
    }
    shards[wanted] = ByteBuffer.allocate(groupLength);
    codec.reconstruct(shards, new int[] {wanted});
    ByteBuffer out = shards[wanted];
    out.limit(length);
    return out;
  }

  /** {@code b}'s remaining bytes, zero-padded to {@code length}; all zeros for null. */
  private static ByteBuffer padded(ByteBuffer b, int length) {
    ByteBuffer out = ByteBuffer.allocate(length);
    if (b != null) {
      out.put(b.duplicate());
      out.clear();
    }
    return out;
  }
}
