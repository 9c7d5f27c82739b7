package io.parityfs.raid.codec.gpu;

/**
 * Grid sizes. Every kernel runs one thread per 32-bit word of work in a grid-stride loop, so the
 * grid only bounds how many blocks are in flight: {@code min(blocks the work needs,
 * fraction × SMs × resident blocks per SM)}, and at least one. Pure arithmetic; immutable.
 */
public final class LaunchPlanner {
  /** Used when the driver does not report resident blocks per SM (pre-CUDA 11). */
  private static final int FALLBACK_BLOCKS_PER_SM = 16;

  private final int threadsPerBlock;
  private final int residentBlocks;

  public LaunchPlanner(DeviceInfo device, int threadsPerBlock) {
    if (threadsPerBlock < 1 || threadsPerBlock > device.maxThreadsPerMultiprocessor()) {
      throw new IllegalArgumentException("threadsPerBlock (" + threadsPerBlock
          + ") must be in 1.." + device.maxThreadsPerMultiprocessor() + " on " + device.name());
    }
    int byThreads = device.maxThreadsPerMultiprocessor() / threadsPerBlock;
    int byLimit = device.maxBlocksPerMultiprocessor() > 0
        ? device.maxBlocksPerMultiprocessor() : FALLBACK_BLOCKS_PER_SM;
    this.threadsPerBlock = threadsPerBlock;
    this.residentBlocks = device.multiprocessors() * Math.max(1, Math.min(byThreads, byLimit));
  }

  int threadsPerBlock() {
    return threadsPerBlock;
  }

  /** Blocks the whole device holds at once at this block size. */
  public int residentBlocks() {
    return residentBlocks;
  }

  /** The most blocks in flight for a share, at least one. */
  public int maxBlocks(double fraction) {
    if (!(fraction > 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction (" + fraction + ") must be in (0, 1]");
    }
    return Math.max(1, (int) Math.floor(fraction * residentBlocks));
  }

  /** The grid for {@code threads} threads of work (one per word), at least one block. */
  int grid(long threads, double fraction) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads (" + threads + ") must be >= 1");
    }
    long needed = (threads + threadsPerBlock - 1) / threadsPerBlock;
    return (int) Math.min(needed, maxBlocks(fraction));
  }
}
