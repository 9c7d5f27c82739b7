package io.parityfs.raid.codec.select;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.function.LongSupplier;

/**
 * The start-up check of a GPU codec against the CPU codec: the self-check (encode a batch,
 * restore a data and a parity shard of every stripe, delta-update one stripe; every byte must
 * equal the CPU's) and the calibration (the best of a few timed batch encodes on each backend).
 * Works on any two codecs of the same geometry; the data is pseudo-random from a fixed seed.
 */
final class Calibration {
  /** The timed encodes per backend; the fastest counts. */
  static final int ROUNDS = 3;

  private final CodecGeometry geometry;
  private final ByteBuffer[][] data;
  private final ByteBuffer[][] parity;
  private final int shardBytes;
  private final LongSupplier clock;

  /** Timings of one calibration; bytes per second count data bytes. */
  record Timing(long cpuNanos, long gpuNanos, double cpuBytesPerSecond, double gpuBytesPerSecond) {
    boolean gpuFaster() {
      return gpuNanos < cpuNanos;
    }
  }

  Calibration(CodecGeometry geometry, int stripes, int shardBytes) {
    this(geometry, stripes, shardBytes, System::nanoTime);
  }

  /** With the clock the timings read (nanoseconds; tests give a virtual one). */
  Calibration(CodecGeometry geometry, int stripes, int shardBytes,
      LongSupplier clock) {
    this.clock = clock;
    this.geometry = geometry;
    this.shardBytes = shardBytes;
    Random rnd = new Random(0x5e1fc4ec);
    byte[] bytes = new byte[shardBytes];
    data = new ByteBuffer[stripes][geometry.k()];
    parity = new ByteBuffer[stripes][geometry.m()];
    for (int s = 0; s < stripes; s++) {
      for (int j = 0; j < geometry.k(); j++) {
        rnd.nextBytes(bytes);
        data[s][j] = ByteBuffer.allocateDirect(shardBytes).put(bytes).flip();
      }
    }
  }

  /** Null when {@code candidate} computes what {@code reference} computes, else the first difference. */
  String selfCheck(ParityCodec reference, ParityCodec candidate) {
    int stripes = data.length;
    ByteBuffer[][] want = outputs(stripes);
    ByteBuffer[][] got = outputs(stripes);
    reference.encodeBatch(data, want);
    candidate.encodeBatch(data, got);
    for (int s = 0; s < stripes; s++) {
      for (int r = 0; r < geometry.m(); r++) {
        int at = want[s][r].mismatch(got[s][r]);
        if (at >= 0) {
          return "encode differs from the CPU in stripe " + s + ", parity " + r + ", byte " + at;
        }
      }
    }
    int[] targets = geometry.m() == 1 ? new int[] {0} : new int[] {0, geometry.k()};
    ByteBuffer[][] shards = new ByteBuffer[stripes][];
    for (int s = 0; s < stripes; s++) {
      shards[s] = new ByteBuffer[geometry.shards()];
      for (int i = 0; i < geometry.shards(); i++) {
        shards[s][i] = i < geometry.k() ? data[s][i] : want[s][i - geometry.k()];
      }
      for (int t : targets) {
        shards[s][t] = ByteBuffer.allocateDirect(shardBytes);
      }
    }
    candidate.reconstructBatch(shards, targets);
    for (int s = 0; s < stripes; s++) {
      for (int t : targets) {
        ByteBuffer expected = t < geometry.k() ? data[s][t] : want[s][t - geometry.k()];
        int at = expected.mismatch(shards[s][t]);
        if (at >= 0) {
          return "reconstruction of shard " + t + " differs in stripe " + s + ", byte " + at;
        }
      }
    }
    int idx = geometry.k() - 1;
    ByteBuffer newData = ByteBuffer.allocateDirect(shardBytes);
    for (int i = 0; i < shardBytes; i++) {
      newData.put(i, (byte) (data[0][idx].get(i) * 31 + i));
    }
    candidate.updateParity(idx, data[0][idx], newData, got[0]);
    ByteBuffer[] changed = data[0].clone();
    changed[idx] = newData;
    reference.encode(changed, want[0]);
    for (int r = 0; r < geometry.m(); r++) {
      int at = want[0][r].mismatch(got[0][r]);
      if (at >= 0) {
        return "parity update differs from the CPU in parity " + r + ", byte " + at;
      }
    }
    return null;
  }

  /** Times {@link #ROUNDS} batch encodes on each codec, after one untimed warm-up each. */
  Timing time(ParityCodec cpu, ParityCodec gpu) {
    ByteBuffer[][] out = outputs(data.length);
    long cpuBest = best(cpu, out);
    long gpuBest = best(gpu, out);
    double bytes = (double) data.length * geometry.k() * shardBytes;
    return new Timing(cpuBest, gpuBest, bytes * 1e9 / cpuBest, bytes * 1e9 / gpuBest);
  }

  private long best(ParityCodec codec, ByteBuffer[][] out) {
    codec.encodeBatch(data, out);
    long best = Long.MAX_VALUE;
    for (int i = 0; i < ROUNDS; i++) {
      long t0 = clock.getAsLong();
      codec.encodeBatch(data, out);
      best = Math.min(best, Math.max(1, clock.getAsLong() - t0));
    }
    return best;
  }

  private ByteBuffer[][] outputs(int stripes) {
    ByteBuffer[][] out = new ByteBuffer[stripes][geometry.m()];
    for (int s = 0; s < stripes; s++) {
      for (int r = 0; r < geometry.m(); r++) {
        out[s][r] = ByteBuffer.allocateDirect(shardBytes);
      }
    }
    return out;
  }
}
