package io.parityfs.raid.codec.gpu;

import io.parityfs.raid.codec.AbstractParityCodec;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ReconstructionPlan;
import io.parityfs.raid.codec.ReconstructionPlanCache;
import io.parityfs.raid.gf.GfMatrix;
import java.nio.ByteBuffer;

/**
 * The {@link io.parityfs.raid.codec.ParityCodec} on a CUDA GPU, through JCuda: the same contract
 * and the same bytes as the CPU codec, computed by the kernels of {@code parity_kernels.cu}.
 *
 * <p>What runs where: RAID-5 encodes with {@code pfs_xor}, RAID-6 with {@code pfs_pq},
 * Reed-Solomon with {@code pfs_gf_apply} and the Cauchy parity matrix; every reconstruction is
 * {@code pfs_gf_apply} with the matrix of a cached {@link ReconstructionPlan} (staging only the k
 * survivors the plan reads), or {@code pfs_xor} when that matrix is one row of ones;
 * {@link #updateParity} is {@code pfs_delta}. Coefficient matrices live in device memory.
 *
 * <p>Batches: {@link #encodeBatch} and {@link #reconstructBatch} put many stripes into one launch
 * and pipeline chunks of a large batch over {@link GpuShare#streams()} low-priority streams (see
 * {@code StripePipeline}); a single-stripe call is a batch of one, which pays a launch and two
 * copies and is slower than the CPU for small stripes. {@link #encodeOnDevice} and
 * {@link #reconstructOnDevice} work on shards already in device memory.
 *
 * <p>The share: each launch keeps at most {@link GpuShare#fraction()} of the device's resident
 * blocks in flight ({@link GpuShare#burstFraction()} while {@link #setBurst burst} is on), and
 * the staging buffers stay within {@link GpuShare#memoryCap()}; the caps hold per codec.
 *
 * <p>Thread safety: thread-safe; calls serialise on the codec's streams (one call runs at a time,
 * spread over all streams). Buffer ownership: the caller's buffers are read and written only
 * during the call, through the codec's pinned staging buffers; the codec keeps no reference.
 * The streams are created with the codec, the staging buffers on first use (then reused), and
 * {@link #close()} frees both; a call allocates a few small objects (its job, kernel arguments),
 * never a buffer.
 */
public final class GpuParityCodec extends AbstractParityCodec implements AutoCloseable {
  private final CudaDriver driver;
  private final GpuShare share;
  private final StripePipeline pipeline;
  private final DeviceMatrix parityMatrix;
  private final DeviceMatrix[] deltaColumns;
  private final ReconstructionPlanCache plans;
  private volatile boolean burst;

  public GpuParityCodec(CodecGeometry geometry, GpuShare share, CudaDriver driver) {
    super(geometry);
    if (share == null || driver == null) {
      throw new IllegalArgumentException("share and driver must not be null");
    }
    this.driver = driver;
    this.share = share;
    GfMatrix parity = geometry.parityMatrix();
    this.parityMatrix = DeviceMatrix.of(parity);
    this.deltaColumns = new DeviceMatrix[geometry.k()];
    for (int j = 0; j < geometry.k(); j++) {
      deltaColumns[j] = DeviceMatrix.column(parity, j);
    }
    this.plans = new ReconstructionPlanCache(geometry, DeviceMatrix::of);
    this.pipeline = new StripePipeline(driver, share);
  }

  /** A codec on the probed device with the {@link GpuShare#DEFAULT default share}. */
  public static GpuParityCodec create(CodecGeometry geometry) {
    return create(geometry, GpuShare.DEFAULT);
  }

  /**
   * A codec on the device {@link CudaProbe} opened.
   *
   * @throws IllegalStateException with the probe's reason when no GPU is usable
   */
  public static GpuParityCodec create(CodecGeometry geometry, GpuShare share) {
    return new GpuParityCodec(geometry, share, CudaProbe.driver());
  }

  /** "gpu-cuda(NVIDIA H200 (device 0, sm_90, 132 SMs, 140 GiB))". */
  @Override
  public String implementation() {
    return "gpu-cuda(" + driver.device().describe() + ")";
  }

  public GpuShare share() {
    return share;
  }

  /**
   * Switches between the normal share and the burst share ({@link GpuShare#burstFraction()}) for
   * the launches that follow, e.g. for the length of a rebuild.
   */
  public void setBurst(boolean on) {
    this.burst = on;
  }

  public boolean burst() {
    return burst;
  }

  /** The share of resident blocks launches use now. */
  double fraction() {
    return burst ? share.burstFraction() : share.fraction();
  }

  StripePipeline pipeline() {
    return pipeline;
  }

  @Override
  protected void doEncode(ByteBuffer[] data, ByteBuffer[] parity, int len) {
    doEncodeBatch(new ByteBuffer[][] {data}, new ByteBuffer[][] {parity}, new int[] {len});
  }

  @Override
  protected void doEncodeBatch(ByteBuffer[][] data, ByteBuffer[][] parity, int[] lens) {
    pipeline.run(new EncodeJob(geometry(), parityMatrix, data, parity, lens), fraction());
  }

  @Override
  protected void doReconstruct(
      ByteBuffer[] shards, int[] targets, long survivorMask, long targetMask, int len) {
    ReconstructionPlan plan = plans.get(survivorMask, targetMask);
    pipeline.run(new ReconstructJob(geometry(), new ByteBuffer[][] {shards},
        new ReconstructionPlan[] {plan}, new int[] {len}), fraction());
  }

