package io.parityfs.raid.array.object;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One batch of stripes of an {@link ObjectWriter}: per shard, one aligned buffer holding the
 * batch's cells of that shard back to back (a mirror has one buffer, every copy's), and, for
 * parity, the same cells as the per-stripe data and parity arrays {@code encodeBatch} takes. The
 * buffers come from the store's pool when they fit it. Not thread-safe: the writer's thread owns
 * a batch, the drive requests in {@link #done} only read it.
 */
final class StripeBatch {
  /** Per shard (one for a mirror), the batch's cells of that shard. */
  final ByteBuffer[] shards;
  /** Per stripe, its k data cells (null entries for a mirror). */
  final ByteBuffer[][] data;
  /** Per stripe, its m parity cells (null entries for a mirror). */
  final ByteBuffer[][] parity;
  /**
   * Per data shard (one for a mirror), the CRC32C of each of the batch's cells of that shard,
   * entry s for stripe s: set by the writer as it fills a cell, given to the shard's writer so
   * that the checksum stored is the one taken when the bytes arrived.
   */
  final int[][] crcs;
  /** The drive requests writing the batch; null when none is in flight. */
  CompletableFuture<?> done;

  private StripeBatch(ByteBuffer[] shards, ByteBuffer[][] data, ByteBuffer[][] parity,
      int[][] crcs) {
    this.shards = shards;
    this.data = data;
    this.parity = parity;
    this.crcs = crcs;
  }

  /**
   * A batch of {@code stripes} stripes of {@code width} shards ({@code k} of them data) of
   * {@code cellSize}-byte cells, its buffers aligned to {@code alignment}.
   */
  static StripeBatch allocate(BufferPool pool, int width, int k, boolean mirror, int stripes,
      int cellSize, int alignment) {
    int bytes = Math.multiplyExact(stripes, cellSize);
    int buffers = mirror ? 1 : width;
    ByteBuffer[] shards = new ByteBuffer[buffers];
    for (int i = 0; i < buffers; i++) {
      // Pooled: allocating (and zeroing) direct buffers per object costs more than the encode.
      shards[i] = alignment <= 4096 && pool.bufferBytes() == bytes
          ? pool.take()
          : ByteBuffer.allocateDirect(bytes + alignment).alignedSlice(alignment).limit(bytes)
              .slice();
    }
    ByteBuffer[][] data = new ByteBuffer[stripes][];
    ByteBuffer[][] parity = new ByteBuffer[stripes][];
    if (!mirror) {
      for (int s = 0; s < stripes; s++) {
        data[s] = new ByteBuffer[k];
        parity[s] = new ByteBuffer[width - k];
        for (int i = 0; i < width; i++) {
          ByteBuffer cell = shards[i].slice(s * cellSize, cellSize);
          if (i < k) {
            data[s][i] = cell;
          } else {
            parity[s][i - k] = cell;
          }
        }
      }
    }
    return new StripeBatch(shards, data, parity, new int[mirror ? 1 : k][stripes]);
  }

  /** Returns the buffers to {@code pool}; only once no drive request uses them. */
  void release(BufferPool pool) {
    for (ByteBuffer buf : shards) {
      pool.give(buf);
    }
  }
}
