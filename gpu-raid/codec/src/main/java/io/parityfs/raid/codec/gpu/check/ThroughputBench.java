package io.parityfs.raid.codec.gpu.check;

import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.gpu.CudaDriver;
import io.parityfs.raid.codec.gpu.GpuParityCodec;
import io.parityfs.raid.codec.gpu.PinnedBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.Arrays;

/**
 * The self-check's measurements: PCIe bandwidth between pinned host memory and the device, and
 * per {@link ThroughputCase} the host-to-host rate (encodeBatch / reconstructBatch on direct host
 * buffers, copies over PCIe included), the device-resident rate (encodeOnDevice /
 * reconstructOnDevice on device memory: kernels only, each launch waited for) and the CPU
 * codec's rate on the same stripes. Rates are data bytes (k shards per stripe; parity and
 * restored shards not counted) per second, in GB/s (10^9).
 *
 * <p>Holds, until {@link #close()}: one pinned buffer of {@link SelfCheckSizes#pcieBytes()}, one
 * stream, and device memory for the largest resident case's inputs and outputs. Not
 * thread-safe.
 */
final class ThroughputBench implements AutoCloseable {
  /** PCIe bandwidth in each direction. */
  record Pcie(double h2dGbps, double d2hGbps) {}

  /** A case's batch on host buffers, ready to hand to a codec. */
  record Batch(ThroughputCase c, int stripes, ByteBuffer[][] in, ByteBuffer[][] out) {
    /** Data bytes one call moves. */
    long dataBytes(int shardBytes) {
      return (long) stripes * c.geometry().k() * shardBytes;
    }

    void run(ParityCodec codec) {
      if (c.rebuild()) {
        codec.reconstructBatch(in, c.lost());
      } else {
        codec.encodeBatch(in, out);
      }
    }
  }

  private final CudaDriver driver;
  private final SelfCheckSizes sizes;
  private final PinnedBuffer pinned;
  private final long stream;
  private final long in;
  private final long out;
  private final long inBytes;
  private final long outBytes;
  private boolean closed;

  ThroughputBench(CudaDriver driver, SelfCheckSizes sizes, long seed) {
    this.driver = driver;
    this.sizes = sizes;
    long inNeed = sizes.pcieBytes();
    long outNeed = 16;
    for (ThroughputCase c : ThroughputCase.ALL) {
      int stripes = sizes.stripesFor(sizes.residentBytes(), c.geometry().k());
      inNeed = Math.max(inNeed, (long) stripes * c.geometry().k() * sizes.shardBytes());
      outNeed = Math.max(outNeed, (long) stripes * c.outputs() * sizes.shardBytes());
    }
    driver.bindThread();
    this.inBytes = inNeed;
    this.outBytes = outNeed;
    PinnedBuffer p = null;
    long s = 0;
    long i = 0;
    try {
      p = driver.allocPinned(sizes.pcieBytes());
      s = driver.createStream(driver.device().leastStreamPriority());
      i = driver.allocDevice(inNeed);
      this.out = driver.allocDevice(outNeed);
    } catch (RuntimeException e) {
      if (i != 0) {
        driver.freeDevice(i);
      }
      if (s != 0) {
        driver.destroyStream(s);
      }
      if (p != null) {
        driver.freePinned(p);
      }
      throw e;
    }
    this.pinned = p;
    this.stream = s;
    this.in = i;
    long x = seed | 1;
    LongBuffer longs = pinned.bytes().duplicate().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
    for (int w = 0; w < longs.capacity(); w++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      longs.put(w, x);
    }
    for (long o = 0; o < inBytes; o += sizes.pcieBytes()) {
      driver.copyToDevice(in + o, pinned, 0, Math.min(sizes.pcieBytes(), inBytes - o), stream);
    }
    driver.synchronize(stream);
  }

  /** Device memory this bench holds, bytes. */
  long deviceBytes() {
    return inBytes + outBytes;
  }

  /**
   * Pinned host memory to device and back: one warm-up copy each way, then
   * {@link SelfCheckSizes#pcieCopies()} copies of {@link SelfCheckSizes#pcieBytes()} queued
   * back to back and waited for once.
   */
  Pcie pcie() {
    driver.bindThread();
    int bytes = sizes.pcieBytes();
    double[] gbps = new double[2];
    for (int dir = 0; dir < 2; dir++) {
      copy(dir == 0, bytes);
      driver.synchronize(stream);
      long t0 = System.nanoTime();
      for (int c = 0; c < sizes.pcieCopies(); c++) {
        copy(dir == 0, bytes);
      }
      driver.synchronize(stream);
      gbps[dir] = rate((long) bytes * sizes.pcieCopies(), System.nanoTime() - t0);
    }
    return new Pcie(gbps[0], gbps[1]);
  }

