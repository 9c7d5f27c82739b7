package io.parityfs.raid.codec.gpu.check;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.gpu.CudaDriver;
import io.parityfs.raid.codec.gpu.GpuParityCodec;
import io.parityfs.raid.codec.gpu.PinnedBuffer;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The device-resident part of {@link EqualityCheck}: random stripes packed in the kernels' batch
 * layout into device memory, {@code encodeOnDevice} compared with the CPU's parity and
 * {@code reconstructOnDevice} with the original shards, for a few erasure patterns. Frees what
 * it allocates. Not thread-safe.
 */
final class ResidentCheck {
  /** Stripes of the device batch, and 32-bit words per shard (odd, so no power-of-two luck). */
  static final int STRIPES = 4;
  static final int WORDS = 1031;
  /** Erasure patterns run on device memory, spread over the geometry's list (largest first). */
  static final int PATTERNS = 4;

  private final CudaDriver driver;

  ResidentCheck(CudaDriver driver) {
    this.driver = driver;
  }

  /** encodeOnDevice and reconstructOnDevice against the CPU; returns the patterns run. */
  int run(CodecGeometry g, GpuParityCodec gpu, CpuParityCodec cpu, List<Long> patterns,
      Random rnd, EqualityCheck.Mismatches bad) {
    int k = g.k();
    int m = g.m();
    int n = g.shards();
    int len = WORDS * 4;
    int stripes = STRIPES;
    byte[][][] stripe = new byte[stripes][n][len];
    for (int s = 0; s < stripes; s++) {
      ByteBuffer[] d = new ByteBuffer[k];
      ByteBuffer[] p = new ByteBuffer[m];
      for (int i = 0; i < n; i++) {
        if (i < k) {
          rnd.nextBytes(stripe[s][i]);
          d[i] = ByteBuffer.wrap(stripe[s][i]);
        } else {
          p[i - k] = ByteBuffer.wrap(stripe[s][i]);
        }
      }
      cpu.encode(d, p);
    }
    long inBytes = (long) stripes * k * len;
    long outBytes = (long) stripes * Math.max(m, 1) * len;
    driver.bindThread();
    long in = driver.allocDevice(inBytes);
    long out = 0;
    PinnedBuffer pin = null;
    long stream = 0;
    int run = 0;
    try {
      out = driver.allocDevice(outBytes);
      pin = driver.allocPinned(Math.toIntExact(Math.max(inBytes, outBytes)));
      stream = driver.createStream(driver.device().leastStreamPriority());
      int[] dataShards = new int[k];
      for (int j = 0; j < k; j++) {
        dataShards[j] = j;
      }
      upload(stripe, dataShards, pin, in, stream);
      gpu.encodeOnDevice(in, out, WORDS, stripes);
      download(pin, out, (long) stripes * m * len, stream);
      for (int s = 0; s < stripes; s++) {
        for (int r = 0; r < m; r++) {
          EqualityCheck.compare("encodeOnDevice stripe " + s + " parity " + r,
              ByteBuffer.wrap(stripe[s][k + r]), pin.bytes().slice((s * m + r) * len, len), bad);
        }
      }
      long all = n == 64 ? -1L : (1L << n) - 1;
      int count = Math.min(PATTERNS, patterns.size());
      for (int p = 0; p < count; p++) {
        long mask = patterns.get(patterns.size() - 1 - p * patterns.size() / count);
        int[] targets = ErasurePatterns.shards(mask);
        gpu.setBurst(p % 2 == 1);
        int[] survivors = gpu.survivorsFor(all & ~mask, targets);
        upload(stripe, survivors, pin, in, stream);
        gpu.reconstructOnDevice(all & ~mask, targets, in, out, WORDS, stripes);
        download(pin, out, (long) stripes * targets.length * len, stream);
        for (int s = 0; s < stripes; s++) {
          for (int r = 0; r < targets.length; r++) {
            EqualityCheck.compare("reconstructOnDevice of " + Arrays.toString(targets)
                + " stripe " + s + " shard " + targets[r], ByteBuffer.wrap(stripe[s][targets[r]]),
                pin.bytes().slice((s * targets.length + r) * len, len), bad);
          }
        }
        run++;
      }
      gpu.setBurst(false);
      return run;
    } finally {
      driver.bindThread();
      if (stream != 0) {
        driver.destroyStream(stream);
      }
      if (pin != null) {
        driver.freePinned(pin);
      }
      if (out != 0) {
        driver.freeDevice(out);
      }
      driver.freeDevice(in);
    }
  }

  /** Packs shards {@code which} of every stripe, in that order, to device memory at {@code at}. */
  private void upload(byte[][][] stripe, int[] which, PinnedBuffer pin, long at, long stream) {
    int len = stripe[0][0].length;
    int o = 0;
    for (byte[][] s : stripe) {
      for (int j : which) {
        pin.bytes().put(o, s[j]);
        o += len;
      }
    }
    driver.bindThread();
    driver.copyToDevice(at, pin, 0, o, stream);
    driver.synchronize(stream);
  }

  private void download(PinnedBuffer pin, long from, long bytes, long stream) {
    driver.bindThread();
    driver.copyToHost(pin, 0, from, bytes, stream);
    driver.synchronize(stream);
  }
}
