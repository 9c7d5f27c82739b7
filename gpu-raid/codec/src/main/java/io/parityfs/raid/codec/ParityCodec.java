package io.parityfs.raid.codec;

import java.nio.ByteBuffer;

/**
 * Computes and restores the parity of one stripe of shards: {@code k} data shards and {@code m}
 * parity shards of equal length, as defined by {@link #geometry()}.
 *
 * <h2>The shard contract</h2>
 * <ul>
 *   <li>A shard is the bytes between a buffer's {@code position()} and {@code limit()}. Heap and
 *       direct buffers may be mixed; any length works (zero included). Every shard of one call
 *       has the same length, or the call fails.
 *   <li>Codecs read and write through absolute indexes: they never move a buffer's position,
 *       limit or mark, and never keep a reference to a buffer after the call returns.
 *   <li>Output shards must be writable and must not be one of the call's input buffers.
 *   <li>Bad input (wrong counts, unequal lengths, too many erasures, read-only outputs) throws
 *       {@link IllegalArgumentException} naming the bad value before any byte is written;
 *       a codec never returns silently wrong parity.
 * </ul>
 *
 * <h2>Batches</h2>
 * {@link #encodeBatch} and {@link #reconstructBatch} take many stripes in one call, each exactly
 * as the single-stripe call would take it. A backend with a high fixed cost per call (the GPU
 * codec: a kernel launch and two copies) runs many stripes per launch; the default methods here
 * loop over the single-stripe calls. The stripes of one batch are independent: their lengths
 * may differ, and no output buffer of one stripe may be a buffer of another stripe.
 *
 * <h2>Thread safety and allocation</h2>
 * Codecs are thread-safe: any number of threads may call one codec at once on different
 * buffers. Steady-state single-stripe calls of the CPU codec allocate nothing on the heap (a
 * batch call allocates bookkeeping in proportion to its stripes; the GPU codec a few small
 * objects per call, never buffers); reconstruction plans are computed once per erasure pattern
 * and cached.
 */
public interface ParityCodec {

  /** The scheme and the shard counts this codec works on. */
  CodecGeometry geometry();

  /** A short description of the implementation, e.g. "cpu-vector(512-bit)" or "cpu-scalar". */
  String implementation();

  /**
   * Computes the parity of {@code data}.
   *
   * @param data exactly k data shards, all the same length; read only
   * @param parity exactly m output shards of that length; overwritten
   */
  void encode(ByteBuffer[] data, ByteBuffer[] parity);

  /**
   * Restores lost shards (data or parity) from any k survivors.
   *
   * @param shards k+m entries indexed by shard number. An entry listed in {@code targets} is an
   *     output buffer to fill; any other non-null entry is a surviving shard (read only); a
   *     {@code null} entry is a shard that is unavailable and not wanted.
   * @param targets the shard numbers to restore, distinct, in any order (may be empty)
   * @throws IllegalArgumentException if more than m shards are missing (targets plus nulls), or
   *     the shards are otherwise malformed
   */
  void reconstruct(ByteBuffer[] shards, int[] targets);

  /**
   * Updates parity in place after data shard {@code dataIndex} changed from {@code oldData} to
   * {@code newData} (a partial-stripe write), without reading the other data shards. The result
   * equals a full re-encode of the stripe with the new data. The byte ranges may be any sub-range
   * of the shards as long as the old data, new data and every parity buffer cover the same
   * offsets.
   *
   * @param dataIndex which data shard changed, {@code 0..k-1}
   * @param oldData its previous bytes
   * @param newData its new bytes, same length
   * @param parity the m parity shards (same range), read and overwritten
   */
  void updateParity(int dataIndex, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity);

  /**
   * Encodes many stripes: stripe {@code i} is {@code data[i]} (k shards) with its parity
   * {@code parity[i]} (m shards), as {@link #encode} takes them. The result equals encoding the
   * stripes one by one.
   *
   * <p>This default encodes the stripes in order and therefore validates each stripe only when it
   * reaches it; {@link AbstractParityCodec} validates every stripe before writing any byte.
   *
   * @param data one array of k data shards per stripe
   * @param parity one array of m parity shards per stripe, as many as {@code data}
   * @throws IllegalArgumentException for a malformed stripe (the message names it) or when the
   *     two arrays differ in length
   */
  default void encodeBatch(ByteBuffer[][] data, ByteBuffer[][] parity) {
    if (data == null || parity == null) {
      throw new IllegalArgumentException("data and parity batches must not be null");
    }
    if (data.length != parity.length) {
      throw new IllegalArgumentException(
          "data has " + data.length + " stripes but parity has " + parity.length);
    }
    for (int i = 0; i < data.length; i++) {
      encode(data[i], parity[i]);
    }
  }

  /**
   * Restores the same shard numbers in many stripes: stripe {@code i} is {@code shards[i]}, as
   * {@link #reconstruct} takes it. Which shards survive may differ from stripe to stripe. The
   * result equals reconstructing the stripes one by one.
   *
   * <p>This default reconstructs the stripes in order and validates each one only when it
   * reaches it; {@link AbstractParityCodec} validates every stripe before writing any byte.
   *
   * @param shards one array of k+m entries per stripe
   * @param targets the shard numbers to restore in every stripe
   * @throws IllegalArgumentException for a malformed stripe (the message names it)
   */
  default void reconstructBatch(ByteBuffer[][] shards, int[] targets) {
    if (shards == null) {
      throw new IllegalArgumentException("shards batch must not be null");
    }
    for (ByteBuffer[] stripe : shards) {
      reconstruct(stripe, targets);
    }
  }
}
