package io.parityfs.raid.codec.gpu;

import io.parityfs.raid.codec.CodecGeometry;
import java.nio.ByteBuffer;

/**
 * A parity delta: old and new data in (staged as two separate arrays, as {@code pfs_delta} takes
 * them), the m parity shards read and written back, with the data shard's column of the parity
 * matrix as coefficients.
 */
final class DeltaJob extends StripeJob {
  private final CodecGeometry geometry;
  private final DeviceMatrix column;
  private final ByteBuffer oldData;
  private final ByteBuffer newData;
  private final ByteBuffer[] parity;
  private final int len;

  DeltaJob(CodecGeometry geometry, DeviceMatrix column, ByteBuffer oldData, ByteBuffer newData,
      ByteBuffer[] parity, int len) {
    this.geometry = geometry;
    this.column = column;
    this.oldData = oldData;
    this.newData = newData;
    this.parity = parity;
    this.len = len;
  }

  @Override
  String what() {
    return "a parity update of " + geometry;
  }

  @Override
  int stripes() {
    return 1;
  }

  @Override
  int cols() {
    return 2;
  }

  @Override
  int rows() {
    return geometry.m();
  }

  @Override
  int length(int s) {
    return len;
  }

  @Override
  ByteBuffer input(int s, int j) {
    return j == 0 ? oldData : newData;
  }

  @Override
  ByteBuffer output(int s, int r) {
    return parity[r];
  }

  @Override
  CudaKernel kernel(int s) {
    return CudaKernel.DELTA;
  }

  @Override
  byte[] coefficients(int s) {
    return column.coefficients();
  }

  @Override
  boolean readsOutputs() {
    return true;
  }

  /** Old data of every stripe first, then new data: {@code pfs_delta}'s two input arrays. */
  @Override
  long inputWord(int s, int j, int count, long words) {
    return ((long) j * count + s) * words;
  }
}