  @Override
  protected void doReconstructBatch(
      ByteBuffer[][] shards, int[] targets, long[] survivorMasks, long targetMask, int[] lens) {
    ReconstructionPlan[] stripePlans = new ReconstructionPlan[shards.length];
    for (int i = 0; i < shards.length; i++) {
      stripePlans[i] = i > 0 && survivorMasks[i] == survivorMasks[i - 1]
          ? stripePlans[i - 1]
          : plans.get(survivorMasks[i], targetMask);
    }
    pipeline.run(new ReconstructJob(geometry(), shards, stripePlans, lens), fraction());
  }

  @Override
  protected void doUpdateParity(
      int dataIndex, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity, int len) {
    pipeline.run(new DeltaJob(geometry(), deltaColumns[dataIndex], oldData, newData, parity, len),
        fraction());
  }

  /**
   * Encodes stripes that are already in device memory, in the kernels' batch layout, and waits
   * for the result.
   *
   * <p>Layout: each shard is {@code words} 32-bit words (its bytes in order, little-endian words;
   * the host codec pads shards to whole 16-byte units, so {@code words} is then a multiple of 4,
   * but any {@code words >= 1} works). Shard j of stripe s of the data is at
   * {@code data + (s * k + j) * words * 4}; parity shard r of stripe s is written at
   * {@code parity + (s * m + r) * words * 4}. Both addresses are device addresses (for example a
   * {@code CUdeviceptr}'s value or a framework tensor's data pointer in this process's context),
   * 4-byte aligned. Runs on the codec's first stream, within its share.
   *
   * @throws IllegalArgumentException for a zero or misaligned address or a count below 1
   */
  public void encodeOnDevice(long data, long parity, long words, long stripes) {
    checkResident(data, parity, words, stripes);
    CodecGeometry g = geometry();
    switch (g.scheme()) {
      case XOR -> pipeline.runResident(CudaKernel.XOR,
          new long[] {data, parity, g.k(), words, stripes}, -1, null, words * stripes, fraction());
      case PQ -> pipeline.runResident(CudaKernel.PQ,
          new long[] {data, parity, g.k(), words, stripes}, -1, null, words * stripes, fraction());
      case RS_CAUCHY -> pipeline.runResident(CudaKernel.GF_APPLY,
          new long[] {data, parity, 0, g.m(), g.k(), words, stripes}, 2,
          parityMatrix.coefficients(), words * stripes, fraction());
    }
  }

  /**
   * The shard numbers {@link #reconstructOnDevice} reads, in the order it expects them: the
   * first k shards of {@code availableMask}, ascending.
   */
  public int[] survivorsFor(long availableMask, int[] targets) {
    return plan(availableMask, targets).survivors().clone();
  }

  /**
   * Restores {@code targets} for stripes already in device memory and waits for the result.
   *
   * <p>Layout as for {@link #encodeOnDevice}: {@code survivors} holds, per stripe, the k shards
   * {@link #survivorsFor survivorsFor(availableMask, targets)} names, in that order (shard j of
   * stripe s at {@code survivors + (s * k + j) * words * 4}); {@code restored} receives, per
   * stripe, the targets in ascending shard order (the r-th smallest target of stripe s at
   * {@code restored + (s * t + r) * words * 4}, t = number of targets).
   *
   * @param availableMask bit i set when shard i survives (at least k bits; no target among them)
   * @throws IllegalArgumentException for bad masks, targets, addresses or counts
   */
  public void reconstructOnDevice(long availableMask, int[] targets, long survivors,
      long restored, long words, long stripes) {
    checkResident(survivors, restored, words, stripes);
    ReconstructionPlan plan = plan(availableMask, targets);
    DeviceMatrix m = (DeviceMatrix) plan.compiled();
    int k = geometry().k();
    if (m.xor()) {
      pipeline.runResident(CudaKernel.XOR, new long[] {survivors, restored, k, words, stripes},
          -1, null, words * stripes, fraction());
    } else {
      pipeline.runResident(CudaKernel.GF_APPLY,
          new long[] {survivors, restored, 0, m.rows(), k, words, stripes}, 2, m.coefficients(),
          words * stripes, fraction());
    }
  }

  private ReconstructionPlan plan(long availableMask, int[] targets) {
    CodecGeometry g = geometry();
    if (targets == null || targets.length == 0) {
      throw new IllegalArgumentException("targets must name at least one shard");
    }
    long all = g.shards() == 64 ? -1L : (1L << g.shards()) - 1;
    long targetMask = 0;
    for (int t : targets) {
      if (t < 0 || t >= g.shards() || (targetMask & (1L << t)) != 0) {
        throw new IllegalArgumentException(
            "target shard " + t + " is out of range 0.." + (g.shards() - 1) + " or listed twice");
      }
      targetMask |= 1L << t;
    }
    if ((availableMask & ~all) != 0 || (availableMask & targetMask) != 0
        || Long.bitCount(availableMask) < g.k()) {
      throw new IllegalArgumentException("availableMask (0x" + Long.toHexString(availableMask)
          + ") must name at least " + g.k() + " shards of " + g + " and no target");
    }
    return plans.get(availableMask, targetMask);
  }

  private static void checkResident(long in, long out, long words, long stripes) {
    if (in == 0 || out == 0 || (in & 3) != 0 || (out & 3) != 0) {
      throw new IllegalArgumentException("device addresses (0x" + Long.toHexString(in) + ", 0x"
          + Long.toHexString(out) + ") must be non-zero and 4-byte aligned");
    }
    if (words < 1 || stripes < 1) {
      throw new IllegalArgumentException(
          "words (" + words + ") and stripes (" + stripes + ") must be >= 1");
    }
  }

  /** Frees the codec's streams and staging buffers; later calls throw. Idempotent. */
  @Override
  public void close() {
    pipeline.close();
  }
}