  /**
   * What one host thread copies from direct host buffers into pinned memory, the staging step of
   * every host-to-host call (the pipeline stages on the calling thread): {@link
   * SelfCheckSizes#pcieBytes()} of {@code host}'s blocks, warm-up, best of 2. GB/s.
   */
  double stagingCopy(HostStripes host) {
    int blocks = Math.max(1, Math.min(host.blocks(), sizes.pcieBytes() / sizes.shardBytes()));
    ByteBuffer pin = pinned.bytes();
    double best = 0;
    for (int pass = 0; pass < 3; pass++) {
      long t0 = System.nanoTime();
      for (int b = 0; b < blocks; b++) {
        ByteBuffer src = host.block(b);
        pin.put(b * sizes.shardBytes(), src, 0, sizes.shardBytes());
      }
      double r = rate((long) blocks * sizes.shardBytes(), System.nanoTime() - t0);
      best = pass == 0 ? 0 : Math.max(best, r);
    }
    return best;
  }

  private void copy(boolean toDevice, int bytes) {
    if (toDevice) {
      driver.copyToDevice(in, pinned, 0, bytes, stream);
    } else {
      driver.copyToHost(pinned, 0, in, bytes, stream);
    }
  }

  /** The batch of {@code c} holding {@code dataBytes} of data on {@code host}'s blocks. */
  static Batch batch(HostStripes host, ThroughputCase c, SelfCheckSizes sizes, long dataBytes) {
    int stripes = sizes.stripesFor(dataBytes, c.geometry().k());
    return c.rebuild()
        ? new Batch(c, stripes, host.rebuild(c, stripes), null)
        : new Batch(c, stripes, host.data(c, stripes), host.parity(c, stripes));
  }

  /**
   * Host-to-host rate of {@code codec} on {@code batch}: one warm-up call (it also sizes the
   * codec's staging buffers), then the median of {@link SelfCheckSizes#hostPasses()} calls.
   */
  double host(ParityCodec codec, Batch batch) {
    batch.run(codec);
    double[] r = new double[sizes.hostPasses()];
    for (int p = 0; p < r.length; p++) {
      long t0 = System.nanoTime();
      batch.run(codec);
      r[p] = rate(batch.dataBytes(sizes.shardBytes()), System.nanoTime() - t0);
    }
    return median(r);
  }

  /** The CPU codec's rate on {@link SelfCheckSizes#cpuBytes()} of a case: warm-up, best of 2. */
  double cpu(HostStripes host, ThroughputCase c) {
    CpuParityCodec cpu = CpuParityCodec.create(c.geometry());
    Batch b = batch(host, c, sizes, sizes.cpuBytes());
    b.run(cpu);
    double best = 0;
    for (int p = 0; p < 2; p++) {
      long t0 = System.nanoTime();
      b.run(cpu);
      best = Math.max(best, rate(b.dataBytes(sizes.shardBytes()), System.nanoTime() - t0));
    }
    return best;
  }

  /**
   * Device-resident rate of {@code codec} for {@code c} on {@link SelfCheckSizes#residentBytes()}
   * of data per launch (random device bytes): two warm-up launches, then launches, each waited
   * for, until {@link SelfCheckSizes#residentSeconds()} have passed (at least three, at most
   * {@link SelfCheckSizes#residentMaxLaunches()}).
   */
  double resident(GpuParityCodec codec, ThroughputCase c) {
    int k = c.geometry().k();
    int stripes = sizes.stripesFor(sizes.residentBytes(), k);
    long words = sizes.shardBytes() / 4;
    Runnable launch = c.rebuild()
        ? () -> codec.reconstructOnDevice(c.availableMask(), c.lost(), in, out, words, stripes)
        : () -> codec.encodeOnDevice(in, out, words, stripes);
    launch.run();
    launch.run();
    long budget = (long) (sizes.residentSeconds() * 1e9);
    int launches = 0;
    long t0 = System.nanoTime();
    long elapsed;
    do {
      launch.run();
      launches++;
      elapsed = System.nanoTime() - t0;
    } while (launches < sizes.residentMaxLaunches() && (launches < 3 || elapsed < budget));
    return rate((long) launches * stripes * k * sizes.shardBytes(), elapsed);
  }

  static double rate(long bytes, long nanos) {
    return bytes / (double) Math.max(1, nanos);
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** Frees the device memory, the stream and the pinned buffer. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    driver.bindThread();
    try {
      driver.synchronize(stream);
    } finally {
      driver.destroyStream(stream);
      driver.freeDevice(in);
      driver.freeDevice(out);
      driver.freePinned(pinned);
    }
  }
}
