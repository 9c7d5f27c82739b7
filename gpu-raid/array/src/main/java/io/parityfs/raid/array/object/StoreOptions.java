package io.parityfs.raid.array.object;

/**
 * How an {@link ObjectStore} drives its I/O; not recorded on the drives, so it may change between
 * restarts.
 *
 * @param ioBytes bytes per shard per request of a large write or read (rounded down to whole
 *     cells, at least one cell): a write gathers {@code ioBytes / cellSize} stripes into one
 *     batch, encodes them in one codec call and writes each shard's cells in one request
 * @param batchesInFlight write batches of one writer in flight at once (encoding the next while
 *     the drives write the previous ones); a writer's memory is {@code batchesInFlight x width x
 *     ioBytes}
 * @param threadsPerDrive requests in flight per drive (threads per drive); drives run in parallel
 */
public record StoreOptions(int ioBytes, int batchesInFlight, int threadsPerDrive) {
  /** 1 MiB per shard request, 2 batches in flight, 4 threads per drive. */
  public static final StoreOptions DEFAULTS = new StoreOptions(1 << 20, 2, 4);

  public StoreOptions {
    if (ioBytes < 4096 || batchesInFlight < 1 || batchesInFlight > 16 || threadsPerDrive < 1
        || threadsPerDrive > 64) {
      throw new IllegalArgumentException("ioBytes (" + ioBytes + ") must be at least 4096,"
          + " batchesInFlight (" + batchesInFlight + ") in 1..16, threadsPerDrive ("
          + threadsPerDrive + ") in 1..64");
    }
  }

  /** Stripes per write batch for cells of {@code cellSize} bytes: at least 1. */
  int stripesPerBatch(int cellSize) {
    return Math.max(1, ioBytes / cellSize);
  }
}
