package io.parityfs.raid.codec.gpu;

import java.nio.ByteBuffer;

/**
 * One codec call seen by the {@link StripePipeline}: a batch of stripes, each with {@link #cols()}
 * input shards and {@link #rows()} output shards of {@link #length(int)} bytes, and which kernel
 * turns a chunk of them into its outputs. Consecutive stripes with the same length and the same
 * {@link #launchKey(int)} (by identity) may share a launch.
 *
 * <p>A job holds the caller's buffers for the duration of the call only. Not thread-safe; one
 * job belongs to one call.
 */
abstract class StripeJob {

  /** What the stripes are called in an error message, e.g. "a stripe of rs:10+4". */
  abstract String what();

  abstract int stripes();

  /** Input shards per stripe. */
  abstract int cols();

  /** Output shards per stripe. */
  abstract int rows();

  /** Bytes per shard of stripe {@code s}; 0 means the stripe needs no work. */
  abstract int length(int s);

  abstract ByteBuffer input(int s, int j);

  abstract ByteBuffer output(int s, int r);

  abstract CudaKernel kernel(int s);

  /** The coefficients the kernel reads for stripe {@code s}, or null when it reads none. */
  byte[] coefficients(int s) {
    return null;
  }

  /** Stripes whose keys are the same object may share a launch. */
  Object launchKey(int s) {
    return this;
  }

  /** Whether the outputs are read too (the delta kernel XORs into them). */
  boolean readsOutputs() {
    return false;
  }

  /**
   * Where input {@code j} of the chunk's stripe {@code s} goes in the staged input, in words, for
   * a chunk of {@code count} stripes: the kernels' layout {@code (s * cols + j) * words} unless a
   * kernel takes its inputs as separate arrays.
   */
  long inputWord(int s, int j, int count, long words) {
    return ((long) s * cols() + j) * words;
  }
}
