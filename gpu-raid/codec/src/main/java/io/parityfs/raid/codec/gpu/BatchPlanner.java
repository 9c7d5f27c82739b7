package io.parityfs.raid.codec.gpu;

/**
 * Chunk sizes. Each stream owns one staging area of {@link #slotBytes()} bytes (device memory,
 * mirrored by pinned host memory): the coefficient matrix first ({@link #COEF_BYTES}), then the
 * chunk's input shards, then its output shards, each shard padded to whole 16-byte units
 * ({@code words = roundUp(len, 16) / 4}). A batch is cut into chunks that fit one staging area,
 * into at least as many chunks as there are streams when it has that many stripes, and into
 * chunks of about {@link #TARGET_CHUNK_BYTES} when it is larger, so that the copies of one chunk
 * overlap the kernel of another all along a big batch. Pure arithmetic; immutable.
 */
final class BatchPlanner {
  /** Room for the largest coefficient matrix, 64 x 64, at the start of each staging area. */
  static final int COEF_BYTES = 64 * 64;
  /** A staging area is one pinned {@code ByteBuffer}, so it stays well below 2 GiB. */
  static final long MAX_SLOT_BYTES = 1L << 30;
  /**
   * The chunk size aimed at in a large batch: big enough that a launch and two copies cost
   * little per byte (a 16 MiB copy is about 0.3 ms at PCIe 5 speed), small enough that a batch
   * has many chunks to overlap. To be tuned on the GPU.
   */
  static final long TARGET_CHUNK_BYTES = 16L << 20;

  private final int streams;
  private final long slotBytes;
  private final long memoryCap;

  BatchPlanner(GpuShare share) {
    this.streams = share.streams();
    this.memoryCap = share.memoryCap();
    this.slotBytes = Math.min(share.memoryCap() / share.streams(), MAX_SLOT_BYTES) & ~15L;
  }

  /** 32-bit words per shard of {@code len} bytes: roundUp(len, 16) / 4. */
  static long words(int len) {
    return paddedBytes(len) / 4;
  }

  /** A shard of {@code len} bytes padded to whole 16-byte units. */
  static long paddedBytes(int len) {
    return ((long) len + 15) & ~15L;
  }

  /** Bytes of one stream's staging area, coefficients included. */
  long slotBytes() {
    return slotBytes;
  }

  /** Bytes of one staging area available to shards. */
  long shardBytesPerSlot() {
    return slotBytes - COEF_BYTES;
  }

  /**
   * The most stripes of {@code shards} shards (inputs plus outputs) of {@code len} bytes one
   * chunk holds.
   *
   * @throws IllegalArgumentException when not even one stripe fits
   */
  int maxStripesPerChunk(int shards, int len, String stripe) {
    long perStripe = shards * paddedBytes(len);
    long fit = perStripe == 0 ? Integer.MAX_VALUE : shardBytesPerSlot() / perStripe;
    if (fit < 1) {
      throw new IllegalArgumentException(stripe + " needs " + perStripe
          + " bytes of device memory (" + shards + " shards of " + len + " bytes, padded to "
          + paddedBytes(len) + ") but each of the " + streams + " streams may stage "
          + shardBytesPerSlot() + " (GpuShare.memoryCap " + memoryCap
          + "): raise memoryCap or write smaller shards");
    }
    return (int) Math.min(fit, Integer.MAX_VALUE);
  }

  /**
   * Stripes per chunk for a batch of {@code batchStripes}: as many as fit, but no more than an
   * even split over the streams (so that every stream gets work) nor than about
   * {@link #TARGET_CHUNK_BYTES}; at least one.
   */
  int stripesPerChunk(int shards, int len, int batchStripes, String stripe) {
    int max = maxStripesPerChunk(shards, len, stripe);
    int even = (int) (((long) batchStripes + streams - 1) / streams);
    long perStripe = Math.max(1, shards * paddedBytes(len));
    long target = Math.max(1, TARGET_CHUNK_BYTES / perStripe);
    return (int) Math.max(1, Math.min(Math.min(max, even), target));
  }
}
