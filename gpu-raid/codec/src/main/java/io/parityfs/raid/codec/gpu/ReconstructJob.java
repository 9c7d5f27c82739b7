package io.parityfs.raid.codec.gpu;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ReconstructionPlan;
import java.nio.ByteBuffer;

/**
 * Reconstruction: the k survivors a stripe's {@link ReconstructionPlan} chose, in plan order,
 * in; the targets, in ascending shard order, out; by {@code pfs_gf_apply} with the plan's matrix
 * ({@code pfs_xor} when that is a single row of ones). Stripes share a launch when they share a
 * plan.
 */
final class ReconstructJob extends StripeJob {
  private final CodecGeometry geometry;
  private final ByteBuffer[][] shards;
  private final ReconstructionPlan[] plans;
  private final int[] lens;

  ReconstructJob(CodecGeometry geometry, ByteBuffer[][] shards, ReconstructionPlan[] plans,
      int[] lens) {
    this.geometry = geometry;
    this.shards = shards;
    this.plans = plans;
    this.lens = lens;
  }

  @Override
  String what() {
    return "a stripe of " + geometry;
  }

  @Override
  int stripes() {
    return shards.length;
  }

  @Override
  int cols() {
    return geometry.k();
  }

  @Override
  int rows() {
    return plans[0].targets().length;
  }

  @Override
  int length(int s) {
    return lens[s];
  }

  @Override
  ByteBuffer input(int s, int j) {
    return shards[s][plans[s].survivors()[j]];
  }

  @Override
  ByteBuffer output(int s, int r) {
    return shards[s][plans[s].targets()[r]];
  }

  @Override
  CudaKernel kernel(int s) {
    return matrix(s).xor() ? CudaKernel.XOR : CudaKernel.GF_APPLY;
  }

  @Override
  byte[] coefficients(int s) {
    return matrix(s).xor() ? null : matrix(s).coefficients();
  }

  @Override
  Object launchKey(int s) {
    return plans[s];
  }

  private DeviceMatrix matrix(int s) {
    return (DeviceMatrix) plans[s].compiled();
  }
}
