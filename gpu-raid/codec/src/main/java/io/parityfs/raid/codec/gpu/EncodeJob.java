package io.parityfs.raid.codec.gpu;

import io.parityfs.raid.codec.CodecGeometry;
import java.nio.ByteBuffer;

/** Encoding: k data shards in, m parity shards out, by {@code pfs_xor}, {@code pfs_pq} or {@code pfs_gf_apply}. */
final class EncodeJob extends StripeJob {
  private final CodecGeometry geometry;
  private final DeviceMatrix parityMatrix;
  private final ByteBuffer[][] data;
  private final ByteBuffer[][] parity;
  private final int[] lens;

  EncodeJob(CodecGeometry geometry, DeviceMatrix parityMatrix, ByteBuffer[][] data,
      ByteBuffer[][] parity, int[] lens) {
    this.geometry = geometry;
    this.parityMatrix = parityMatrix;
    this.data = data;
    this.parity = parity;
    this.lens = lens;
  }

  @Override
  String what() {
    return "a stripe of " + geometry;
  }

  @Override
  int stripes() {
    return data.length;
  }

  @Override
  int cols() {
    return geometry.k();
  }

  @Override
  int rows() {
    return geometry.m();
  }

  @Override
  int length(int s) {
    return lens[s];
  }

  @Override
  ByteBuffer input(int s, int j) {
    return data[s][j];
  }

  @Override
  ByteBuffer output(int s, int r) {
    return parity[s][r];
  }

  @Override
  CudaKernel kernel(int s) {
    return switch (geometry.scheme()) {
      case XOR -> CudaKernel.XOR;
      case PQ -> CudaKernel.PQ;
      case RS_CAUCHY -> CudaKernel.GF_APPLY;
    };
  }

  @Override
  byte[] coefficients(int s) {
    return kernel(s) == CudaKernel.GF_APPLY ? parityMatrix.coefficients() : null;
  }
}
