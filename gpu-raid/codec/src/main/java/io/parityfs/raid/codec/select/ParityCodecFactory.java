package io.parityfs.raid.codec.select;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.gpu.CudaProbe;
import io.parityfs.raid.codec.gpu.GpuParityCodec;
import io.parityfs.raid.codec.gpu.GpuShare;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the {@link ParityCodec} for each geometry a node uses, on the configured
 * {@link CodecBackend}, and remembers the choice and why ({@link #selection}).
 *
 * <ul>
 *   <li>{@code cpu}: {@link CpuParityCodec}.
 *   <li>{@code gpu}: {@link GpuParityCodec}, after a self-check against the CPU codec. Without a
 *       usable GPU {@link Builder#build()} throws {@link IllegalStateException} naming the
 *       reason ("codec gpu requested but no GPU: libcuda.so.1 not found ..."), and when the
 *       self-check fails {@link #codec} does: the node refuses to start rather than run on the
 *       CPU when the operator asked for the GPU.
 *   <li>{@code auto}: the GPU only when {@link CudaProbe} finds one, it passes the self-check,
 *       and it encodes one calibration batch ({@link Builder#calibrationStripes} stripes of
 *       {@link Builder#calibrationShardBytes} bytes, the node's batch shape) faster than the CPU;
 *       otherwise the CPU. Never fails for want of a GPU. On a machine without an NVIDIA driver
 *       the probe costs a few {@code stat} calls and loads no JCuda class.
 * </ul>
 *
 * <p>The choice is made once per geometry, on first use, and cached with its codec: every later
 * {@link #codec} call returns the same thread-safe instance. The factory owns its codecs;
 * {@link #close()} releases the GPU codecs' streams and buffers. Thread-safe.
 */
public final class ParityCodecFactory implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ParityCodecFactory.class);

  private final CodecBackend backend;
  private final GpuShare gpuShare;
  private final int calibrationStripes;
  private final int calibrationShardBytes;
  private final Function<CodecGeometry, ParityCodec> cpuSource;
  private final LongSupplier clock;
  private final GpuCodecSource configuredGpuSource;
  private final GpuCodecSource gpuSource;
  private final Map<CodecGeometry, Choice> choices = new ConcurrentHashMap<>();

  private record Choice(ParityCodec codec, CodecSelection selection) {}

  private ParityCodecFactory(Builder b) {
    this.backend = b.backend;
    this.gpuShare = b.gpuShare;
    this.calibrationStripes = b.calibrationStripes;
    this.calibrationShardBytes = b.calibrationShardBytes;
    this.cpuSource = b.cpuSource;
    this.clock = b.clock;
    this.configuredGpuSource = b.gpuSource;
    this.gpuSource = b.gpuSource != null ? b.gpuSource : new ProbedGpu(b.gpuShare);
    if (backend == CodecBackend.GPU) {
      requireGpu();
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder with this factory's settings (its codecs are not shared). */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.backend = backend;
    b.gpuShare = gpuShare;
    b.calibrationStripes = calibrationStripes;
    b.calibrationShardBytes = calibrationShardBytes;
    b.cpuSource = cpuSource;
    b.clock = clock;
    b.gpuSource = configuredGpuSource;
    return b;
  }

  public CodecBackend backend() {
    return backend;
  }

  public GpuShare gpuShare() {
    return gpuShare;
  }

  /**
   * The codec for {@code geometry}, choosing it on first use.
   *
   * @throws IllegalStateException for {@link CodecBackend#GPU} without a usable GPU, or when the
   *     GPU fails its self-check
   */
  public ParityCodec codec(CodecGeometry geometry) {
    return choice(geometry).codec();
  }

  /** The choice for {@code geometry} and its reason, choosing on first use (as {@link #codec}). */
  public CodecSelection selection(CodecGeometry geometry) {
    return choice(geometry).selection();
  }

  private Choice choice(CodecGeometry geometry) {
    if (geometry == null) {
      throw new IllegalArgumentException("geometry must not be null");
    }
    Choice c = choices.get(geometry);
    if (c == null) {
      synchronized (choices) {
        c = choices.get(geometry);
        if (c == null) {
          c = choose(geometry);
          choices.put(geometry, c);
          LOG.info("{}", c.selection());
        }
      }
    }
    return c;
  }

  private Choice choose(CodecGeometry g) {
    return switch (backend) {
      case CPU -> cpu(g, "configured");
      case GPU -> gpuRequired(g);
      case AUTO -> auto(g);
    };
  }

  private Choice cpu(CodecGeometry g, String reason) {
    return cpu(g, reason, 0, 0);
  }

  private Choice cpu(CodecGeometry g, String reason, double cpuRate, double gpuRate) {
    ParityCodec c = cpuSource.apply(g);
    return new Choice(c, new CodecSelection(
        g, backend, CodecBackend.CPU, c.implementation(), reason, cpuRate, gpuRate));
  }

  private void requireGpu() {
    String no = gpuSource.unavailableReason();
    if (no != null) {
      throw new IllegalStateException("codec gpu requested but no GPU: " + no);
    }
  }

  private Choice gpuRequired(CodecGeometry g) {
    requireGpu();
    ParityCodec gpu = gpuSource.open(g);
    String mismatch;
    try {
      mismatch = new Calibration(g, calibrationStripes, calibrationShardBytes, clock)
          .selfCheck(cpuSource.apply(g), gpu);
    } catch (RuntimeException e) {
      closeQuietly(gpu);
      throw new IllegalStateException("codec gpu requested but the GPU self-check failed: " + e, e);
    }
    if (mismatch != null) {
      closeQuietly(gpu);
      throw new IllegalStateException("codec gpu requested but the GPU self-check failed: " + mismatch);
    }
    return new Choice(gpu, new CodecSelection(
        g, backend, CodecBackend.GPU, gpu.implementation(), "configured; self-check passed", 0, 0));
  }

  private Choice auto(CodecGeometry g) {
    String no = gpuSource.unavailableReason();
    if (no != null) {
      return cpu(g, "GPU unavailable: " + no);
    }
    ParityCodec gpu;
    try {
      gpu = gpuSource.open(g);
    } catch (RuntimeException e) {
      return cpu(g, "GPU codec failed to start: " + e.getMessage());
    }
    ParityCodec cpu = cpuSource.apply(g);
    Calibration.Timing t;
    try {
      Calibration cal = new Calibration(g, calibrationStripes, calibrationShardBytes, clock);
      String mismatch = cal.selfCheck(cpu, gpu);
      if (mismatch != null) {
        closeQuietly(gpu);
        return cpu(g, "GPU self-check failed: " + mismatch);
      }
      t = cal.time(cpu, gpu);
    } catch (RuntimeException e) {
      closeQuietly(gpu);
      return cpu(g, "GPU self-check failed: " + e);
    }
    String measured = String.format(Locale.ROOT,
        "calibration of %d x %d-byte stripes: gpu %.2f GB/s, cpu %.2f GB/s", calibrationStripes,
        calibrationShardBytes, t.gpuBytesPerSecond() / 1e9, t.cpuBytesPerSecond() / 1e9);
    if (!t.gpuFaster()) {
      closeQuietly(gpu);
      return new Choice(cpu, new CodecSelection(g, backend, CodecBackend.CPU,
          cpu.implementation(), measured, t.cpuBytesPerSecond(), t.gpuBytesPerSecond()));
    }
    return new Choice(gpu, new CodecSelection(g, backend, CodecBackend.GPU, gpu.implementation(),
        measured, t.cpuBytesPerSecond(), t.gpuBytesPerSecond()));
  }

  /** Releases the GPU codecs; later {@link #codec} calls choose afresh. */
  @Override
  public void close() {
    synchronized (choices) {
      for (Choice c : choices.values()) {
        closeQuietly(c.codec());
      }
      choices.clear();
    }
  }

  private static void closeQuietly(ParityCodec codec) {
    if (codec instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.warn("closing {} failed: {}", codec.implementation(), e.toString());
      }
    }
  }

  /** The JCuda codec on the probed device. */
  private record ProbedGpu(GpuShare share) implements GpuCodecSource {
    @Override
    public String unavailableReason() {
      CudaProbe.Result r = CudaProbe.result();
      return r.available() ? null : r.reason();
    }

    @Override
    public ParityCodec open(CodecGeometry geometry) {
      return GpuParityCodec.create(geometry, share);
    }
  }

  /** Builds a {@link ParityCodecFactory}; each setter checks its value at once. */
  public static final class Builder {
    private CodecBackend backend = CodecBackend.AUTO;
    private GpuShare gpuShare = GpuShare.DEFAULT;
    private int calibrationStripes = 16;
    private int calibrationShardBytes = 64 * 1024;
    private Function<CodecGeometry, ParityCodec> cpuSource = CpuParityCodec::create;
    private GpuCodecSource gpuSource;
    private LongSupplier clock = System::nanoTime;

    private Builder() {}

    /** auto (default), cpu or gpu. */
    public Builder backend(CodecBackend backend) {
      if (backend == null) {
        throw new IllegalArgumentException("backend must not be null");
      }
      this.backend = backend;
      return this;
    }

    /** The share of the GPU the GPU codecs may use (default {@link GpuShare#DEFAULT}). */
    public Builder gpuShare(GpuShare share) {
      if (share == null) {
        throw new IllegalArgumentException("gpuShare must not be null");
      }
      this.gpuShare = share;
      return this;
    }

    /** Stripes in the calibration and self-check batch: the node's batch size (default 16). */
    public Builder calibrationStripes(int stripes) {
      if (stripes < 1 || stripes > 4096) {
        throw new IllegalArgumentException(
            "calibrationStripes (" + stripes + ") must be in 1..4096");
      }
      this.calibrationStripes = stripes;
      return this;
    }

    /** Bytes per shard in the calibration batch (default 64 KiB). */
    public Builder calibrationShardBytes(int bytes) {
      if (bytes < 1 || bytes > 64 << 20) {
        throw new IllegalArgumentException(
            "calibrationShardBytes (" + bytes + ") must be in 1.." + (64 << 20));
      }
      this.calibrationShardBytes = bytes;
      return this;
    }

    /** Tests: where CPU codecs come from. */
    Builder cpuSource(Function<CodecGeometry, ParityCodec> source) {
      this.cpuSource = source;
      return this;
    }

    /** Tests: the calibration's clock in nanoseconds (default {@link System#nanoTime}). */
    Builder clock(LongSupplier nanos) {
      this.clock = Objects.requireNonNull(nanos, "clock");
      return this;
    }

    /** Tests: where GPU codecs come from, instead of the probed device. */
    Builder gpuSource(GpuCodecSource source) {
      this.gpuSource = source;
      return this;
    }

    /**
     * @throws IllegalStateException for {@link CodecBackend#GPU} when no GPU is usable
     */
    public ParityCodecFactory build() {
      return new ParityCodecFactory(this);
    }
  }
}
