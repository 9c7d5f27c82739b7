package io.parityfs.raid.codec.gpu;

import java.util.Locale;
import java.util.Objects;

/**
 * How much of the GPU the parity codec may occupy, so that the tenant's training or inference
 * on the same GPU loses little. Immutable; build with {@link #builder()} or start from
 * {@link #DEFAULT}.
 *
 * <ul>
 *   <li>{@link #fraction()}: the most thread blocks one launch keeps in flight, as a fraction of
 *       what the device can hold resident (SMs × resident blocks per SM at
 *       {@link #threadsPerBlock()} threads). The kernels loop over their work (grid-stride), so a
 *       smaller grid means fewer SMs busy for longer, never a wrong result. Default 0.25.
 *   <li>{@link #burstFraction()}: the same, while burst is on ({@link GpuParityCodec#setBurst}),
 *       e.g. during a rebuild that should finish fast. At least {@link #fraction()}. Default 1.0.
 *   <li>{@link #memoryCap()}: the most device memory the codec's staging buffers use, split
 *       evenly between the streams; page-locked host memory of the same size mirrors it. A stripe
 *       that does not fit one stream's part is rejected. Default 1 GiB.
 *   <li>{@link #streams()}: how many streams overlap copies of one chunk with the kernel of
 *       another (at least 2). Default 2.
 *   <li>{@link #threadsPerBlock()}: the block size of every launch. Default 256.
 *   <li>{@link #stagingThreads()}: host threads that copy shards into and out of the pinned
 *       staging buffers. One thread's memcpy is far below a PCIe Gen5 link, so host-to-host
 *       throughput needs several. Default: a quarter of the cores, 1 to 8.
 * </ul>
 *
 * <p>Not a knob: the codec's streams always run at the device's lowest stream priority, so the
 * block scheduler prefers the tenant's kernels (where they share a context with ours, or under
 * MPS) whenever both have work queued.
 */
public final class GpuShare {
  /** The smallest {@link #memoryCap()} accepted: 64 KiB. */
  public static final long MIN_MEMORY_CAP = 64 * 1024;
  /** The most streams accepted. */
  public static final int MAX_STREAMS = 16;

  /** A quarter of the GPU normally, all of it in burst, 1 GiB of device memory, two streams. */
  public static final GpuShare DEFAULT = builder().build();

  private final double fraction;
  private final double burstFraction;
  private final long memoryCap;
  private final int streams;
  private final int threadsPerBlock;
  private final int stagingThreads;

  private GpuShare(Builder b) {
    this.fraction = b.fraction;
    this.burstFraction = b.burstFraction;
    this.memoryCap = b.memoryCap;
    this.streams = b.streams;
    this.threadsPerBlock = b.threadsPerBlock;
    this.stagingThreads = b.stagingThreads;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.fraction = fraction;
    b.burstFraction = burstFraction;
    b.memoryCap = memoryCap;
    b.streams = streams;
    b.threadsPerBlock = threadsPerBlock;
    b.stagingThreads = stagingThreads;
    return b;
  }

  /** Blocks in flight, as a fraction of the device's resident blocks, normally. */
  public double fraction() {
    return fraction;
  }

  /** Blocks in flight, as a fraction of the device's resident blocks, in burst. */
  public double burstFraction() {
    return burstFraction;
  }

  /** Device memory for staging, in bytes, all streams together. */
  public long memoryCap() {
    return memoryCap;
  }

  public int streams() {
    return streams;
  }

  public int threadsPerBlock() {
    return threadsPerBlock;
  }

  /** Host threads copying shards to and from the pinned staging buffers (1 = the caller only). */
  public int stagingThreads() {
    return stagingThreads;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GpuShare s
        && s.fraction == fraction && s.burstFraction == burstFraction
        && s.memoryCap == memoryCap && s.streams == streams
        && s.threadsPerBlock == threadsPerBlock && s.stagingThreads == stagingThreads;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        fraction, burstFraction, memoryCap, streams, threadsPerBlock, stagingThreads);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "GpuShare[fraction=%s, burstFraction=%s, memoryCap=%d, streams=%d, threadsPerBlock=%d,"
            + " stagingThreads=%d]",
        fraction, burstFraction, memoryCap, streams, threadsPerBlock, stagingThreads);
  }

  /** Builds a {@link GpuShare}; each setter checks its value at once. */
  public static final class Builder {
    private double fraction = 0.25;
    private double burstFraction = 1.0;
    private long memoryCap = 1L << 30;
    private int streams = 2;
    private int threadsPerBlock = 256;
    private int stagingThreads =
        Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() / 4));

    private Builder() {}

    /** Normal share of resident blocks, in (0, 1]. */
    public Builder fraction(double fraction) {
      this.fraction = requireFraction("fraction", fraction);
      return this;
    }

    /** Burst share of resident blocks, in (0, 1]; checked against {@code fraction} at build. */
    public Builder burstFraction(double burstFraction) {
      this.burstFraction = requireFraction("burstFraction", burstFraction);
      return this;
    }

    /** Device memory for staging, at least {@link #MIN_MEMORY_CAP}. */
    public Builder memoryCap(long bytes) {
      if (bytes < MIN_MEMORY_CAP) {
        throw new IllegalArgumentException(
            "memoryCap (" + bytes + ") must be at least " + MIN_MEMORY_CAP + " bytes");
      }
      this.memoryCap = bytes;
      return this;
    }

    /** Streams to pipeline over, 2..{@link #MAX_STREAMS}. */
    public Builder streams(int streams) {
      if (streams < 2 || streams > MAX_STREAMS) {
        throw new IllegalArgumentException(
            "streams (" + streams + ") must be in 2.." + MAX_STREAMS);
      }
      this.streams = streams;
      return this;
    }

    /** Threads per block: a multiple of 32 in 32..1024. */
    public Builder threadsPerBlock(int threads) {
      if (threads < 32 || threads > 1024 || threads % 32 != 0) {
        throw new IllegalArgumentException(
            "threadsPerBlock (" + threads + ") must be a multiple of 32 in 32..1024");
      }
      this.threadsPerBlock = threads;
      return this;
    }

    /** Host threads for the staging copies, 1..64. */
    public Builder stagingThreads(int threads) {
      if (threads < 1 || threads > 64) {
        throw new IllegalArgumentException("stagingThreads (" + threads + ") must be in 1..64");
      }
      this.stagingThreads = threads;
      return this;
    }

    /**
     * @throws IllegalArgumentException when {@code burstFraction} is below {@code fraction}
     */
    public GpuShare build() {
      if (burstFraction < fraction) {
        throw new IllegalArgumentException(
            "burstFraction (" + burstFraction + ") must be at least fraction (" + fraction + ")");
      }
      return new GpuShare(this);
    }

    private static double requireFraction(String what, double v) {
      if (!(v > 0 && v <= 1)) {
        throw new IllegalArgumentException(what + " (" + v + ") must be in (0, 1]");
      }
      return v;
    }
  }
}
