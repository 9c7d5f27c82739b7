package io.parityfs.raid.codec;

import java.nio.ByteBuffer;

/**
 * Validates every {@link ParityCodec} call once, at the buffer boundary, and hands the checked
 * arguments to a backend's {@code do*} method. Backends therefore see well-formed shards only:
 * counts match the geometry, all lengths are equal, outputs are writable and distinct from
 * inputs, and at most m shards are missing.
 */
public abstract class AbstractParityCodec implements ParityCodec {
  private final CodecGeometry geometry;

  protected AbstractParityCodec(CodecGeometry geometry) {
    if (geometry == null) {
      throw new IllegalArgumentException("geometry must not be null");
    }
    this.geometry = geometry;
  }

  @Override
  public final CodecGeometry geometry() {
    return geometry;
  }

  @Override
  public final void encode(ByteBuffer[] data, ByteBuffer[] parity) {
    requireCount("data", data, geometry.k());
    requireCount("parity", parity, geometry.m());
    int len = requireLength("data", data, 0, -1);
    requireLength("parity", parity, 0, len);
    for (int i = 0; i < parity.length; i++) {
      requireOutput("parity", parity, i, data);
      requireOutput("parity", parity, i, parity);
    }
    if (len > 0) {
      doEncode(data, parity, len);
    }
  }

  @Override
  public final void reconstruct(ByteBuffer[] shards, int[] targets) {
    int n = geometry.shards();
    requireArray("shards", shards, n);
    if (targets == null) {
      throw new IllegalArgumentException("targets must not be null");
    }
    long targetMask = 0;
    for (int t : targets) {
      if (t < 0 || t >= n) {
        throw new IllegalArgumentException(
            "target shard " + t + " is out of range 0.." + (n - 1) + " for " + geometry);
      }
      if ((targetMask & (1L << t)) != 0) {
        throw new IllegalArgumentException("target shard " + t + " is listed twice");
      }
      targetMask |= 1L << t;
      if (shards[t] == null) {
        throw new IllegalArgumentException("target shard " + t + " has no output buffer");
      }
    }
    long survivorMask = 0;
    int len = -1;
    for (int i = 0; i < n; i++) {
      ByteBuffer b = shards[i];
      if (b == null) {
        continue;
      }
      if (len < 0) {
        len = b.remaining();
      } else if (b.remaining() != len) {
        throw new IllegalArgumentException(
            "shard " + i + " has " + b.remaining() + " bytes, shard lengths must all be " + len);
      }
      if ((targetMask & (1L << i)) == 0) {
        survivorMask |= 1L << i;
      } else if (b.isReadOnly()) {
        throw new IllegalArgumentException("target shard " + i + " is a read-only buffer");
      }
    }
    int missing = n - Long.bitCount(survivorMask);
    if (missing > geometry.m()) {
      throw new IllegalArgumentException(
          missing + " shards are missing (targets " + java.util.Arrays.toString(targets)
              + " and unavailable shards) but " + geometry + " restores at most " + geometry.m());
    }
    for (int t : targets) {
      for (int i = 0; i < n; i++) {
        if (i != t && shards[i] == shards[t]) {
          throw new IllegalArgumentException(
              "target shard " + t + " is the same buffer as shard " + i);
        }
      }
    }
    if (targets.length > 0 && len > 0) {
      doReconstruct(shards, targets, survivorMask, targetMask, len);
    }
  }

  @Override
  public final void updateParity(
      int dataIndex, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity) {
    if (dataIndex < 0 || dataIndex >= geometry.k()) {
      throw new IllegalArgumentException(
          "dataIndex (" + dataIndex + ") must be in 0.." + (geometry.k() - 1) + " for " + geometry);
    }
    if (oldData == null || newData == null) {
      throw new IllegalArgumentException("old and new data must not be null");
    }
    requireCount("parity", parity, geometry.m());
    int len = oldData.remaining();
    if (newData.remaining() != len) {
      throw new IllegalArgumentException(
          "newData has " + newData.remaining() + " bytes but oldData has " + len);
    }
    requireLength("parity", parity, 0, len);
    for (int i = 0; i < parity.length; i++) {
      requireOutput("parity", parity, i, parity);
      if (parity[i] == oldData || parity[i] == newData) {
        throw new IllegalArgumentException("parity[" + i + "] is also a data buffer");
      }
    }
    if (len > 0) {
      doUpdateParity(dataIndex, oldData, newData, parity, len);
    }
  }

  /** Encodes {@code len > 0} bytes; arguments are validated. */
  protected abstract void doEncode(ByteBuffer[] data, ByteBuffer[] parity, int len);

  /**
   * Restores {@code targets}; arguments are validated: at least k bits of {@code survivorMask}
   * are set, and bit i of {@code targetMask} is set for each target.
   */
  protected abstract void doReconstruct(
      ByteBuffer[] shards, int[] targets, long survivorMask, long targetMask, int len);

  /** Delta-updates parity for {@code len > 0} bytes; arguments are validated. */
  protected abstract void doUpdateParity(
      int dataIndex, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity, int len);

  private static void requireArray(String what, ByteBuffer[] a, int expected) {
    if (a == null) {
      throw new IllegalArgumentException(what + " must not be null");
    }
    if (a.length != expected) {
      throw new IllegalArgumentException(
          what + " has " + a.length + " buffers, expected " + expected);
    }
  }

  private void requireCount(String what, ByteBuffer[] a, int expected) {
    requireArray(what, a, expected);
    for (int i = 0; i < a.length; i++) {
      if (a[i] == null) {
        throw new IllegalArgumentException(what + "[" + i + "] is null");
      }
    }
  }

  /** Checks that every buffer from {@code from} has {@code expected} bytes (-1: same as the first). */
  private static int requireLength(String what, ByteBuffer[] a, int from, int expected) {
    int len = expected;
    for (int i = from; i < a.length; i++) {
      int r = a[i].remaining();
      if (len < 0) {
        len = r;
      } else if (r != len) {
        throw new IllegalArgumentException(
            what + "[" + i + "] has " + r + " bytes, every shard must have " + len);
      }
    }
    return len;
  }

  private static void requireOutput(String what, ByteBuffer[] out, int i, ByteBuffer[] others) {
    if (out[i].isReadOnly()) {
      throw new IllegalArgumentException(what + "[" + i + "] is a read-only buffer");
    }
    for (int j = 0; j < others.length; j++) {
      if (others[j] == out[i] && (others != out || j != i)) {
        throw new IllegalArgumentException(what + "[" + i + "] is also an input or output buffer");
      }
    }
  }
}
