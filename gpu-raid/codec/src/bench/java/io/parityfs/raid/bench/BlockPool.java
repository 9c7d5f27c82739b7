package io.parityfs.raid.bench;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.SplittableRandom;

/**
 * A fixed number of 1 MiB blocks, allocated once, that every case lays its stripes over, in two
 * copies: direct buffers filled with random bytes, which ParityFS runs on (as the storage node
 * does), and a heap mirror, which Hadoop runs on (its heap-array path is its faster one). Block
 * {@code i} of the mirror is a copy of direct block {@code i} only once {@link #copyToHeap} has
 * run for it; until then it is zero.
 *
 * <p>Direct blocks are 4 KiB-aligned slices of 64 MiB chunks, so vector loads never straddle a
 * cache line because of the allocator. Heap blocks are slices of 64 MiB {@code byte[]} chunks
 * ({@code arrayOffset} a multiple of 1 MiB, which Hadoop honours): a lone 1 MiB array would be a
 * G1 humongous object filling a whole 2 MiB region, doubling the mirror's footprint. Every
 * block has position 0 and limit 1 MiB.
 */
final class BlockPool {
  /** Bytes per block (one shard of one stripe). */
  static final int BLOCK = 1 << 20;

  private static final int BLOCKS_PER_CHUNK = 64;
  private static final int PAGE = 4096;

  private final ByteBuffer[] blocks;
  private final ByteBuffer[] heap;

  BlockPool(int count, long seed) {
    blocks = new ByteBuffer[count];
    heap = new ByteBuffer[count];
    SplittableRandom random = new SplittableRandom(seed);
    long[] words = new long[BLOCK / Long.BYTES];
    for (int first = 0; first < count; first += BLOCKS_PER_CHUNK) {
      int n = Math.min(BLOCKS_PER_CHUNK, count - first);
      ByteBuffer chunk = ByteBuffer.allocateDirect(n * BLOCK + PAGE).alignedSlice(PAGE);
      byte[] heapChunk = new byte[n * BLOCK];
      for (int i = 0; i < n; i++) {
        ByteBuffer b = chunk.slice(i * BLOCK, BLOCK);
        for (int w = 0; w < words.length; w++) {
          words[w] = random.nextLong();
        }
        LongBuffer view = b.asLongBuffer();
        view.put(words);
        blocks[first + i] = b;
        heap[first + i] = ByteBuffer.wrap(heapChunk, i * BLOCK, BLOCK).slice();
      }
    }
  }

  int size() {
    return blocks.length;
  }

  /** Direct block {@code i}, for ParityFS. */
  ByteBuffer block(int i) {
    return blocks[i];
  }

  /** Heap block {@code i}, for Hadoop: a copy of {@link #block} after {@link #copyToHeap}. */
  ByteBuffer heapBlock(int i) {
    return heap[i];
  }

  /** Copies direct blocks {@code first .. first+count-1} into the heap mirror. */
  void copyToHeap(int first, int count) {
    for (int i = first; i < first + count; i++) {
      heap[i].put(0, blocks[i], 0, BLOCK);
    }
  }
}
