package io.parityfs.raid.bench;

import java.nio.ByteBuffer;

/**
 * One case's view of a {@link BlockPool}: {@code stripes} stripes of 1 MiB shards laid out one
 * after another, plus {@code m + 2} spare blocks after them for the correctness checks. Each side
 * gets the same layout over its own copy of the pool: ParityFS the direct blocks ({@code data},
 * {@code parity}, ...), Hadoop the heap mirror ({@code hadoopData}, {@code hadoopParity}, ...),
 * which holds the same bytes once {@link #copyToHeap} has run. For a rebuild case it also holds,
 * per stripe, the arrays each coder is called with, so that the timed loops allocate nothing:
 *
 * <ul>
 *   <li>{@code shards[s]}: ParityFS's k+m shard array, with shards 0 and 1 replaced by the two
 *       output blocks {@code outputs[s]} and every survivor present;
 *   <li>{@code hadoopInputs[s]}: Hadoop's k+m input array with exactly k non-null entries
 *       (shards 2..k+1; Hadoop wants exactly k), and {@code hadoopOutputs[s]} its two output
 *       blocks.
 * </ul>
 */
final class StripeSet {
  final int stripes;
  final ByteBuffer[][] data;
  final ByteBuffer[][] parity;
  final ByteBuffer[][] shards;
  final ByteBuffer[][] outputs;
  final ByteBuffer[][] hadoopData;
  final ByteBuffer[][] hadoopParity;
  final ByteBuffer[][] hadoopInputs;
  final ByteBuffer[][] hadoopOutputs;
  private final BlockPool pool;
  private final int spareBase;

  StripeSet(BlockPool pool, BenchCase c, int stripes) {
    int k = c.k();
    int m = c.m();
    int width = c.blocksPerStripe();
    if ((long) stripes * width + spares(c) > pool.size()) {
      throw new IllegalArgumentException(
          c.id() + " needs " + ((long) stripes * width + spares(c)) + " blocks, the pool has "
              + pool.size());
    }
    this.pool = pool;
    this.stripes = stripes;
    this.spareBase = stripes * width;
    data = new ByteBuffer[stripes][k];
    parity = new ByteBuffer[stripes][m];
    hadoopData = new ByteBuffer[stripes][k];
    hadoopParity = new ByteBuffer[stripes][m];
    shards = c.decode2() ? new ByteBuffer[stripes][] : null;
    outputs = c.decode2() ? new ByteBuffer[stripes][] : null;
    hadoopInputs = c.decode2() ? new ByteBuffer[stripes][] : null;
    hadoopOutputs = c.decode2() ? new ByteBuffer[stripes][] : null;
    for (int s = 0; s < stripes; s++) {
      int base = s * width;
      for (int i = 0; i < k; i++) {
        data[s][i] = pool.block(base + i);
        hadoopData[s][i] = pool.heapBlock(base + i);
      }
      for (int i = 0; i < m; i++) {
        parity[s][i] = pool.block(base + k + i);
        hadoopParity[s][i] = pool.heapBlock(base + k + i);
      }
      if (c.decode2()) {
        int out = base + k + m;
        outputs[s] = new ByteBuffer[] {pool.block(out), pool.block(out + 1)};
        hadoopOutputs[s] = new ByteBuffer[] {pool.heapBlock(out), pool.heapBlock(out + 1)};
        shards[s] = new ByteBuffer[k + m];
        hadoopInputs[s] = new ByteBuffer[k + m];
        for (int i = 0; i < k + m; i++) {
          shards[s][i] = pool.block(base + i);
          if (i >= BenchCase.LOST.length && i < k + BenchCase.LOST.length) {
            hadoopInputs[s][i] = pool.heapBlock(base + i);
          }
        }
        for (int j = 0; j < BenchCase.LOST.length; j++) {
          shards[s][BenchCase.LOST[j]] = outputs[s][j];
        }
      }
    }
  }

  /** Spare blocks a case needs beyond its stripes. */
  static int spares(BenchCase c) {
    return c.m() + BenchCase.LOST.length;
  }

  /**
   * Copies every stripe block (data, parity and rebuild outputs, not the spares) into the heap
   * mirror, so that Hadoop sees the bytes ParityFS has: call it after ParityFS has encoded the set.
   */
  void copyToHeap() {
    pool.copyToHeap(0, spareBase);
  }

  /** Direct spare block {@code i} (0 .. m+1), never part of a stripe. */
  ByteBuffer spare(int i) {
    return pool.block(spareBase + i);
  }

  /** Heap spare block {@code i} (0 .. m+1), for Hadoop's outputs in the correctness check. */
  ByteBuffer hadoopSpare(int i) {
    return pool.heapBlock(spareBase + i);
  }

  /** Data bytes per stripe: k MiB. */
  long dataBytesPerStripe() {
    return (long) data[0].length * BlockPool.BLOCK;
  }
}
