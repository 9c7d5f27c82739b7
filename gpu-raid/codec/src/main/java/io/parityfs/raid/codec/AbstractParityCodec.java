package io.parityfs.raid.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.IdentityHashMap;

/**
 * Validates every {@link ParityCodec} call once, at the buffer boundary, and hands the checked
 * arguments to a backend's {@code do*} method. Backends therefore see well-formed shards only:
 * counts match the geometry, all lengths are equal, outputs are writable and distinct from
 * inputs, and at most m shards are missing.
 *
 * <p>Batches are validated whole before any byte is written: every stripe as the single-stripe
 * call would check it (the message then starts with "stripe i: "), and no output buffer of one
 * stripe may be a buffer of another. The {@code doEncodeBatch}/{@code doReconstructBatch} hooks
 * loop over the single-stripe hooks unless a backend batches for real.
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
    int len = checkEncode(data, parity);
    if (len > 0) {
      doEncode(data, parity, len);
    }
  }

  @Override
  public final void encodeBatch(ByteBuffer[][] data, ByteBuffer[][] parity) {
    if (data == null || parity == null) {
      throw new IllegalArgumentException("data and parity batches must not be null");
    }
    if (data.length != parity.length) {
      throw new IllegalArgumentException(
          "data has " + data.length + " stripes but parity has " + parity.length);
    }
    int[] lens = new int[data.length];
    for (int i = 0; i < data.length; i++) {
      try {
        lens[i] = checkEncode(data[i], parity[i]);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("stripe " + i + ": " + e.getMessage(), e);
      }
    }
    if (data.length > 1) {
      BatchOutputs outputs = new BatchOutputs();
      for (int i = 0; i < data.length; i++) {
        outputs.claim(i, parity[i], null);
      }
      for (int i = 0; i < data.length; i++) {
        outputs.checkInputs(i, data[i], null);
      }
    }
    if (data.length > 0) {
      doEncodeBatch(data, parity, lens);
    }
  }

  @Override
  public final void reconstruct(ByteBuffer[] shards, int[] targets) {
    requireArray("shards", shards, geometry.shards());
    long targetMask = targetMask(targets);
    long survivorMask = checkReconstruct(shards, targets, targetMask);
    int len = stripeLength(shards);
    if (targets.length > 0 && len > 0) {
      doReconstruct(shards, targets, survivorMask, targetMask, len);
    }
  }

  @Override
  public final void reconstructBatch(ByteBuffer[][] shards, int[] targets) {
    if (shards == null) {
      throw new IllegalArgumentException("shards batch must not be null");
    }
    long targetMask = targetMask(targets);
    long[] survivorMasks = new long[shards.length];
    int[] lens = new int[shards.length];
    for (int i = 0; i < shards.length; i++) {
      try {
        requireArray("shards", shards[i], geometry.shards());
        survivorMasks[i] = checkReconstruct(shards[i], targets, targetMask);
        lens[i] = stripeLength(shards[i]);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("stripe " + i + ": " + e.getMessage(), e);
      }
    }
    if (shards.length > 1) {
      BatchOutputs outputs = new BatchOutputs();
      for (int i = 0; i < shards.length; i++) {
        outputs.claim(i, shards[i], targets);
      }
      for (int i = 0; i < shards.length; i++) {
        outputs.checkInputs(i, shards[i], targets);
      }
    }
    if (targets.length > 0 && shards.length > 0) {
      doReconstructBatch(shards, targets, survivorMasks, targetMask, lens);
    }
  }

  private int checkEncode(ByteBuffer[] data, ByteBuffer[] parity) {
    requireCount("data", data, geometry.k());
    requireCount("parity", parity, geometry.m());
    int len = requireLength("data", data, 0, -1);
    requireLength("parity", parity, 0, len);
    for (int i = 0; i < parity.length; i++) {
      requireOutput("parity", parity, i, data);
      requireOutput("parity", parity, i, parity);
    }
    return len;
  }

  /** Checks the target list (range, duplicates) and returns it as a mask. */
  private long targetMask(int[] targets) {
    if (targets == null) {
      throw new IllegalArgumentException("targets must not be null");
    }
    int n = geometry.shards();
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
    }
    return targetMask;
  }

  /** Checks one stripe of a reconstruction and returns the mask of its survivors. */
  private long checkReconstruct(ByteBuffer[] shards, int[] targets, long targetMask) {
    int n = geometry.shards();
    for (int t : targets) {
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
          missing + " shards are missing (targets " + Arrays.toString(targets)
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
    return survivorMask;
  }

  /** The shard length of a checked stripe (0 when every entry is null). */
  private static int stripeLength(ByteBuffer[] shards) {
    for (ByteBuffer b : shards) {
      if (b != null) {
        return b.remaining();
      }
    }
    return 0;
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

  /**
   * Encodes a validated batch of at least one stripe; {@code lens[i]} is stripe i's shard length
   * (stripes of length 0 need no work). This default calls {@link #doEncode} per stripe.
   */
  protected void doEncodeBatch(ByteBuffer[][] data, ByteBuffer[][] parity, int[] lens) {
    for (int i = 0; i < data.length; i++) {
      if (lens[i] > 0) {
        doEncode(data[i], parity[i], lens[i]);
      }
    }
  }

  /**
   * Restores {@code targets} (at least one) in a validated batch of at least one stripe;
   * {@code survivorMasks[i]} and {@code lens[i]} are stripe i's survivors and shard length
   * (stripes of length 0 need no work). This default calls {@link #doReconstruct} per stripe.
   */
  protected void doReconstructBatch(
      ByteBuffer[][] shards, int[] targets, long[] survivorMasks, long targetMask, int[] lens) {
    for (int i = 0; i < shards.length; i++) {
      if (lens[i] > 0) {
        doReconstruct(shards[i], targets, survivorMasks[i], targetMask, lens[i]);
      }
    }
  }

  /**
   * The output buffers of a batch, by identity, to check that stripes are independent: an
   * output of one stripe may be neither an output nor an input of another.
   */
  private static final class BatchOutputs {
    private final IdentityHashMap<ByteBuffer, Integer> owner =
        new IdentityHashMap<>();

    /** Records the outputs of stripe i: all of {@code a}, or only the entries in {@code which}. */
    void claim(int stripe, ByteBuffer[] a, int[] which) {
      int count = which == null ? a.length : which.length;
      for (int x = 0; x < count; x++) {
        ByteBuffer b = a[which == null ? x : which[x]];
        Integer prev = owner.putIfAbsent(b, stripe);
        if (prev != null && prev != stripe) {
          throw new IllegalArgumentException(
              "stripe " + stripe + ": an output buffer is also an output of stripe " + prev);
        }
      }
    }

    /** Checks that no input of stripe i (entries of {@code a} not in {@code targets}) is claimed. */
    void checkInputs(int stripe, ByteBuffer[] a, int[] targets) {
      for (int j = 0; j < a.length; j++) {
        if (a[j] == null || (targets != null && contains(targets, j))) {
          continue;
        }
        Integer prev = owner.get(a[j]);
        if (prev != null && prev != stripe) {
          throw new IllegalArgumentException(
              "stripe " + stripe + ": input shard " + j + " is an output of stripe " + prev);
        }
      }
    }

    private static boolean contains(int[] a, int v) {
      for (int x : a) {
        if (x == v) {
          return true;
        }
      }
      return false;
    }
  }

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
