package io.parityfs.raid.codec.gpu;

/**
 * One stream of the {@link StripePipeline} with its staging area: a device buffer and a pinned
 * host buffer of the same size and layout (coefficients, inputs, outputs), grown on demand up to
 * {@link BatchPlanner#slotBytes()} and then reused by every later call, and the chunk it has in
 * flight, if any. Guarded by the pipeline's lock.
 */
final class StreamSlot {
  final int index;
  final long stream;

  private PinnedBuffer pinned;
  private long device;
  private long capacity;
  /** The coefficient array last copied to this slot's device buffer (by identity). */
  byte[] residentCoefficients;

  /** The chunk queued on this stream and not yet drained, or null. */
  StripeJob job;
  int first;
  int count;
  int len;
  int outOffset;

  StreamSlot(int index, long stream) {
    this.index = index;
    this.stream = stream;
  }

  PinnedBuffer pinned() {
    return pinned;
  }

  long device() {
    return device;
  }

  long capacity() {
    return capacity;
  }

  /**
   * Makes the staging area at least {@code bytes} long, growing to the next power of two (at most
   * {@code limit}). Call only when nothing is in flight on this stream.
   */
  void ensure(CudaDriver driver, long bytes, long limit) {
    if (bytes <= capacity) {
      return;
    }
    long grown = Math.min(Math.max(bytes, Long.highestOneBit(bytes - 1) << 1), limit);
    release(driver);
    device = driver.allocDevice(grown);
    try {
      pinned = driver.allocPinned(Math.toIntExact(grown));
    } catch (RuntimeException e) {
      driver.freeDevice(device);
      device = 0;
      throw e;
    }
    capacity = grown;
  }

  boolean busy() {
    return job != null;
  }

  void clear() {
    job = null;
  }

  /** Frees the staging area (not the stream). */
  void release(CudaDriver driver) {
    residentCoefficients = null;
    if (capacity == 0) {
      return;
    }
    capacity = 0;
    try {
      driver.freeDevice(device);
    } finally {
      device = 0;
      PinnedBuffer p = pinned;
      pinned = null;
      driver.freePinned(p);
    }
  }
}
