package io.parityfs.raid.codec.gpu.check;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct host blocks of one shard each, filled with pseudo-random bytes, laid out as the stripes
 * of a {@link ThroughputCase}: what the host-to-host figures and the tenant window feed the
 * codecs (direct buffers, as a storage node uses). Allocated once, in direct buffers of at most
 * {@value #BLOCKS_PER_BUFFER} blocks, and shared by every case. Not thread-safe.
 */
final class HostStripes {
  static final int BLOCKS_PER_BUFFER = 64;

  private final int shardBytes;
  private final List<ByteBuffer> buffers = new ArrayList<>();
  private final int blocks;

  /** {@code blocks} blocks of {@code shardBytes} bytes, pseudo-random from {@code seed}. */
  HostStripes(int blocks, int shardBytes, long seed) {
    this.shardBytes = shardBytes;
    this.blocks = blocks;
    long x = seed | 1;
    for (int left = blocks; left > 0; left -= BLOCKS_PER_BUFFER) {
      int n = Math.min(left, BLOCKS_PER_BUFFER);
      ByteBuffer b = ByteBuffer.allocateDirect(n * shardBytes);
      LongBuffer longs = b.duplicate().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
      for (int i = 0; i < longs.capacity(); i++) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        longs.put(i, x);
      }
      buffers.add(b);
    }
  }

  /** Blocks the largest of {@code cases} needs for {@code dataBytes} of data per batch. */
  static int blocksFor(List<ThroughputCase> cases, SelfCheckSizes sizes, long dataBytes) {
    int most = 0;
    for (ThroughputCase c : cases) {
      most = Math.max(most, sizes.stripesFor(dataBytes, c.geometry().k()) * c.blocksPerStripe());
    }
    return most;
  }

  int blocks() {
    return blocks;
  }

  /** Block i: a fresh buffer object of one shard (position 0). */
  ByteBuffer block(int i) {
    if (i < 0 || i >= blocks) {
      throw new IndexOutOfBoundsException("block " + i + " of " + blocks);
    }
    return buffers.get(i / BLOCKS_PER_BUFFER).slice((i % BLOCKS_PER_BUFFER) * shardBytes,
        shardBytes);
  }

  /** {@code stripes} stripes of an encode case: data shards. */
  ByteBuffer[][] data(ThroughputCase c, int stripes) {
    int k = c.geometry().k();
    ByteBuffer[][] d = new ByteBuffer[stripes][k];
    for (int s = 0; s < stripes; s++) {
      for (int j = 0; j < k; j++) {
        d[s][j] = block(s * c.blocksPerStripe() + j);
      }
    }
    return d;
  }

  /** {@code stripes} stripes of an encode case: parity shards. */
  ByteBuffer[][] parity(ThroughputCase c, int stripes) {
    int k = c.geometry().k();
    int m = c.geometry().m();
    ByteBuffer[][] p = new ByteBuffer[stripes][m];
    for (int s = 0; s < stripes; s++) {
      for (int r = 0; r < m; r++) {
        p[s][r] = block(s * c.blocksPerStripe() + k + r);
      }
    }
    return p;
  }

  /**
   * {@code stripes} stripes of a rebuild case: every shard but the lost ones survives; each lost
   * shard's entry is an output block of its own.
   */
  ByteBuffer[][] rebuild(ThroughputCase c, int stripes) {
    int n = c.geometry().shards();
    ByteBuffer[][] shards = new ByteBuffer[stripes][n];
    for (int s = 0; s < stripes; s++) {
      int base = s * c.blocksPerStripe();
      for (int i = 0; i < n; i++) {
        shards[s][i] = block(base + i);
      }
      for (int t = 0; t < c.lost().length; t++) {
        shards[s][c.lost()[t]] = block(base + n + t);
      }
    }
    return shards;
  }
}
