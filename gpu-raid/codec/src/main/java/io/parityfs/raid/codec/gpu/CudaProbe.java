package io.parityfs.raid.codec.gpu;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, once per JVM, whether the GPU codec can run here, and opens the device if so.
 *
 * <p>First a pre-check that touches no JCuda class and costs a few {@code stat} calls: the GPU
 * is not disabled by {@value #DISABLED_PROPERTY}, the platform is one JCuda ships natives for
 * (linux-x86_64), {@code libcuda.so.1} is in {@code LD_LIBRARY_PATH} or a usual library
 * directory, and {@code /dev/nvidiactl} exists. Only then JCuda is loaded, the driver initialised,
 * device {@value #DEVICE_PROPERTY} (default 0) opened and the kernel image loaded; any failure
 * there, a {@link LinkageError} from JCuda's native library included, is caught and becomes the
 * reason. The verdict is cached: later calls return the same {@link Result} at once.
 *
 * <p>Thread-safe.
 */
public final class CudaProbe {
  /** {@code -Dparityfs.codec.gpu.disabled=true} makes the probe say no without looking. */
  public static final String DISABLED_PROPERTY = "parityfs.codec.gpu.disabled";
  /** {@code -Dparityfs.codec.gpu.device=N} picks CUDA device N (default 0). */
  public static final String DEVICE_PROPERTY = "parityfs.codec.gpu.device";

  /** Where {@code libcuda.so.1} usually is, after the {@code LD_LIBRARY_PATH} entries. */
  static final List<String> LIBRARY_DIRS = List.of(
      "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64", "/usr/lib",
      "/usr/local/nvidia/lib64", "/usr/local/cuda/compat", "/usr/local/cuda/lib64",
      "/usr/lib/wsl/lib");
  static final String LIBCUDA = "libcuda.so.1";
  static final String DEVICE_NODE = "/dev/nvidiactl";

  private static final Logger LOG = LoggerFactory.getLogger(CudaProbe.class);
  private static final Object LOCK = new Object();
  private static volatile Result verdict;
  private static CudaDriver driver;

  private CudaProbe() {}

  /**
   * Whether the GPU codec can run.
   *
   * @param available whether a device is open and the kernels are loaded
   * @param reason why not, or "ok"
   * @param device the device in words ("NVIDIA H200 (device 0, sm_90, 132 SMs, 140 GiB)"), or
   *     the empty string
   */
  public record Result(boolean available, String reason, String device) {
    static Result unavailable(String reason) {
      return new Result(false, reason, "");
    }
  }

  /** The host facts the pre-check reads; tests substitute their own. */
  interface Host {
    String property(String name);

    String env(String name);

    boolean exists(String path);

    Host SYSTEM = new Host() {
      @Override
      public String property(String name) {
        return System.getProperty(name);
      }

      @Override
      public String env(String name) {
        return System.getenv(name);
      }

      @Override
      public boolean exists(String path) {
        return Files.exists(Path.of(path));
      }
    };
  }

  /** The cached verdict, probing on first use. */
  public static Result result() {
    Result r = verdict;
    if (r == null) {
      synchronized (LOCK) {
        r = verdict;
        if (r == null) {
          r = probe();
          verdict = r;
          if (r.available()) {
            LOG.info("GPU parity codec available: {}, kernels {}",
                r.device(), KernelImage.describe());
          } else {
            LOG.debug("GPU parity codec unavailable: {}", r.reason());
          }
        }
      }
    }
    return r;
  }

  /**
   * The opened device, its kernels loaded.
   *
   * @throws IllegalStateException naming the reason when there is none
   */
  public static CudaDriver driver() {
    Result r = result();
    if (!r.available()) {
      throw new IllegalStateException(r.reason());
    }
    synchronized (LOCK) {
      return driver;
    }
  }

  /** The reason the GPU cannot be used, from host facts alone, or null when worth trying. */
  static String precheck(Host host) {
    if (Boolean.parseBoolean(host.property(DISABLED_PROPERTY))) {
      return "the GPU is disabled (-D" + DISABLED_PROPERTY + "=true)";
    }
    String os = String.valueOf(host.property("os.name")).toLowerCase(Locale.ROOT);
    String arch = String.valueOf(host.property("os.arch")).toLowerCase(Locale.ROOT);
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      return "JCuda natives are bundled for linux-x86_64 only, not " + os + "/" + arch;
    }
    List<String> dirs = new ArrayList<>();
    String ld = host.env("LD_LIBRARY_PATH");
    if (ld != null) {
      for (String d : ld.split(":")) {
        if (!d.isBlank()) {
          dirs.add(d);
        }
      }
    }
    dirs.addAll(LIBRARY_DIRS);
    boolean found = false;
    for (String d : dirs) {
      if (host.exists(d + "/" + LIBCUDA)) {
        found = true;
        break;
      }
    }
    if (!found) {
      return LIBCUDA + " not found (no NVIDIA driver; looked in LD_LIBRARY_PATH and "
          + String.join(", ", LIBRARY_DIRS) + ")";
    }
    if (!host.exists(DEVICE_NODE)) {
      return DEVICE_NODE + " not found (the NVIDIA kernel module is not loaded, or the "
          + "device is not passed into this container)";
    }
    return null;
  }

  private static Result probe() {
    String no = precheck(Host.SYSTEM);
    if (no != null) {
      return Result.unavailable(no);
    }
    byte[] image;
    int ordinal;
    try {
      image = KernelImage.fatbin();
      ordinal = deviceOrdinal(System.getProperty(DEVICE_PROPERTY, "0"));
    } catch (IllegalStateException | IllegalArgumentException e) {
      return Result.unavailable(e.getMessage());
    }
    try {
      CudaDriver d = JCudaDriverBackend.open(ordinal);
      d.loadModule(image);
      driver = d;
      return new Result(true, "ok", d.device().describe());
    } catch (GpuException e) {
      return Result.unavailable("CUDA: " + e.getMessage());
    } catch (LinkageError e) {
      return Result.unavailable("JCuda could not load its native library: " + e);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      return Result.unavailable("GPU initialisation failed: " + e);
    }
  }

  private static int deviceOrdinal(String text) {
    try {
      int n = Integer.parseInt(text.trim());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(DEVICE_PROPERTY + " (" + text + ") must be a device number >= 0");
  }
}
